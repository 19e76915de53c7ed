// scfw compare: what --resume needs (internal.hpp) — the hash of the libraries that compute a
// run, and a finished run read back from its summary.
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <istream>
#include <functional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "internal.hpp"
#include "scfw/core/problem.hpp"

namespace fs = std::filesystem;

namespace scfw::compare_detail {

namespace {

// FNV-1a, 64 bits: a checksum of files, not a defence against forgery.
struct Fnv1a {
  std::uint64_t h = 14695981039346656037ULL;
  void add(const char* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      h ^= static_cast<unsigned char>(p[i]);
      h *= 1099511628211ULL;
    }
  }
  /// Every byte left in `in`; returns how many.
  std::uint64_t add(std::istream& in) {
    char buffer[1 << 16];
    std::uint64_t bytes = 0;
    while (in) {
      in.read(buffer, sizeof buffer);
      add(buffer, static_cast<std::size_t>(in.gcount()));
      bytes += static_cast<std::uint64_t>(in.gcount());
    }
    return bytes;
  }
  /// The hash as 16 hex digits.
  std::string hex() const {
    char out[24];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
    return out;
  }
};

// The scfw shared libraries this process has mapped (libscfw_core, libscfw_sdk): by
// dl_iterate_phdr, which names every loaded object with its path.
int collect_scfw_library(dl_phdr_info* info, std::size_t, void* data) {
  const std::string name = info->dlpi_name ? info->dlpi_name : "";
  if (fs::path(name).filename().string().rfind("libscfw_", 0) == 0) static_cast<std::set<std::string>*>(data)->insert(name);
  return 0;
}

}  // namespace

std::string libraries_hash(const Registry& registry) {
  std::set<std::string> files(registry.libraries().begin(), registry.libraries().end());
  std::set<std::string> mapped;
  dl_iterate_phdr(collect_scfw_library, &mapped);
  for (const std::string& m : mapped) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(m, ec);
    files.insert(ec ? m : canonical.string());
  }
  Fnv1a f;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return "";  // a library that cannot be read again: no hash, so nothing is resumed
    const std::string name = fs::path(file).filename().string();
    f.add(name.data(), name.size() + 1);
    f.add(in);
  }
  return "fnv1a64:" + f.hex();
}

nlohmann::json data_fingerprints(const std::vector<std::string>& files) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& file : files) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(file, ec);
    Fnv1a f;
    std::ifstream in(ec ? fs::path(file) : canonical, std::ios::binary);
    const std::uint64_t bytes = f.add(in);
    const bool read = !ec && !in.bad() && in.eof();
    out.push_back({{"path", ec ? file : canonical.string()}, {"bytes", bytes}, {"fnv1a64", read ? f.hex() : ""}});
  }
  return out;
}

bool read_finished_run(const fs::path& summary_file, const fs::path& trace_file, const nlohmann::json& document,
                       const std::string& hash, const std::function<const nlohmann::json&()>& data, CompareRun& r) {
  std::error_code ec;
  if (hash.empty() || !fs::is_regular_file(summary_file, ec) || !fs::is_regular_file(trace_file, ec)) return false;
  nlohmann::json s;
  try {
    s = read_json_file(summary_file);
  } catch (const std::exception&) {
    return false;  // damaged or cut: run it again
  }
  auto is = [&](const char* key, const nlohmann::json& value) { return s.contains(key) && s[key] == value; };
  if (!s.is_object() || !is("experiment_run", document) || !is("libraries_hash", hash) ||
      !is("status", "iteration_limit") || !is("has_gap", true))
    return false;
  // The data last: fingerprinting it may mean composing the problem (run_all).
  const nlohmann::json& now = data();
  if (!is("data_files", now)) return false;
  for (const nlohmann::json& f : now)
    if (f.at("fnv1a64") == "") return false;
  try {
    const nlohmann::json& t = s.at("times");
    r.final_gap = s.at("final_gap").get<double>();
    r.best_gap = s.at("best_gap").get<double>();
    r.final_objective = s.at("objective").get<double>();
    r.seconds = s.at("seconds").get<double>();
    r.iterations = s.at("iterations").get<long>();
    r.times.oracle = t.at("oracle").get<double>();
    r.times.tracker = t.at("tracker").get<double>();
    r.times.glmo = t.at("glmo").get<double>();
    r.times.update = t.at("update").get<double>();
    r.times.gap = t.at("gap").get<double>();
  } catch (const std::exception&) {
    return false;
  }
  r.ok = true;
  r.error.clear();
  r.compose_seconds = 0;
  return true;
}

}  // namespace scfw::compare_detail
