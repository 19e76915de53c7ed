// scfw core: the diagnostics of bad input (diagnostics.hpp).
#include "scfw/core/diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

using nlohmann::json;

namespace scfw::diagnostics {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string child(const std::string& pointer, const std::string& key) { return pointer + "/" + pointer_token(key); }

std::string show(const json& v) {
  if (v.is_number_float() && !std::isfinite(v.get<double>())) return v.get<double>() > 0 ? "inf" : "-inf";
  constexpr size_t kMax = 60;
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  const bool longer = s.size() > kMax;
  if (longer) s.resize(kMax);  // escaping only lengthens: the first kMax bytes are all that can show
  // dump() escapes C0 controls but not DEL; DEL, the C1 controls (U+0085 NEL among them) and
  // U+2028, U+2029 (which end a line too) are escaped the same way, so that the message stays one
  // line of printable text.
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned c = static_cast<unsigned char>(s[i]), c1 = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0u,
                   c2 = i + 2 < s.size() ? static_cast<unsigned char>(s[i + 2]) : 0u;
    char escaped[8];
    if (c == 0x7F) {
      out += "\\u007f";
    } else if (c == 0xC2 && c1 >= 0x80 && c1 <= 0x9F) {
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c1);
      out += escaped;
      i += 1;
    } else if (c == 0xE2 && c1 == 0x80 && (c2 == 0xA8 || c2 == 0xA9)) {
      out += c2 == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  // Cut after escaping, so that no escape makes the shown value longer than kMax bytes (57 DELs
  // would otherwise show as 342); the cut never splits a UTF-8 sequence.
  if (longer || out.size() > kMax) {
    size_t cut = kMax - 3;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = out.substr(0, cut) + "...";
  }
  return out;
}

std::string excerpt(std::string_view text) { return scfw::excerpt(text, 40); }

void check_file_name(const std::string& source, const std::string& pointer, const std::string& name) {
  if (scfw::has_control_character(name))
    input_error(source, pointer, "the file name holds a control character (shown as ?): \"" + excerpt(name) + "\"");
}

std::string quoted_list(std::vector<std::string> names, bool sorted) {
  if (sorted) {
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", \"" : "\"") + names[i] + "\"";
  return s;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  if (name.size() > 256) return {};  // no name is that long; the edit distance would cost its length squared
  const std::string key = lower(name);
  std::string best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  std::vector<std::string> sorted = candidates;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& c : sorted) {
    const size_t dist = edit_distance(key, lower(c));
    if (dist < best_distance) {
      best_distance = dist;
      best = c;
    }
  }
  if (!best.empty() && best_distance <= 2 && best_distance < key.size()) return best;
  std::string related;
  for (const auto& c : sorted) {
    const std::string lc = lower(c);
    const bool prefix = key.size() >= 2 && lc.rfind(key, 0) == 0;
    const bool contains = (key.size() >= 3 && lc.find(key) != std::string::npos) ||
                          (lc.size() >= 3 && key.find(lc) != std::string::npos);
    if ((prefix || contains) && (related.empty() || c.size() < related.size())) related = c;
  }
  return related;
}

const char* article(const std::string& word) {
  return !word.empty() && std::string("aeiou").find(word[0]) != std::string::npos ? "an" : "a";
}

void input_error(const std::string& source, const std::string& pointer, const std::string& what) {
  throw InputError((source.empty() ? std::string("<input>") : source) + ": " + pointer + ": " + what);
}

void expected(const std::string& source, const std::string& pointer, const std::string& what, const json& got) {
  input_error(source, pointer, "expected " + what + ", got " + show(got));
}

bool as_integer(const json& v, std::int64_t& out) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
    out = static_cast<std::int64_t>(u);
    return true;
  }
  if (v.is_number_integer()) {
    out = v.get<std::int64_t>();
    return true;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e18) return false;
    out = static_cast<std::int64_t>(d);
    return true;
  }
  return false;
}

std::int64_t integer_at_least(const json& v, const std::string& source, const std::string& pointer, std::int64_t min) {
  std::int64_t i = 0;
  if (!as_integer(v, i) || i < min) expected(source, pointer, "an integer >= " + std::to_string(min), v);
  return i;
}

}  // namespace scfw::diagnostics

namespace scfw {

std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       size_t count) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) scored.emplace_back(edit_distance(name, c), c);
  std::sort(scored.begin(), scored.end());
  scored.erase(std::unique(scored.begin(), scored.end()), scored.end());
  std::vector<std::string> out;
  for (const auto& [d, c] : scored) {
    if (out.size() >= count) break;
    out.push_back(c);
  }
  return out;
}

}  // namespace scfw
