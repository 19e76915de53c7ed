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

#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "scfw/core/loop.hpp"
#include "scfw/core/options.hpp"
#include "scfw/core/problem.hpp"

namespace scfw {

/// Runs a Method on a Problem with some options. The stopping rules of the options (gap
/// tolerance, time limit; stopping.hpp) are callbacks after the caller's.
class Solver {
 public:
  /// Throws InputError when !options.IsValid().
  Solver(Problem& problem, Method& method, SolverOptions options);
  /// A whole composed file (the options given, not the file's, are used).
  Solver(Composition& c, SolverOptions options) : Solver(c.problem, c.method, std::move(options)) {}
  /// Not owned: must outlive run().
  void add_callback(Callback& cb) { callbacks_.push_back(&cb); }
  void add_callback(std::unique_ptr<Callback> cb) {
    callbacks_.push_back(cb.get());
    owned_.push_back(std::move(cb));
  }
  /// A plain function (FunctionCallback): false stops the run with status Interrupted.
  void add_callback(std::function<bool(const IterationState&)> f) {
    add_callback(std::make_unique<FunctionCallback>(std::move(f)));
  }
  /// A warm start: y_0 = y0 instead of Domain::initial_point() (check it with check_start,
  /// solution.hpp). An empty vector restores the domain's point.
  void set_start(Vec y0) { start_ = std::move(y0); }
  /// Runs Algorithm 1. A plugin failure is rethrown as scfw::Error with the iteration number;
  /// callbacks have already seen every completed iteration and on_end a Failed summary.
  Summary run();

  /// Continues from a saved loop state (a checkpoint's, checkpoint.hpp) instead of y_0; it must
  /// outlive run(). Throws InputError from run() when it does not fit the problem.
  void resume_from(const LoopState& state) { resume_ = &state; }
  /// Hands the loop state to `hook` after each iteration where it says one is due (after the
  /// callbacks, unless one aborted the run). Not owned: must outlive run().
  void set_state_hook(StateHook& hook) { hook_ = &hook; }

 private:
  const LoopState* resume_ = nullptr;
  StateHook* hook_ = nullptr;
  Problem& problem_;
  Method& method_;
  SolverOptions options_;
  std::vector<Callback*> callbacks_;
  std::vector<std::unique_ptr<Callback>> owned_;
  std::vector<std::unique_ptr<Callback>> rules_;  // the options' stopping rules, after callbacks_
  Vec start_;
};

/// The generalized Frank-Wolfe gap of eq. (2) at y: phi(y) - min_x F(f(y) + J(y)(x - y), x),
/// with the exact f and J. Returns {gap, phi(y)}. Buffers are the caller's (no allocation).
struct GapValue {
  double gap = 0;
  double objective = 0;
  double slack = 0;  ///< value - lower_bound of the GLMO solve (0 when exact): gap - slack <= exact gap <= gap
  double glmo_value = 0;  ///< the GLMO's value, F(f + J (x - y), x) as it reports it
  /// The outer function's value at the returned x, F(f + J (x - y), x) computed by the host
  /// (with a GapCheck only; else NaN).
  double value_at_x = std::numeric_limits<double>::quiet_NaN();
  double scale = 0;  ///< max(1, |value_at_x|, |glmo_value|, max_i |u_i|): what their disagreement is relative to
};
/// Buffers for the host's check of the GLMO's value at a gap report: u (n) and x - y (d).
struct GapCheck {
  Vec u, step;
};
GapValue generalized_gap(const Oracle& oracle, const OuterFunction& outer, Glmo& glmo, const Vec& y,
                         Vec& f, Jacobian& J, Vec& x, Jacobian* dense_buffer = nullptr, GapCheck* check = nullptr);

/// How far the GLMO's value at a gap report may lie from the outer function's value at the point
/// it returned: its certified slack plus this times GapValue::scale. Far above the LP engine's
/// tolerances (1e-9 relative, plugins/lp/settings.hpp) and the rounding of F (a few n eps), far
/// below a model that is not the function (a constant or a coefficient off).
inline constexpr double kGlmoValueTolerance = 1e-6;

/// Throws scfw::Error "<glmo>: the GLMO's value V at the point it returned disagrees with the
/// outer function <outer>'s value F there (difference D, allowed A): <advice>" when `g` (computed
/// with a GapCheck) says they disagree beyond kGlmoValueTolerance.
void check_glmo_value(const GapValue& g, const std::string& glmo, const std::string& outer);

}  // namespace scfw
