// scfw SDK: capabilities, the one way a component says what it offers beyond its role's required
// methods (docs/plugins.md, "Capabilities").
//
// Every component answers capabilities() (roles.hpp) with a set of Capability flags, fixed once
// the object is constructed (a GLMO's may depend on setup()). The host, trackers and GLMOs ask
// `c.capabilities().has(Capability::Exact)` before calling an optional method; calling one that
// is not declared throws CapabilityError. A plugin declares its set in one line:
//
//   scfw::Capabilities capabilities() const override {
//     return scfw::Capability::Exact | scfw::Capability::HessianAction;
//   }
#pragma once

#include <cstdint>
#include <string>

namespace scfw {

enum class Capability : std::uint32_t {
  // Oracle
  Exact = 1u << 0,           ///< exact(): f(x) = E f~(x; xi) and its Jacobian, for gap reports
  HessianAction = 1u << 1,   ///< hessian_action(): sum_j v_j d/dx_j J~(x; xi)
  Sharded = 1u << 2,         ///< built with a Context::shard, its outputs are sums over its rows (shard.hpp)
  SparseJacobian = 1u << 3,  ///< jacobian_pattern(): J~ and J are sparse in one fixed pattern (jacobian.hpp)
  // Domain
  LpModel = 1u << 4,         ///< model(): X as linear constraints (Domain's default)
  CompactAtoms = 1u << 5,    ///< lmo() takes a sparse gradient and answers with a compact Atom (atom.hpp)
  // Glmo
  SparseV = 1u << 6,         ///< solve() takes V sparse in the oracle's pattern (else the host densifies V)
  // Domain, Glmo, Tracker (Stateful)
  SavedState = 1u << 7,      ///< keeps state between calls; save_state() / load_state() restore it bitwise
  UnsavedState = 1u << 8,    ///< keeps such state and cannot save it: the host refuses a checkpoint
};

/// A set of capabilities: `Capability::Exact | Capability::HessianAction`, or {} for none.
class Capabilities {
 public:
  constexpr Capabilities() = default;
  constexpr Capabilities(Capability c) : bits_(static_cast<std::uint32_t>(c)) {}  // NOLINT(google-explicit-constructor)

  constexpr bool has(Capability c) const { return (bits_ & static_cast<std::uint32_t>(c)) != 0; }
  /// This set without c.
  constexpr Capabilities without(Capability c) const { return from_bits(bits_ & ~static_cast<std::uint32_t>(c)); }
  constexpr std::uint32_t bits() const { return bits_; }
  constexpr bool operator==(const Capabilities&) const = default;

  friend constexpr Capabilities operator|(Capabilities a, Capabilities b) { return from_bits(a.bits_ | b.bits_); }
  Capabilities& operator|=(Capabilities o) {
    bits_ |= o.bits_;
    return *this;
  }

 private:
  static constexpr Capabilities from_bits(std::uint32_t b) {
    Capabilities c;
    c.bits_ = b;
    return c;
  }
  std::uint32_t bits_ = 0;
};

constexpr Capabilities operator|(Capability a, Capability b) { return Capabilities(a) | Capabilities(b); }

/// The name used in messages and docs: "exact", "hessian_action", "sharded", "sparse_jacobian",
/// "lp_model", "compact_atoms", "sparse_v", "saved_state", "unsaved_state".
const char* to_string(Capability c);
/// The names of a set, comma-separated ("" for none).
std::string to_string(Capabilities c);

}  // namespace scfw
