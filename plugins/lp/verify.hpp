// The verification policy of scfw's LP engine and its artificial bounds, written once for every
// exact GLMO; docs/design.md ("The LP engine") describes the policy.
//
// The column access V of verified_dual() is the dual driver's (bounded_dual.hpp) plus:
//   bool refactor();                 a fresh factorization of the basis (false: it failed)
//   int updates() const;             basis updates since the last refactor()
//   bool well_conditioned() const;   optional (default true): every update's pivot trusted
//   int recompute(bool fresh);       from the current factorization: the reduced costs (when
//                                    not fresh the client may keep the updated ones), each
//                                    nonbasic variable at the bound its reduced cost asks for,
//                                    then x_B; returns how many nonbasic variables moved, or -1
//                                    to hand the solve to the primal simplex (reduced costs dual
//                                    infeasible beyond repair)
//   bool basic(int j) const;         whether variable j is basic
#pragma once

#include "bounded_dual.hpp"
#include "settings.hpp"

#include <cmath>
#include <cstddef>
#include <vector>

namespace scfw::lp {

// Artificial bounds: a nonbasic variable whose reduced cost asks for a bound it does not have
// (free or one-sided) gets one at distance M from its finite other bound (or from 0), so that the
// basis is dual feasible. The real bounds (lo, up) and the effective ones (elo, eup, what the
// drivers read) are the client's arrays; this class records which effective bounds are
// artificial, moves them when M grows (x100 while one stays binding, up to
// Settings::max_escalations) and takes them back at the end.
class ArtificialBounds {
 public:
  void attach(int n, const double* lo, const double* up, double* elo, double* eup) {
    bits_.assign(static_cast<size_t>(n), 0);
    list_.assign(static_cast<size_t>(n), 0);
    count_ = 0;
    lo_ = lo;
    up_ = up;
    elo_ = elo;
    eup_ = eup;
  }
  // A new solve: no artificial bound (the effective bounds are the client's to reset), scale m.
  void start(double m) {
    for (int i = 0; i < count_; ++i) bits_[static_cast<size_t>(list_[static_cast<size_t>(i)])] = 0;
    count_ = 0;
    m_ = m;
    escalations_ = 0;
  }
  bool any() const { return count_ > 0; }
  bool lower(int j) const { return bits_[static_cast<size_t>(j)] & kLower; }
  bool upper(int j) const { return bits_[static_cast<size_t>(j)] & kUpper; }
  // An artificial lower (to_lower) or upper bound on j, M from its finite other bound or from 0.
  void set(int j, bool to_lower) {
    const size_t k = static_cast<size_t>(j);
    if (!bits_[k]) list_[static_cast<size_t>(count_++)] = j;
    bits_[k] |= to_lower ? kLower : kUpper;
    place(k, to_lower);
  }
  // Whether a nonbasic variable sits at one of its artificial bounds (x: the values).
  template <class V>
  bool binding(const V& cols, const double* x) const {
    for (int i = 0; i < count_; ++i) {
      const size_t k = static_cast<size_t>(list_[static_cast<size_t>(i)]);
      if (cols.basic(static_cast<int>(k))) continue;
      if (((bits_[k] & kLower) && x[k] == elo_[k]) || ((bits_[k] & kUpper) && x[k] == eup_[k])) return true;
    }
    return false;
  }
  // Whether the pivot row alpha of a leaving variable p (moving to its lower bound when
  // to_lower) that found no entering variable involves an artificial bound: then the row proves
  // nothing about the LP.
  template <class V>
  bool involved(const V& cols, int p, bool to_lower, const double* alpha, const Settings& s) const {
    if (to_lower ? lower(p) : upper(p)) return true;
    for (int i = 0; i < count_; ++i) {
      const int j = list_[static_cast<size_t>(i)];
      if (!cols.basic(j) && std::abs(alpha[static_cast<size_t>(j)]) > s.pivot_tol) return true;
    }
    return false;
  }
  // M x100 and every artificial bound moved out (the client puts its nonbasic variables back);
  // false once Settings::max_escalations growths are spent.
  bool escalate(const Settings& s) {
    if (escalations_ >= s.max_escalations) return false;
    m_ *= 100.0;
    ++escalations_;
    for (int i = 0; i < count_; ++i) {
      const size_t k = static_cast<size_t>(list_[static_cast<size_t>(i)]);
      if (bits_[k] & kLower) place(k, true);
      if (bits_[k] & kUpper) place(k, false);
    }
    return true;
  }
  // Every artificial bound taken back, in the order they were set; f(j) is called after j's.
  template <class F>
  void drop(F&& f) {
    for (int i = 0; i < count_; ++i) {
      const size_t k = static_cast<size_t>(list_[static_cast<size_t>(i)]);
      elo_[k] = lo_[k];
      eup_[k] = up_[k];
      bits_[k] = 0;
      f(static_cast<int>(k));
    }
    count_ = 0;
  }
  void drop() {
    drop([](int) {});
  }

