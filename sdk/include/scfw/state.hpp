// scfw SDK: the saved state of a component, for checkpoints (`scfw run --checkpoint FILE`).
//
// A component that keeps state between calls which can change a later result (a GLMO's warm
// basis, an LMO's warm start) says so with has_state() and writes that state to a StateWriter as
// a sequence of named, typed blocks; on resume the same component, freshly built and set up from
// the same problem file, reads them back from a StateReader in the same order. Numbers are
// stored as their raw bytes, so a restored double is bitwise the saved one.
//
//   void save_state(scfw::StateWriter& w) const override {
//     w.put("basis_status", stat_);   // std::vector<signed char>
//     w.put("head", head_);           // std::vector<int>
//     w.put("x", x_);                 // std::vector<double>
//   }
//   void load_state(scfw::StateReader& r) override {
//     r.get("basis_status", stat_);   // sizes must match the set-up component's: else an error
//     r.get("head", head_);
//     r.get("x", x_);
//     r.check_range("head", head_, 0, columns_ - 1);  // what a saved state can hold, no more
//     r.check_finite("x", x_);
//   }
//
// A checkpoint can be damaged or edited, so load_state() checks what it loads before using it:
// sizes (get_same_size), indices in range and values finite and within the bounds the component
// itself produces (check_range, check_finite, refuse). Every message names the owner (the
// checkpoint and the component) and the block.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace scfw {

namespace state_detail {
/// "f64", "i32", "u8", ...: the element type of a block, checked when it is read back.
template <class T>
std::string type_tag() {
  static_assert(std::is_arithmetic_v<T>, "state blocks hold arithmetic values");
  std::string t = std::is_floating_point_v<T> ? "f" : (std::is_signed_v<T> ? "i" : "u");
  t += std::to_string(8 * sizeof(T));
  return t;
}
/// A value for a message: integers exactly, floating point to 17 digits.
template <class T>
std::string show(T v) {
  if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
    return buf;
  }
}
/// " at <i>" for a message about value i of a block of n (nothing when n is 1).
inline std::string at(std::size_t i, std::size_t n) { return n == 1 ? std::string() : " at " + std::to_string(i); }
}  // namespace state_detail

/// Collects named, typed blocks of raw bytes (see the file comment). The text it produces
/// (text()) is one line per block: `<name> <type> <count> <hex bytes>`.
class StateWriter {
 public:
  /// The raw form: `count` values of type `type` (a tag such as "f64") in `bytes`.
  void put_raw(std::string_view name, std::string_view type, std::size_t count, const void* bytes,
               std::size_t size);

  template <class T>
  void put(std::string_view name, const std::vector<T>& v) {
    put_raw(name, state_detail::type_tag<T>(), v.size(), v.data(), v.size() * sizeof(T));
  }
  template <class T>
    requires std::is_arithmetic_v<T>
  void put(std::string_view name, T value) {
    put_raw(name, state_detail::type_tag<T>(), 1, &value, sizeof(T));
  }
  /// An Eigen vector or matrix (its coefficients in storage order).
  template <class Derived>
  void put(std::string_view name, const Eigen::PlainObjectBase<Derived>& m) {
    using T = typename Derived::Scalar;
    const auto n = static_cast<std::size_t>(m.size());
    put_raw(name, state_detail::type_tag<T>(), n, m.data(), n * sizeof(T));
  }
  void put(std::string_view name, std::string_view text);
  void put(std::string_view name, const char* text) { put(name, std::string_view(text)); }
  void put(std::string_view name, const std::string& text) { put(name, std::string_view(text)); }

  /// Every block so far, one per line.
  const std::string& text() const { return text_; }
  std::size_t blocks() const { return blocks_; }

 private:
  std::string text_;
  std::size_t blocks_ = 0;
};

/// Reads back what a StateWriter wrote, block by block in the same order. A block of another
/// name, type or (for fixed-size targets) count, or whose bytes are not exactly its count of
/// values, is an scfw::Error "<owner>: block <name>: <what differs>".
class StateReader {
 public:
  /// `owner` names the component in messages ("glmo dense_simplex").
  StateReader(std::string text, std::string owner);

