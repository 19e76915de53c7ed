// The bounded primal simplex of scfw's LP engine: its steps (the composite phase-1 costs, Dantzig
// pricing with Bland's fallback, the ratio test) and the one driver over them (primal_simplex,
// at the end), used by column_generation's dense master and scenario_dual's primal simplex. The basis is seen through
// plain arrays: head[i] is the variable basic in position i, x, lo, up are per variable, and
// alpha = B^-1 a_q is per position; the basic variable at position i moves by -dir alpha_i t when
// the entering variable q moves by dir t.
//
// Phase 1 is the composite one: while some basic variable violates a bound, the cost is the
// gradient of the sum of violations. Pricing takes the largest |reduced cost| among the
// nonbasic variables that can move the way it gains (Bland: the first such). The ratio test is
// Harris' two passes: the largest step with every bound relaxed by its primal tolerance, then
// among the positions whose exact ratio is within it the largest |alpha| (Bland's rule instead:
// the smallest ratio, ties by the smallest variable index). The entering variable flips to its
// other bound when that comes first. A basic variable outside its bounds blocks where it enters
// feasibility (the composite phase 1). A step of at most Settings::degenerate_step is degenerate;
// after Settings::degenerate_run of them in a row the caller's Bland flag is set.
#pragma once

#include "dense_kernel.hpp"
#include "settings.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace scfw::lp {

struct PrimalBasisView {
  int m = 0;             // basis positions
  const int* head = nullptr;
  double* x = nullptr;   // per variable
  const double* lo = nullptr;
  const double* up = nullptr;
};

// The primal tolerance at a bound (0 at an infinite one, so that inf - ptol stays inf).
inline double bound_tol(double bound) { return std::isinf(bound) ? 0.0 : primal_tol(bound); }

// The bound basic variable j (value v) runs into when moving at rate (rate < 0: down), or NaN.
inline double target_bound(double v, double lo, double up, double rate) {
  if (rate < 0.0) {
    if (v > up + bound_tol(up)) return up;  // above its upper bound: blocks on entering feasibility
    if (v >= lo - bound_tol(lo)) return lo;
    return std::numeric_limits<double>::quiet_NaN();  // below lo and falling: no block
  }
  if (v < lo - bound_tol(lo)) return lo;
  if (v <= up + bound_tol(up)) return up;
  return std::numeric_limits<double>::quiet_NaN();
}

// The step at which a basic variable reaches its blocking bound (relaxed by the tolerance for
// Harris' first pass); +inf when it does not block.
inline double step_limit(double v, double lo, double up, double rate, bool relaxed) {
  const double b = target_bound(v, lo, up, rate);
  if (std::isnan(b) || std::isinf(b)) return std::numeric_limits<double>::infinity();
  const double slack = relaxed ? bound_tol(b) : 0.0;
  const double t = rate < 0.0 ? (v - b + slack) / -rate : (b - v + slack) / rate;
  return std::max(0.0, t);
}

// c_B by position: phase 1 (-1 below lo, +1 above up, else 0) when some basic variable violates
// a bound, else cost[head[i]]. Returns whether phase 1.
inline bool composite_basic_costs(const PrimalBasisView& b, const double* cost, double* cb) {
  bool phase1 = false;
  for (int i = 0; i < b.m; ++i) {
    const size_t j = static_cast<size_t>(b.head[i]);
    const double v = b.x[j], lo = b.lo[j], up = b.up[j];
    double c = 0.0;
    if (v < lo - bound_tol(lo)) c = -1.0;
    else if (v > up + bound_tol(up)) c = 1.0;
    cb[i] = c;
    if (c != 0.0) phase1 = true;
  }
  if (!phase1)
    for (int i = 0; i < b.m; ++i) cb[i] = cost[static_cast<size_t>(b.head[i])];
  return phase1;
}

// The entering variable among 0..nvars-1 (pos[j] >= 0: basic) by Dantzig's rule, or Bland's
// (the first candidate) when `bland`; dj(j) is j's reduced cost. Returns -1 when none prices
// out (optimal for the current costs); else sets dq to its reduced cost.
template <class ReducedCost>
inline int dantzig_entering(int nvars, const int* pos, const PrimalBasisView& b, const ReducedCost& dj, bool bland,
                            const Settings& s, double& dq) {
  int q = -1;
  double best = 0.0;
  dq = 0.0;
  for (int j = 0; j < nvars; ++j) {
    const size_t k = static_cast<size_t>(j);
    const double lo = b.lo[k], up = b.up[k];
    if (pos[j] >= 0 || lo == up) continue;
    // The cheap tests first: |d_j| must beat the tolerance (and, unless Bland, the best so far),
    // and j must be off the bound d_j pushes it towards.
    const double d = dj(j), gain = std::abs(d), v = b.x[k];
    if (!(gain > s.dual_tol) || (!bland && !(gain > best))) continue;
    if (d < 0.0 ? (v >= up || !(v < up - bound_tol(up))) : (v <= lo || !(v > lo + bound_tol(lo)))) continue;
    if (bland) {
      dq = d;
      return j;
    }
    best = gain;
    q = j;
    dq = d;
  }
  return q;
}

