#include "scfw/params.hpp"

#include "scfw/format_bound.hpp"

#include "scfw/helpers.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "scfw/error.hpp"

namespace scfw {

std::string format_bound(double v) {
  const std::string plain = format_number(v);
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  const std::string exp(buf);  // "1e+10", "2.5e-07"
  const size_t e = exp.find('e');
  std::string power = exp.substr(e + 2);
  while (power.size() > 1 && power[0] == '0') power.erase(0, 1);
  const std::string compact = exp.substr(0, e) + "e" + (exp[e + 1] == '-' ? "-" : "") + power;
  return compact.size() < plain.size() ? compact : plain;
}


const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::Number: return "number";
    case ParamType::Integer: return "integer";
    case ParamType::Boolean: return "boolean";
    case ParamType::String: return "string";
    case ParamType::Choice: return "string";
    case ParamType::NumberList: return "array of numbers";
    case ParamType::Object: return "object";
  }
  return "?";
}

namespace {
ParamSpec make(std::string name, ParamType type, std::string doc) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = type;
  s.doc = std::move(doc);
  return s;
}

}  // namespace

ParamSpec ParamSpec::number(std::string n, std::string d) { return make(std::move(n), ParamType::Number, std::move(d)); }
ParamSpec ParamSpec::integer(std::string n, std::string d) { return make(std::move(n), ParamType::Integer, std::move(d)); }
ParamSpec ParamSpec::boolean(std::string n, std::string d) { return make(std::move(n), ParamType::Boolean, std::move(d)); }
ParamSpec ParamSpec::string(std::string n, std::string d) { return make(std::move(n), ParamType::String, std::move(d)); }
ParamSpec ParamSpec::number_list(std::string n, std::string d) { return make(std::move(n), ParamType::NumberList, std::move(d)); }
ParamSpec ParamSpec::choice(std::string n, std::vector<std::string> c, std::string d) {
  ParamSpec s = make(std::move(n), ParamType::Choice, std::move(d));
  s.choices = std::move(c);
  return s;
}
ParamSpec ParamSpec::object(std::string n, std::vector<ParamSpec> f, std::string d) {
  ParamSpec s = make(std::move(n), ParamType::Object, std::move(d));
  s.fields = std::move(f);
  return s;
}

ParamSpec& ParamSpec::def(double v) { default_value = v; return *this; }
ParamSpec& ParamSpec::def(int v) { return def(static_cast<std::int64_t>(v)); }
ParamSpec& ParamSpec::def(std::int64_t v) {
  if (type == ParamType::Number) default_value = static_cast<double>(v);
  else default_value = v;
  return *this;
}
ParamSpec& ParamSpec::def(bool v) { default_value = v; return *this; }
ParamSpec& ParamSpec::def(const char* v) { default_value = std::string(v); return *this; }
ParamSpec& ParamSpec::def(std::string v) { default_value = std::move(v); return *this; }
ParamSpec& ParamSpec::def(std::vector<double> v) { default_value = std::move(v); return *this; }
ParamSpec& ParamSpec::require() { required = true; return *this; }
ParamSpec& ParamSpec::range(double lo, double hi) { min = lo; max = hi; min_open = max_open = false; return *this; }
ParamSpec& ParamSpec::open_range(double lo, double hi) { min = lo; max = hi; min_open = max_open = true; return *this; }
ParamSpec& ParamSpec::above(double lo) { min = lo; min_open = true; return *this; }
ParamSpec& ParamSpec::at_least(double lo) { min = lo; min_open = false; return *this; }
ParamSpec& ParamSpec::below(double hi) { max = hi; max_open = true; return *this; }
ParamSpec& ParamSpec::at_most(double hi) { max = hi; max_open = false; return *this; }
ParamSpec& ParamSpec::positive() { return above(0); }
ParamSpec& ParamSpec::nonnegative() { return at_least(0); }