  /// The next block, which must be called `name` and hold values of type `type`. Returns its
  /// count; its bytes go to `out` (resized).
  std::size_t get_raw(std::string_view name, std::string_view type, std::vector<unsigned char>& out);

  /// Any size: the vector takes the saved one.
  template <class T>
  void get(std::string_view name, std::vector<T>& v) {
    std::vector<unsigned char> bytes;
    const std::size_t n = get_raw(name, state_detail::type_tag<T>(), bytes);
    v.resize(n);
    if (n) std::memcpy(v.data(), bytes.data(), n * sizeof(T));
  }
  /// Exactly the size v already has (a set-up component's buffer).
  template <class T>
  void get_same_size(std::string_view name, std::vector<T>& v) {
    std::vector<unsigned char> bytes;
    const std::size_t n = get_raw(name, state_detail::type_tag<T>(), bytes);
    check_count(name, n, v.size());
    if (n) std::memcpy(v.data(), bytes.data(), n * sizeof(T));
  }
  template <class T>
    requires std::is_arithmetic_v<T>
  void get(std::string_view name, T& value) {
    std::vector<unsigned char> bytes;
    check_count(name, get_raw(name, state_detail::type_tag<T>(), bytes), 1);
    std::memcpy(&value, bytes.data(), sizeof(T));
  }
  /// An Eigen vector or matrix of the size it already has.
  template <class Derived>
  void get(std::string_view name, Eigen::PlainObjectBase<Derived>& m) {
    using T = typename Derived::Scalar;
    std::vector<unsigned char> bytes;
    const std::size_t n = get_raw(name, state_detail::type_tag<T>(), bytes);
    check_count(name, n, static_cast<std::size_t>(m.size()));
    if (n) std::memcpy(m.data(), bytes.data(), n * sizeof(T));
  }
  void get(std::string_view name, std::string& text);

  /// The name of the next block ("" at the end), for a reader whose layout has variants.
  std::string_view next_name() const;
  /// True when every block has been read.
  bool at_end() const { return pos_ >= text_.size(); }
  /// Throws unless every block has been read (a component that saved more than it reads back).
  void expect_end() const;
  const std::string& owner() const { return owner_; }

  /// Throws scfw::Error "<owner>: block <name>: <what>": for a load_state() that refuses a value
  /// it would never have saved.
  [[noreturn]] void refuse(std::string_view name, const std::string& what) const;
  /// Refuses the block unless it holds `want` values ("5 values saved, 3 expected").
  void check_count(std::string_view name, std::size_t got, std::size_t want) const;
  /// Refuses the block unless every one of `values` (a std::vector, an Eigen object) lies in
  /// [lo, hi]: "value -1 at 0 is outside [0, 9]" (no "at" for a block of one value). A NaN is in
  /// no range.
  template <class Values, class T>
  void check_range(std::string_view name, const Values& values, T lo, T hi) const {
    const auto* p = std::data(values);
    const auto n = static_cast<std::size_t>(std::size(values));
    for (std::size_t i = 0; i < n; ++i)
      if (!(p[i] >= lo && p[i] <= hi))
        refuse(name, "value " + state_detail::show(p[i]) + state_detail::at(i, n) + " is outside [" +
                         state_detail::show(lo) + ", " + state_detail::show(hi) + "]");
  }
  /// Refuses the block unless every one of `values` is finite: "value inf at 3 is not finite".
  template <class Values>
  void check_finite(std::string_view name, const Values& values) const {
    const auto* p = std::data(values);
    const auto n = static_cast<std::size_t>(std::size(values));
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isfinite(p[i]))
        refuse(name, "value " + state_detail::show(p[i]) + state_detail::at(i, n) + " is not finite");
  }

 private:

  std::string text_;
  std::string owner_;
  std::size_t pos_ = 0;
};

}  // namespace scfw
