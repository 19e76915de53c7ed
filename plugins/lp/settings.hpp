// Every tolerance and interval of scfw's LP engine, in one struct. The tolerances are the same
// for every simplex code (the defaults); the intervals differ with the factorization each code
// keeps (an explicit inverse updated in product form is refreshed sooner than the master's
// rank-one updates, a unit-block basis later), so each GLMO has its preset below, and a change to
// one number is made here once. The presets are constexpr: reading a member costs what the
// literal did.
#pragma once

namespace scfw::lp {

struct Settings {
  // --- tolerances ---------------------------------------------------------------------------
  double primal_tol = 1e-9;    // a bound holds within primal_tol * max(1, |bound|)
  double dual_tol = 1e-9;      // a reduced cost within dual_tol of zero is zero
  double pivot_tol = 1e-9;     // smallest |alpha| accepted as a pivot (ratio tests, rates)
  double singular_tol = 1e-11; // factorization: a pivot below this (relative) means singular
  double degenerate_step = 1e-12;  // a step of at most this length is a degenerate pivot
  // The pivot entry from the pivot row and from the column must agree within this (relative),
  // else the factorization is refreshed before the update.
  double pivot_agreement = 1e-7;
  // A product-form update is kept (or trusted without a verifying refactorization) only when
  // its pivot is at least this times the column's largest entry.
  double update_pivot_ratio = 1e-3;
  // Artificial bounds on free or one-sided columns: this times max(1, the largest finite bound).
  double artificial_bound = 1e6;
  // `cross_check` and the tests: the GLMO's optimum and a cold Clp solve agree within this,
  // relative to max(1, |Clp's value|, the magnitude of the terms it is made of) (ColdClp).
  double clp_agreement = 1e-9;

  // --- intervals ----------------------------------------------------------------------------
  int refactor_every = 64;  // basis updates between refactorizations
  int degenerate_run = 30;  // degenerate pivots in a row before Bland's rule
  int max_rounds = 6;       // refactorize-and-verify rounds per solve before the fallback
  int max_escalations = 3;  // artificial-bound growths (x100 each) before the fallback
  int trust_updates = 12;   // at most this many updates since the factorization: no verifying one
};

inline constexpr Settings kDefaults{};

// dense_simplex: bounded dual simplex over an explicit inverse (product-form updates).
inline constexpr Settings kDenseSimplexSettings = [] {
  Settings s;
  s.refactor_every = 40;
  s.max_rounds = 12;
  return s;
}();

// scenario_dual: dual and primal simplex over the unit-block basis.
inline constexpr Settings kScenarioDualSettings = [] {
  Settings s;
  s.artificial_bound = 1e4;
  s.trust_updates = s.refactor_every;  // rank-one updates of B^{-1}: the first check trusts them all
  return s;
}();

// max_l1: revised simplex over a factorization with an eta file of at most refactor_every etas.
inline constexpr Settings kMaxL1Settings = [] {
  Settings s;
  s.refactor_every = 12;
  return s;
}();

// column_generation's dense master: bounded primal simplex, rank-one inverse updates; a solve
// gives up after max_rounds verifications that failed.
inline constexpr Settings kDenseMasterSettings = [] {
  Settings s;
  s.degenerate_run = 50;
  s.max_rounds = 4;
  return s;
}();

}  // namespace scfw::lp
