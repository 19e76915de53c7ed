// scfw core: the Hybrid Momentum Stochastic Frank-Wolfe loop (paper, Algorithm 1).
//
// Iteration k = 0 .. K-1:
//   k == 0: draw xi_0; z_0 = f~(y_0; xi_0), V_0 = J~(y_0; xi_0)      (Alg. 1 line 2)
//   k >= 1: draw xi_k; tracker update of (z_k, V_k) at y_k           (lines 4-6)
//   x_{k+1} = GLMO(z_k, V_k, y_k)                                     (line 7)
//   y_{k+1} = (1 - gamma_k) y_k + gamma_k x_{k+1}                     (line 8)
// Algorithm 1 uses y_1 before defining it; taking the GLMO step at k = 0 too makes K iterations
// exactly K oracle draws and K GLMO calls, and the run returns y_K.
//
// Every `report_every` iterations (and after the last) the exact generalized Frank-Wolfe gap of
// eq. (2) is computed at y_{k+1} with the oracle's exact f and Jacobian and a separate GLMO
// instance; this never touches the algorithm's random engine, so reports on or off give
// identical iterates.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "scfw/core/problem.hpp"

namespace scfw {

struct PhaseTimes {
  double oracle = 0;   ///< seconds in Oracle calls made by the tracker (draw + evaluate)
  double tracker = 0;  ///< seconds in the tracker's own arithmetic (update minus oracle time)
  double glmo = 0;     ///< seconds in the algorithm's GLMO
  double update = 0;   ///< seconds in the y update
  double gap = 0;      ///< seconds in exact gap reports (exact f, J, GLMO, F)
  double total() const { return oracle + tracker + glmo + update + gap; }
};

/// What the loop hands to callbacks after each iteration.
struct IterationState {
  long iteration = 0;        ///< number of iterations done (k + 1): y_{iteration} is current
  long iterations = 0;       ///< K
  bool has_gap = false;      ///< gap and objective were computed at this iteration
  double gap = 0;            ///< generalized FW gap at y (eq. 2), when has_gap
  double objective = 0;      ///< phi(y) = F(f(y), y), when has_gap
  double best_gap = 0;       ///< smallest gap reported so far (inf before the first)
  Steps steps;               ///< gamma_k, beta_k, rho_k used in this iteration
  double glmo_value = 0;     ///< the algorithm's GLMO optimum F(z + V(x - y), x)
  long glmo_iterations = 0;  ///< simplex iterations of this iteration's GLMO solve
  double seconds = 0;        ///< wall time since the start of the run
  PhaseTimes times;          ///< cumulative time per phase
  const Vec* y = nullptr;    ///< the current iterate y_{iteration}
};

/// A callback returns false to stop the run (status Interrupted unless it set a reason).
using Callback = std::function<bool(const IterationState&)>;

enum class Status { IterationLimit, GapTolerance, TimeLimit, Interrupted, Failed };
const char* to_string(Status s);

struct SolverOptions {
  long iterations = 1000;       ///< K
  std::uint64_t seed = 1;       ///< seeds the one Rng of the run
  long report_every = 0;        ///< exact gap every this many iterations (0: only at the end)
  double gap_tolerance = 0;     ///< stop when a reported gap is <= this (0: never)
  double time_limit = 0;        ///< seconds (0: none)
  bool final_report = true;     ///< compute the exact gap after the last iteration
};

struct Summary {
  Status status = Status::IterationLimit;
  std::string message;
  long iterations = 0;
  double final_objective = 0, final_gap = 0, best_gap = 0;
  bool has_gap = false;
  /// Largest (value - lower_bound) of the gap reports' GLMO solves: 0 for an exact GLMO; else
  /// each reported gap is an upper bound, at most this much above the exact one.
  double gap_slack = 0;
  PhaseTimes times;
  double seconds = 0;
  CallCounters calls;
  long glmo_iterations = 0;      ///< simplex iterations of the algorithm's GLMO, summed
  long glmo_max_iterations = 0;  ///< the largest of one solve
  std::string glmo_solver;       ///< Glmo::describe()
  std::vector<std::string> notes;  ///< Problem::notes: choices the host made
  Vec y;                         ///< y_K

  std::string brief() const;  ///< one line
  std::string full() const;   ///< the multi-line report printed by `scfw run`
};

class Solver {
 public:
  Solver(Problem& problem, SolverOptions options) : problem_(problem), options_(options) {}
  void add_callback(Callback cb) { callbacks_.push_back(std::move(cb)); }
  /// Runs Algorithm 1. A plugin failure is rethrown as scfw::Error with the iteration number;
  /// callbacks have already seen every completed iteration.
  Summary run();

 private:
  Problem& problem_;
  SolverOptions options_;
  std::vector<Callback> callbacks_;
};

/// The generalized Frank-Wolfe gap of eq. (2) at y: phi(y) - min_x F(f(y) + J(y)(x - y), x),
/// with the exact f and J. Returns {gap, phi(y)}. Buffers are the caller's (no allocation).
struct GapValue {
  double gap = 0;
  double objective = 0;
  double slack = 0;  ///< value - lower_bound of the GLMO solve (0 when exact): gap - slack <= exact gap <= gap
};
GapValue generalized_gap(const Oracle& oracle, const OuterFunction& outer, Glmo& glmo, const Vec& y,
                         Vec& f, Mat& J, Vec& x);

}  // namespace scfw
