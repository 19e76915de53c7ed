// scfw core: a JSON block validated against a component's declared parameters (see params_json.hpp).
#include "scfw/core/params_json.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "scfw/core/registry.hpp"
#include "scfw/error.hpp"

using nlohmann::json;

namespace scfw {

namespace json_input {

/// A JSON Pointer reference token (RFC 6901): "~" -> "~0", "/" -> "~1".
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

/// The value as compact JSON, shortened when long (a whole data array is no help in one line).
std::string show(const json& v) {
  if (v.is_number_float() && !std::isfinite(v.get<double>())) return v.get<double>() > 0 ? "inf" : "-inf";
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  constexpr size_t kMax = 60;
  if (s.size() > kMax) s = s.substr(0, kMax - 3) + "...";
  return s;
}

std::string quoted_list(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", \"" : "\"") + names[i] + "\"";
  return s;
}

namespace {
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

/// The declared name the user most likely meant by `name`, or "" when none is close: edit
/// distance <= 2 (and less than the typed name's length, so "x" does not suggest "r"), else one
/// name a prefix of or contained in the other ("iter" -> "iterations", "l1_radius" -> "radius").
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
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

[[noreturn]] void input_error(const std::string& source, const std::string& pointer, const std::string& what) {
  throw InputError((source.empty() ? std::string("<input>") : source) + ": " + pointer + ": " + what);
}

[[noreturn]] void expected(const std::string& source, const std::string& pointer, const std::string& what,
                           const json& got) {
  input_error(source, pointer, "expected " + what + ", got " + show(got));
}

/// An integer value: a JSON integer, or a float with an integral value (3.0).
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

}  // namespace json_input

namespace {

using namespace json_input;

Params validate_block(const std::vector<ParamSpec>& specs, const json& value, const std::string& source,
                      const std::string& pointer, const std::string& owner, bool skip_plugin_key);

/// "a number > 0"; "a finite number" when the declaration sets no bound (JSON has no infinity,
/// but 1e999 overflows to one).
std::string finite(const ParamSpec& spec) {
  const std::string what = spec.describe_expected();
  return what == "a number" ? "a finite number" : what;
}

ParamValue validate_value(const ParamSpec& spec, const json& v, const std::string& source,
                          const std::string& pointer, const std::string& owner) {
  switch (spec.type) {
    case ParamType::Number: {
      if (!v.is_number()) expected(source, pointer, spec.describe_expected(), v);
      const double d = v.get<double>();
      if (!std::isfinite(d) || !spec.in_range(d)) expected(source, pointer, finite(spec), v);
      return d;
    }
    case ParamType::Integer: {
      std::int64_t i = 0;
      if (!as_integer(v, i) || !spec.in_range(static_cast<double>(i)))
        expected(source, pointer, spec.describe_expected(), v);
      return i;
    }
    case ParamType::Boolean:
      if (!v.is_boolean()) expected(source, pointer, spec.describe_expected(), v);
      return v.get<bool>();
    case ParamType::String:
      if (!v.is_string()) expected(source, pointer, spec.describe_expected(), v);
      return v.get<std::string>();
    case ParamType::Choice: {
      if (!v.is_string()) expected(source, pointer, spec.describe_expected(), v);
      const auto s = v.get<std::string>();
      if (std::find(spec.choices.begin(), spec.choices.end(), s) == spec.choices.end())
        expected(source, pointer, spec.describe_expected(), v);
      return s;
    }
    case ParamType::NumberList: {
      // A single number stands for a one-element list.
      if (v.is_number()) {
        const double d = v.get<double>();
        if (!std::isfinite(d) || !spec.in_range(d)) expected(source, pointer, finite(spec), v);
        return std::vector<double>{d};
      }
      if (!v.is_array()) expected(source, pointer, spec.describe_expected(), v);
      ParamSpec entry = spec;  // the bound on each entry, described as "a number >= 0"
      entry.type = ParamType::Number;
      std::vector<double> out;
      out.reserve(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        const json& e = v[i];
        const std::string at = pointer + "/" + std::to_string(i);
        if (!e.is_number()) expected(source, at, entry.describe_expected(), e);
        const double d = e.get<double>();
        if (!std::isfinite(d) || !spec.in_range(d)) expected(source, at, finite(entry), e);
        out.push_back(d);
      }
      return out;
    }
    case ParamType::Object: {
      if (!v.is_object()) expected(source, pointer, spec.describe_expected(), v);
      auto nested = std::make_shared<Params>(
          validate_block(spec.fields, v, source, pointer, owner + "." + spec.name, false));
      return std::shared_ptr<const Params>(std::move(nested));
    }
  }
  expected(source, pointer, spec.describe_expected(), v);
}

Params validate_block(const std::vector<ParamSpec>& specs, const json& value, const std::string& source,
                      const std::string& pointer, const std::string& owner, bool skip_plugin_key) {
  if (!value.is_object()) expected(source, pointer, "an object", value);
  std::vector<std::string> declared;
  declared.reserve(specs.size());
  for (const auto& s : specs) declared.push_back(s.name);

  for (const auto& [key, v] : value.items()) {
    if (skip_plugin_key && key == "plugin") continue;
    if (std::find(declared.begin(), declared.end(), key) != declared.end()) continue;
    std::string what = "unknown parameter of " + owner;
    if (declared.empty()) {
      what += "; it takes no parameters";
    } else if (const std::string guess = did_you_mean(key, declared); !guess.empty()) {
      what += "; did you mean \"" + guess + "\"?";
    } else {
      what += "; its parameters are " + quoted_list(declared);
    }
    input_error(source, child(pointer, key), what);
  }

  Params params(source, pointer);
  for (const auto& spec : specs) {
    const std::string at = child(pointer, spec.name);
    auto it = value.find(spec.name);
    if (it != value.end()) {
      params.set(spec.name, validate_value(spec, *it, source, at, owner));
    } else if (spec.required) {
      input_error(source, at, "missing required parameter (" + spec.doc + ")");
    } else if (!std::holds_alternative<std::monostate>(spec.default_value)) {
      params.set(spec.name, spec.default_value);
    }
  }
  return params;
}

std::string last_segment(const std::string& pointer) {
  const size_t slash = pointer.rfind('/');
  std::string seg = slash == std::string::npos ? pointer : pointer.substr(slash + 1);
  return seg.empty() ? std::string("this block") : seg;
}

}  // namespace

Params validate_params(const std::vector<ParamSpec>& specs, const json& value, const std::string& source,
                       const std::string& pointer, const std::string& owner) {
  return validate_block(specs, value, source, pointer, owner, true);
}

Params validate_params(const std::vector<ParamSpec>& specs, const json& value, const std::string& source,
                       const std::string& pointer) {
  return validate_block(specs, value, source, pointer, last_segment(pointer), true);
}

Params validate_object(const std::vector<ParamSpec>& specs, const json& value, const std::string& source,
                       const std::string& pointer, const std::string& owner) {
  return validate_block(specs, value, source, pointer, owner, false);
}

}  // namespace scfw