bool ParamSpec::in_range(double v) const {
  if (std::isnan(v)) return false;
  if (min_open ? !(v > min) : !(v >= min)) return false;
  if (max_open ? !(v < max) : !(v <= max)) return false;
  return true;
}


std::string ParamSpec::describe_expected() const {
  std::string what;
  switch (type) {
    case ParamType::Number: what = "a number"; break;
    case ParamType::Integer: what = "an integer"; break;
    case ParamType::Boolean: return "true or false";
    case ParamType::String: return "a string";
    case ParamType::NumberList: what = "an array of numbers"; break;
    case ParamType::Object: return "an object";
    case ParamType::Choice: {
      std::string s = "one of ";
      for (size_t i = 0; i < choices.size(); ++i) s += (i ? ", \"" : "\"") + choices[i] + "\"";
      return s;
    }
  }
  const bool lo = std::isfinite(min), hi = std::isfinite(max);
  if (lo && hi) {
    what += std::string(" in ") + (min_open ? "(" : "[") + format_bound(min) + ", " + format_bound(max) +
            (max_open ? ")" : "]");
  } else if (lo) {
    what += std::string(min_open ? " > " : " >= ") + format_bound(min);
  } else if (hi) {
    what += std::string(max_open ? " < " : " <= ") + format_bound(max);
  }
  if (type == ParamType::NumberList && (lo || hi)) {
    // "an array of numbers >= 0" reads as a bound on each entry, which is what is meant.
  }
  return what;
}

bool Params::has(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && !std::holds_alternative<std::monostate>(it->second);
}

const ParamValue& Params::value_of(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || std::holds_alternative<std::monostate>(it->second))
    throw Error(where(name) + ": parameter was not given and has no default");
  return it->second;
}

double Params::number(const std::string& name) const {
  const ParamValue& v = value_of(name);
  if (auto d = std::get_if<double>(&v)) return *d;
  if (auto i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  throw Error(where(name) + ": parameter is not a number");
}

std::int64_t Params::integer(const std::string& name) const {
  const ParamValue& v = value_of(name);
  if (auto i = std::get_if<std::int64_t>(&v)) return *i;
  throw Error(where(name) + ": parameter is not an integer");
}

bool Params::boolean(const std::string& name) const {
  const ParamValue& v = value_of(name);
  if (auto b = std::get_if<bool>(&v)) return *b;
  throw Error(where(name) + ": parameter is not a boolean");
}

const std::string& Params::string(const std::string& name) const {
  const ParamValue& v = value_of(name);
  if (auto s = std::get_if<std::string>(&v)) return *s;
  throw Error(where(name) + ": parameter is not a string");
}

const std::vector<double>& Params::numbers(const std::string& name) const {
  const ParamValue& v = value_of(name);
  if (auto s = std::get_if<std::vector<double>>(&v)) return *s;
  throw Error(where(name) + ": parameter is not an array of numbers");
}

const Params& Params::object(const std::string& name) const {
  const ParamValue& v = value_of(name);
  if (auto s = std::get_if<std::shared_ptr<const Params>>(&v)) return **s;
  throw Error(where(name) + ": parameter is not an object");
}

void Params::set(const std::string& name, ParamValue v) { values_[name] = std::move(v); }

std::string Params::where(const std::string& name) const {
  std::string s = source_.empty() ? std::string("<input>") : source_;
  return s + ": " + pointer_ + "/" + name;
}

void Params::fail(const std::string& name, const std::string& message) const {
  throw InputError(where(name) + ": " + message);
}

void Params::fail_range(const std::string& name, std::int64_t got, std::int64_t lo, std::uint64_t hi,
                        const char* type) const {
  const bool too_small = got < lo;
  fail(name, std::string("expected an integer ") + (too_small ? ">= " + std::to_string(lo) : "<= " + std::to_string(hi)) +
                 " (it is read as " + type + "), got " + std::to_string(got));
}

}  // namespace scfw
