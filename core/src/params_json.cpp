// scfw core: a JSON block validated against a component's declared parameters (see params_json.hpp).
#include "scfw/core/params_json.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "scfw/core/diagnostics.hpp"
#include "scfw/error.hpp"

using nlohmann::json;

namespace scfw {


namespace {

using namespace diagnostics;

// The longest list of parameter names an "unknown parameter" message spells out whole.
constexpr size_t kListedBytes = 120;

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
    } else if (std::string all = quoted_list(declared); all.size() <= kListedBytes) {
      what += "; its parameters are " + all;
    } else {
      // A plugin with many parameters (matrix_completion has 16) would make the line too long
      // to read: name the count and the three closest; `scfw describe NAME` lists them all.
      // (A key of over 256 bytes is near none of them, and its edit distance costs its length
      // squared: the first three in order, as "its parameters are" would begin.)
      std::vector<std::string> sorted = declared;
      std::sort(sorted.begin(), sorted.end());
      std::vector<std::string> shown = key.size() <= 256 ? closest_names(key, sorted, 3) : sorted;
      if (shown.size() > 3) shown.resize(3);
      what += "; it has " + std::to_string(declared.size()) + " parameters; closest: " + quoted_list(shown, false);
    }
    // The key as the file spells it, cut to 40 bytes with control characters shown as '?' (a 10 MB
    // key must not land whole in a one-line message).
    input_error(source, child(pointer, excerpt(key)), what);
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
