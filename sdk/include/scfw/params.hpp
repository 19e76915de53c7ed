// scfw SDK: declared parameters. A plugin declares each parameter it accepts (name, type,
// default, range, one-line doc); the host validates the problem file against the declarations
// before the plugin sees anything, and hands the plugin a typed, complete `Params`.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "scfw/types.hpp"

namespace scfw {

enum class ParamType { Number, Integer, Boolean, String, Choice, NumberList, Object };

const char* to_string(ParamType t);

class Params;

/// A parameter's value. Integers are also accepted where a Number is declared.
using ParamValue = std::variant<std::monostate, bool, std::int64_t, double, std::string,
                                std::vector<double>, std::shared_ptr<const Params>>;

/// One declared parameter. Built fluently:
///   ParamSpec::number("radius", "radius tau of the l1 ball").positive().def(1.0)
struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Number;
  std::string doc;
  ParamValue default_value;   // monostate: no default
  bool required = false;      // no default and must be given
  double min = -inf, max = inf;
  bool min_open = false, max_open = false;
  std::vector<std::string> choices;  // Choice
  std::vector<ParamSpec> fields;     // Object: the nested declarations

  static ParamSpec number(std::string name, std::string doc);
  static ParamSpec integer(std::string name, std::string doc);
  static ParamSpec boolean(std::string name, std::string doc);
  static ParamSpec string(std::string name, std::string doc);
  static ParamSpec choice(std::string name, std::vector<std::string> choices, std::string doc);
  static ParamSpec number_list(std::string name, std::string doc);
  static ParamSpec object(std::string name, std::vector<ParamSpec> fields, std::string doc);

  ParamSpec& def(double v);
  ParamSpec& def(int v);
  ParamSpec& def(std::int64_t v);
  ParamSpec& def(bool v);
  ParamSpec& def(const char* v);
  ParamSpec& def(std::string v);
  ParamSpec& def(std::vector<double> v);
  ParamSpec& require();
  /// Closed range [lo, hi]; use inf for a half line.
  ParamSpec& range(double lo, double hi);
  /// Open range (lo, hi).
  ParamSpec& open_range(double lo, double hi);
  /// (0, inf)
  ParamSpec& positive();
  /// [0, inf)
  ParamSpec& nonnegative();

  /// "a number in (0, 1)", "an integer >= 1", "one of \"polyak\", \"taylor\"", ...
  std::string describe_expected() const;
  /// True when the number lies in the declared range.
  bool in_range(double v) const;
};

/// The validated values of one JSON block (or nested object), with where they came from so that
/// a plugin can raise an error that names the file and JSON pointer of the offending value.
class Params {
 public:
  Params() = default;
  Params(std::string source, std::string pointer) : source_(std::move(source)), pointer_(std::move(pointer)) {}

  bool has(const std::string& name) const;
  double number(const std::string& name) const;
  std::int64_t integer(const std::string& name) const;
  bool boolean(const std::string& name) const;
  const std::string& string(const std::string& name) const;
  const std::vector<double>& numbers(const std::string& name) const;
  /// A nested object parameter; throws if absent (check has() for optional objects).
  const Params& object(const std::string& name) const;

  void set(const std::string& name, ParamValue v);
  const std::map<std::string, ParamValue>& values() const { return values_; }

  const std::string& source() const { return source_; }
  const std::string& pointer() const { return pointer_; }
  /// "problem.json: /domain/radius" — the location of a parameter, for error messages.
  std::string where(const std::string& name) const;
  /// Throws InputError("<file>: <pointer>/<name>: <message>").
  [[noreturn]] void fail(const std::string& name, const std::string& message) const;

 private:
  const ParamValue& get(const std::string& name) const;
  std::string source_;
  std::string pointer_;
  std::map<std::string, ParamValue> values_;
};

}  // namespace scfw
