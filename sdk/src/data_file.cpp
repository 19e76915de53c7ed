#include "scfw/data_file.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

namespace scfw {

namespace {
thread_local std::vector<std::string>* current_record = nullptr;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// The entry of `folder` whose name is closest to `name` (case ignored), when it is close: at most
/// 2 edits, or a third of the name's length for long names; "" when none is. Ties go to the name
/// first in byte order, so the suggestion does not depend on the order the folder is listed in.
/// Only the first 10000 entries are looked at: a suggestion is a help, not a search.
std::string near_name(const std::filesystem::path& folder, const std::string& name) {
  std::error_code ec;
  std::filesystem::directory_iterator it(folder, ec), end;
  const std::string key = lower(name);
  const std::size_t limit = std::max<std::size_t>(2, key.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (int seen = 0; !ec && it != end && seen < 10000; it.increment(ec), ++seen) {
    const std::string candidate = it->path().filename().string();
    const std::size_t dist = edit_distance(key, lower(candidate));
    if (dist < best_distance || (dist == best_distance && candidate < best)) {
      best_distance = dist;
      best = candidate;
    }
  }
  return best;
}
}  // namespace

std::vector<std::string>* record_data_files(std::vector<std::string>* record) {
  std::vector<std::string>* before = current_record;
  current_record = record;
  return before;
}

void note_data_file(const std::string& path) {
  if (current_record) current_record->push_back(path);
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string resolve_data_path(const std::string& file, const std::string& base_dir) {
  std::filesystem::path path(file);
  if (path.is_relative() && !base_dir.empty()) path = std::filesystem::path(base_dir) / path;
  return path.string();
}

std::string locate_data_file(const Params& p, const std::string& key, const std::string& file,
                             const std::string& base_dir) {
  namespace fs = std::filesystem;
  const std::string path = resolve_data_path(file, base_dir);
  check_data_path(path);
  std::error_code ec;
  if (fs::status(path, ec).type() != fs::file_type::not_found) return path;
  // The folder looked in, absolute and without "." or "..", as a reader would look for it.
  const fs::path full = fs::absolute(path, ec).lexically_normal();
  if (ec || !full.has_filename()) return path;  // left to open_data_file's message
  const fs::path folder = full.parent_path();
  const std::string name = full.filename().string();
  if (!fs::is_directory(folder, ec)) {
    const fs::path base = fs::absolute(base_dir.empty() ? fs::path(".") : fs::path(base_dir), ec).lexically_normal();
    std::string against = base.string();
    if (against.size() > 1 && against.back() == '/') against.pop_back();
    p.fail(key, "no folder " + excerpt(folder.string(), 120) + " (the file '" + excerpt(file) +
                    "' resolved against " + excerpt(against, 120) + ")");
  }
  std::string message = "no file '" + excerpt(name) + "' in " + excerpt(folder.string(), 120);
  const std::string near = near_name(folder, name);
  if (!near.empty()) message += " (did you mean '" + excerpt(near) + "'?)";
  p.fail(key, message);
}

}  // namespace scfw