// Moves entering q (reduced cost dq) along alpha: returns the leaving position (its variable set
// exactly to the bound it reached; the caller changes the basis), -1 for a bound flip of q, -2
// when the LP is unbounded along q. `degenerate` counts degenerate steps in a row; `bland` is
// read for this step and set when the count passes s.degenerate_run.
inline int primal_ratio_step(const PrimalBasisView& b, const double* alpha, int q, double dq, bool& bland,
                             int& degenerate, const Settings& s) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const auto at = [&](int i) { return b.x[static_cast<size_t>(b.head[i])]; };
  const auto lo = [&](int i) { return b.lo[static_cast<size_t>(b.head[i])]; };
  const auto up = [&](int i) { return b.up[static_cast<size_t>(b.head[i])]; };
  const double dir = dq < 0.0 ? 1.0 : -1.0;
  const double xq = b.x[static_cast<size_t>(q)];
  const double range = dir > 0 ? b.up[static_cast<size_t>(q)] - xq : xq - b.lo[static_cast<size_t>(q)];
  const bool use_bland = bland;
  double tmax = range;
  for (int i = 0; i < b.m; ++i) {
    const double rate = -dir * alpha[i];
    if (std::abs(rate) <= s.pivot_tol) continue;
    tmax = std::min(tmax, step_limit(at(i), lo(i), up(i), rate, !use_bland));
  }
  if (tmax == kInf) return -2;
  int leave = -1;
  double best_abs = 0.0, t_leave = 0.0;
  for (int i = 0; i < b.m; ++i) {
    const double rate = -dir * alpha[i];
    if (std::abs(rate) <= s.pivot_tol) continue;
    const double t = step_limit(at(i), lo(i), up(i), rate, false);
    if (t > tmax) continue;
    const double a = std::abs(alpha[i]);
    bool better = a > best_abs;
    if (use_bland) better = leave < 0 || t < t_leave || (t == t_leave && b.head[i] < b.head[leave]);
    if (better) {
      best_abs = a;
      leave = i;
      t_leave = t;
    }
  }
  double t;
  if (leave < 0 || range <= t_leave) {  // bound flip of the entering variable
    if (range == kInf) return -2;
    t = range;
    leave = -1;
  } else {
    t = std::max(0.0, t_leave);
  }
  degenerate = t <= s.degenerate_step ? degenerate + 1 : 0;
  if (degenerate > s.degenerate_run) bland = true;
  // The bound the leaving variable reaches (classified before the values move).
  const double leave_bound = leave >= 0 ? target_bound(at(leave), lo(leave), up(leave), -dir * alpha[leave]) : 0.0;
  b.x[static_cast<size_t>(q)] =
      leave < 0 ? (dir > 0 ? b.up[static_cast<size_t>(q)] : b.lo[static_cast<size_t>(q)]) : xq + dir * t;
  if (t != 0.0)
    for (int i = 0; i < b.m; ++i) b.x[static_cast<size_t>(b.head[i])] -= dir * alpha[i] * t;
  if (leave < 0) return -1;
  b.x[static_cast<size_t>(b.head[leave])] = leave_bound;
  return leave;
}

// ---- The driver ---------------------------------------------------------------------------
//
// One bounded primal simplex over the steps above, a template over the GLMO's column access P:
//   PrimalBasisView view();               the basis and the values (see above)
//   int vars() const; const int* pos() const;   variables 0..vars()-1, pos[j] >= 0: basic
//   bool price();                         c_B (composite_basic_costs), the duals and the reduced
//                                         costs; returns whether phase 1
//   double reduced_cost(int j);           of nonbasic j, after price()
//   optional int entering(bool bland, double& dq);   the pricing itself, where the formulation
//                                         knows a cheaper pass that picks what dantzig_entering
//                                         would (its reduced cost in dq; -1: none)
//   void column(int q, double* alpha);    alpha = B^{-1} a_q by position
//   bool basis_change(int r, int q);      q entered at position r (values already moved): update
//                                         the factorization; false asks for a refactorization
//   void refactor();                      a fresh factorization, x_B recomputed from it
//   bool fresh() const;                   no update since the last refactor()
//   bool verify(bool phase1);             at a candidate end: do the values and duals solve their
//                                         equations (the caller's check, on the current or a
//                                         fresh factorization)?
// A candidate end that does not verify refactorizes and goes on, up to Settings::max_rounds; an
// unbounded ray found on an updated factorization is confirmed on a fresh one first.
enum class PrimalExit { kOptimal, kInfeasible, kUnbounded, kFailed };

template <class P>
PrimalExit primal_simplex(P& cols, double* alpha, const Settings& s, long max_pivots, long& pivots) {
  bool bland = false;
  int degenerate = 0, verified = 0;
  for (;;) {
    if (pivots >= max_pivots) return PrimalExit::kFailed;
    const bool phase1 = cols.price();
    double dq = 0.0;
    int q;
    if constexpr (requires { cols.entering(bland, dq); })
      q = cols.entering(bland, dq);
    else
      q = dantzig_entering(cols.vars(), cols.pos(), cols.view(), [&](int j) { return cols.reduced_cost(j); }, bland,
                           s, dq);
    if (q < 0) {
      if (cols.verify(phase1)) return phase1 ? PrimalExit::kInfeasible : PrimalExit::kOptimal;
      if (verified >= s.max_rounds) return PrimalExit::kFailed;
      ++verified;
      cols.refactor();
      continue;
    }
    cols.column(q, alpha);
    const int r = primal_ratio_step(cols.view(), alpha, q, dq, bland, degenerate, s);
    if (r == -2) {
      // No blocking variable: an unbounded ray, unless a rounding artefact of an updated
      // factorization (confirmed on a fresh one first).
      if (!cols.fresh() && verified < s.max_rounds) {
        ++verified;
        cols.refactor();
        continue;
      }
      return phase1 ? PrimalExit::kFailed : PrimalExit::kUnbounded;  // phase 1 cannot be unbounded
    }
    ++pivots;
    if (r >= 0 && !cols.basis_change(r, q)) cols.refactor();
  }
}

}  // namespace scfw::lp
