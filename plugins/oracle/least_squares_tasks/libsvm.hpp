// least_squares_tasks: the LIBSVM reader and the stratified task split. Header-only so that the
// plugin and its test share one implementation (the test includes it directly).
//
// Format: one row per line, `label idx:val idx:val ...`, 1-based strictly increasing feature
// indices, any run of spaces or tabs between tokens (trailing ones too), '\r' before the newline
// tolerated. Blank lines and everything from a '#' to the end of the line are skipped. Every
// `idx:val` token is stored as one non-zero (explicit zeros included), so the stored count equals
// the count of tokens in the file.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

namespace scfw::libsvm {

/// Rows of one LIBSVM file in CSR form; columns are 0-based.
struct Data {
  std::string path;
  std::vector<double> labels;            ///< one per row
  std::vector<std::int64_t> row_ptr{0};  ///< rows + 1 offsets into cols / vals
  std::vector<int> cols;
  std::vector<double> vals;
  int max_index = 0;  ///< largest 1-based feature index seen (0 if none)

  std::size_t rows() const { return labels.size(); }
  std::size_t nnz() const { return vals.size(); }
};

/// Lines of one rank's share of a file (libsvm_shard.hpp): their text and the file's line number
/// of the first, so that messages name the file's line.
struct Lines {
  std::string text;
  long first_line = 1;
};

namespace detail {

inline bool parse_double(std::string_view s, double& v) {
  if (s.empty()) return false;
  // std::from_chars accepts neither a leading '+' nor surrounding junk; LIBSVM labels are often "+1".
  if (s.front() == '+') {
    s.remove_prefix(1);
    if (s.empty() || s.front() == '-' || s.front() == '+') return false;
  }
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  return ec == std::errc() && p == end && std::isfinite(v);
}

/// A token that reads as a number but not a finite one ("1e400", "nan", "inf").
inline bool non_finite_number(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  double v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  return p == end && (ec == std::errc::result_out_of_range || (ec == std::errc() && !std::isfinite(v)));
}

inline bool parse_index(std::string_view s, long long& v) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  return ec == std::errc() && p == end;
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// Next whitespace-separated token of `line` starting at `pos`; empty at the end.
inline std::string_view next_token(std::string_view line, std::size_t& pos) {
  while (pos < line.size() && is_space(line[pos])) ++pos;
  const std::size_t start = pos;
  while (pos < line.size() && !is_space(line[pos])) ++pos;
  return line.substr(start, pos - start);
}

}  // namespace detail

/// Reads a LIBSVM file. `features` > 0 caps the feature indices (a larger one is an error).
/// Throws InputError("<path>: cannot open file"), InputError("<path>: is a directory") or
/// InputError("<path>:<line>: <what>"); a non-finite label or value ("nan", "1e400") is refused
/// with its line, and a quoted token is cut to 40 bytes (scfw::excerpt).
/// With `share`, parses share->text (one rank's lines, read by libsvm_shard.hpp) instead.
inline Data read(const std::string& path, int features = 0, const Lines* share = nullptr) {
  std::string whole;
  if (!share) {
    check_data_path(path);
    std::ifstream in;
    open_data_file(in, path, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    whole = buf.str();
  }
  const std::string& text = share ? share->text : whole;

  Data data;
  data.path = path;
  long line_no = share ? share->first_line - 1 : 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + begin, end - begin);
    begin = end + 1;
    ++line_no;
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);

    auto fail = [&](const std::string& what) -> void {
      throw InputError(path + ":" + std::to_string(line_no) + ": " + what);
    };
    std::size_t pos = 0;
    const std::string_view label = detail::next_token(line, pos);
    if (label.empty()) continue;  // blank or comment-only line
    double y = 0;
    if (!detail::parse_double(label, y))
      fail((detail::non_finite_number(label) ? "the label is not a finite number: \"" : "bad label \"") +
           excerpt(label) + "\"");

    long long prev = 0;
    for (std::string_view tok = detail::next_token(line, pos); !tok.empty(); tok = detail::next_token(line, pos)) {
      const std::size_t colon = tok.find(':');
      long long idx = 0;
      double v = 0;
      if (colon == std::string_view::npos || !detail::parse_index(tok.substr(0, colon), idx) ||
          !detail::parse_double(tok.substr(colon + 1), v)) {
        if (colon != std::string_view::npos && detail::non_finite_number(tok.substr(colon + 1)))
          fail("the value is not a finite number: \"" + excerpt(tok) + "\"");
        fail("expected index:value, got \"" + excerpt(tok) + "\"");
      }
      if (idx < 1) fail("feature indices start at 1, got " + std::to_string(idx));
      if (idx <= prev) fail("feature indices must increase (" + std::to_string(idx) + " after " + std::to_string(prev) + ")");
      if (features > 0 && idx > features)
        fail("feature index " + std::to_string(idx) + " exceeds features = " + std::to_string(features));
      if (idx > (1LL << 30)) fail("feature index " + std::to_string(idx) + " is too large");
      prev = idx;
      data.cols.push_back(static_cast<int>(idx - 1));
      data.vals.push_back(v);
    }
    data.max_index = std::max<int>(data.max_index, static_cast<int>(prev));
    data.labels.push_back(y);
    data.row_ptr.push_back(static_cast<std::int64_t>(data.cols.size()));
  }
  return data;
}

/// Splits rows 0..labels.size()-1 into `tasks` subsets stratified by label. The rows of each
/// label, in file order, are dealt round-robin; labels are taken in order of first appearance,
/// and each label's dealing starts where the previous label's stopped. So every subset gets
/// floor or ceil of (count of that label) / tasks rows of each label, and floor or ceil of
/// rows / tasks rows in all. Within a subset rows keep their file order.
inline std::vector<std::vector<std::size_t>> stratified_split(const std::vector<double>& labels, int tasks) {
  std::vector<std::vector<std::size_t>> out(static_cast<std::size_t>(tasks));
  std::vector<double> order;                  // labels by first appearance
  std::map<double, std::vector<std::size_t>> by_label;
  for (std::size_t r = 0; r < labels.size(); ++r) {
    auto [it, fresh] = by_label.try_emplace(labels[r]);
    if (fresh) order.push_back(labels[r]);
    it->second.push_back(r);
  }
  std::size_t next = 0;
  for (double lab : order) {
    for (std::size_t r : by_label[lab]) {
      out[next].push_back(r);
      next = (next + 1) % out.size();
    }
  }
  for (auto& rows : out) std::sort(rows.begin(), rows.end());
  return out;
}

}  // namespace scfw::libsvm