 private:
  enum : unsigned char { kLower = 1, kUpper = 2 };
  void place(size_t k, bool to_lower) {
    const double base = std::isfinite(lo_[k]) ? lo_[k] : std::isfinite(up_[k]) ? up_[k] : 0.0;
    if (to_lower) elo_[k] = base - m_;
    else eup_[k] = base + m_;
  }
  std::vector<unsigned char> bits_;
  std::vector<int> list_;
  int count_ = 0;
  const double* lo_ = nullptr;
  const double* up_ = nullptr;
  double* elo_ = nullptr;
  double* eup_ = nullptr;
  double m_ = 0.0;
  int escalations_ = 0;
};

enum class Verified {
  kOptimal,         // a verified optimum (artificial bounds taken back)
  kFailed,          // no verified optimum within the rounds, a failed factorization, the pivot limit
  kNoEntering,      // on a fresh factorization, no variable enters for a row free of artificial
                    // bounds: the row proves the LP infeasible
  kToPrimal,        // recompute() handed the solve to the primal simplex
  kBinding,         // optimal for the effective bounds with a nonbasic variable at an artificial one
  kArtificialRow,   // no variable enters for a row that involves an artificial bound
};

// The dual driver from the current basis to a verified optimum under the policy. art:
// the client's artificial bounds, or null when it sets none.
template <class V>
Verified verified_dual(BoundedDual& dual, V& cols, const DualBasisView& b, const Settings& s, long max_pivots,
                       long& pivots, ArtificialBounds* art = nullptr) {
  const auto trusted = [&] {
    if constexpr (requires { cols.well_conditioned(); })
      if (!cols.well_conditioned()) return false;
    return cols.updates() <= s.trust_updates;
  };
  if (!cols.refactor()) return Verified::kFailed;
  if (cols.recompute(true) < 0) return Verified::kToPrimal;
  dual.start();
  bool clean = true;  // the values recomputed since the last pivot, nothing moved
  int rounds = 0;
  for (;;) {
    const long before = pivots;
    const BoundedDual::Exit e = dual.run(cols, b, s, max_pivots, pivots);
    if (pivots > before) clean = false;
    switch (e) {
      case BoundedDual::Exit::kOptimal:
        if (clean) {
          if (art && art->any()) {
            if (art->binding(cols, b.x)) return Verified::kBinding;
            art->drop();
          }
          return Verified::kOptimal;
        }
        if (++rounds > s.max_rounds) return Verified::kFailed;
        if (cols.updates() > 0 && (rounds > 1 || !trusted()) && !cols.refactor()) return Verified::kFailed;
        break;
      case BoundedDual::Exit::kNoEntering:
        if (art && art->involved(cols, dual.leaving_variable(), dual.leaving_to_lower(), dual.pivot_row(), s))
          return Verified::kArtificialRow;
        if (cols.updates() == 0) return Verified::kNoEntering;
        [[fallthrough]];
      case BoundedDual::Exit::kDisagree:  // the updated factorization has drifted: a fresh one
        if (cols.updates() == 0 || ++rounds > s.max_rounds) return Verified::kFailed;
        [[fallthrough]];
      case BoundedDual::Exit::kRefactor:
        if (!cols.refactor()) return Verified::kFailed;
        break;
      case BoundedDual::Exit::kIterLimit:
        return Verified::kFailed;
    }
    const bool fresh = cols.updates() == 0;
    const int moved = cols.recompute(fresh);
    if (moved < 0) return Verified::kToPrimal;
    clean = moved == 0 || fresh;
  }
}

}  // namespace scfw::lp
