// scfw SDK: declared parameters. A plugin declares each parameter it accepts (name, type,
// default, range, one-line doc); the host validates the problem file against the declarations
// before the plugin sees anything, and hands the plugin a typed, complete `Params`.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
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
///   ParamSpec::number("beta", "momentum weight").above(0).at_most(1).def(0.5)   // (0, 1]
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
  /// One bound at a time, chainable: .above(0).at_most(1) is (0, 1], .at_least(1) is [1, inf).
  ParamSpec& above(double lo);     ///< > lo
  ParamSpec& at_least(double lo);  ///< >= lo
  ParamSpec& below(double hi);     ///< < hi
  ParamSpec& at_most(double hi);   ///< <= hi
  /// (0, inf), the same as above(0)
  ParamSpec& positive();
  /// [0, inf), the same as at_least(0)
  ParamSpec& nonnegative();

  /// "a number in (0, 1)", "an integer >= 1", "one of \"polyak\", \"taylor\"", ...
  std::string describe_expected() const;
  /// True when the number lies in the declared range.
  bool in_range(double v) const;
};

/// The validated values of one JSON block (or nested object), with where they came from so that
/// a plugin can raise an error that names the file and JSON pointer of the offending value.
///
/// Read a value with get<T>: T is the C++ type the plugin stores it in, and an integer that does
/// not fit in T fails with the file and pointer of the value, never narrowing silently:
///   const int batch = p.get<int>("batch");        // "problem.json: /oracle/batch: ..." if too large
///   const double radius = p.get<double>("radius");
///   const auto& name = p.get<std::string>("regularizer");
/// Every declared parameter with a default is present; has() is for the parameters declared
/// without a default, which are genuinely optional.
class Params {
 public:
  Params() = default;
  Params(std::string source, std::string pointer) : source_(std::move(source)), pointer_(std::move(pointer)) {}

  /// The value of `name` as T: bool, std::string, std::vector<double>, double, or an integer type
  /// (int, long, std::size_t, ...; range-checked).
  template <class T>
  T get(const std::string& name) const;
  /// get<T> for a parameter declared without a default, or nullopt when the file omits it:
  ///   const int features = p.find<int>("features").value_or(0);   // 0: detect
  template <class T>
  std::optional<T> find(const std::string& name) const {
    if (!has(name)) return std::nullopt;
    return get<T>(name);
  }

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
  const ParamValue& value_of(const std::string& name) const;
  /// fail(name, "expected an integer <= 2147483647 (it is read as an int), got 4294967297").
  [[noreturn]] void fail_range(const std::string& name, std::int64_t got, std::int64_t lo, std::uint64_t hi,
                               const char* type) const;
  std::string source_;
  std::string pointer_;
  std::map<std::string, ParamValue> values_;
};

namespace detail {
template <class T> inline constexpr const char* integer_type_name = "an integer type";
template <> inline constexpr const char* integer_type_name<int> = "an int";
template <> inline constexpr const char* integer_type_name<long> = "a long";
template <> inline constexpr const char* integer_type_name<long long> = "a long long";
template <> inline constexpr const char* integer_type_name<unsigned> = "an unsigned int";
template <> inline constexpr const char* integer_type_name<unsigned long> = "an unsigned long";
template <> inline constexpr const char* integer_type_name<short> = "a short";
template <class> inline constexpr bool always_false = false;
}  // namespace detail

template <class T>
T Params::get(const std::string& name) const {
  if constexpr (std::is_same_v<T, bool>) {
    return boolean(name);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return string(name);
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    return numbers(name);
  } else if constexpr (std::is_same_v<T, double>) {
    return number(name);
  } else if constexpr (std::is_integral_v<T>) {
    const std::int64_t v = integer(name);
    if (!std::in_range<T>(v)) {
      const auto lo = std::is_signed_v<T> ? static_cast<std::int64_t>(std::numeric_limits<T>::min()) : 0;
      fail_range(name, v, lo, static_cast<std::uint64_t>(std::numeric_limits<T>::max()),
                 detail::integer_type_name<T>);
    }
    return static_cast<T>(v);
  } else {
    static_assert(detail::always_false<T>,
                  "Params::get<T>: T must be bool, std::string, std::vector<double>, double or an integer type");
  }
}

}  // namespace scfw
