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
#include <memory>
#include <string>
#include <vector>

#include "scfw/core/options.hpp"
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

enum class Status {
  IterationLimit,  ///< all K iterations done
  GapTolerance,    ///< a reported gap reached the tolerance (success)
  TimeLimit,       ///< the time limit was reached (success)
  Stopped,         ///< a callback's own rule stopped the run (success)
  Interrupted,     ///< stopped from outside (Ctrl-C)
  Failed,          ///< a callback aborted the run, or a plugin failed (then Solver::run throws)
};
const char* to_string(Status s);
/// True for every status but Failed.
inline bool succeeded(Status s) { return s != Status::Failed; }

/// What a callback tells the loop after an iteration.
enum class CallbackResult {
  Continue,  ///< go on
  Stop,      ///< end the run now, successfully: status Callback::stop_status(), reason Callback::reason()
  Abort,     ///< end the run now as a failure: status Failed, reason Callback::reason()
};

/// What the loop tells callbacks before the first iteration.
struct RunInfo {
  long iterations = 0;       ///< K
  std::uint64_t seed = 0;
  long report_every = 0;
  int dim = 0, outputs = 0;  ///< d and n
  bool can_report = false;   ///< the oracle has an exact evaluation, so gaps are reported
};

struct Summary;
struct RunState;   // checkpoint.hpp
class StateHook;   // checkpoint.hpp

/// The protocol of everything that watches or steers a run: the progress line, the trace writer
/// and the stopping rules (report.hpp) are callbacks like any other. on_begin is called once
/// before the first iteration, on_iteration after each, on_end once with the summary — also
/// when a plugin failed (status Failed, before Solver::run rethrows). Every callback sees every
/// completed iteration, in the order they were added; if several ask to end the run at the same
/// iteration, an Abort wins over a Stop and the first of each decides the status and reason.
class Callback {
 public:
  virtual ~Callback() = default;
  virtual void on_begin(const RunInfo&) {}
  virtual CallbackResult on_iteration(const IterationState& state) = 0;
  virtual void on_end(const Summary&) {}
  /// The success status of a Stop (e.g. GapTolerance for the gap rule).
  virtual Status stop_status() const { return Status::Stopped; }
  /// Why the callback returned Stop or Abort, for the summary ("gap 8.2e-07 <= tolerance 1e-06").
  virtual std::string reason() const { return {}; }
};

/// A plain function as a callback: false stops the run with status Interrupted.
class FunctionCallback final : public Callback {
 public:
  explicit FunctionCallback(std::function<bool(const IterationState&)> f) : f_(std::move(f)) {}
  CallbackResult on_iteration(const IterationState& s) override {
    return f_(s) ? CallbackResult::Continue : CallbackResult::Stop;
  }
  Status stop_status() const override { return Status::Interrupted; }

 private:
  std::function<bool(const IterationState&)> f_;
};

struct Summary {
  Status status = Status::IterationLimit;
  std::string reason;   ///< what ended the run early ("" after all K iterations)
  std::string message;  ///< "<status> (<reason>) after k of K iterations"
  long iterations = 0;
  double final_objective = 0, final_gap = 0, best_gap = 0;
  bool has_gap = false;
  long gap_iteration = 0;  ///< the iteration final_gap was computed at (== iterations: at y_K)
  /// Largest (value - lower_bound) of the gap reports' GLMO solves: 0 for an exact GLMO; else
  /// each reported gap is an upper bound, at most this much above the exact one.
  double gap_slack = 0;
  PhaseTimes times;
  double seconds = 0;
  CallCounters calls;            ///< calls made during this run
  long glmo_iterations = 0;      ///< simplex iterations of the algorithm's GLMO, summed
  long glmo_max_iterations = 0;  ///< the largest of one solve
  std::string glmo_solver;       ///< Glmo::describe()
  std::string schedule;          ///< Schedule::describe(K): the step sizes of this run
  std::vector<std::string> notes;  ///< Problem::notes and Method::notes: choices the host made
  Vec y;                         ///< y_K

  std::string brief() const;  ///< one line
  std::string full() const;   ///< the multi-line report printed by `scfw run`
};

/// Runs a Method on a Problem with some options. The stopping rules of the options (gap
/// tolerance, time limit) are added as callbacks after the caller's.
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

  /// Checkpoints (checkpoint.hpp): continue from a saved state instead of y_0 (must outlive run()),
  /// and hand the state to `hook` whenever it says one is due.
  void resume_from(const RunState& state) { resume_ = &state; }
  void set_state_hook(StateHook& hook) { hook_ = &hook; }

 private:
  const RunState* resume_ = nullptr;
  StateHook* hook_ = nullptr;
  Problem& problem_;
  Method& method_;
  SolverOptions options_;
  std::vector<Callback*> callbacks_;
  std::vector<std::unique_ptr<Callback>> owned_;
  Vec start_;
};

/// The generalized Frank-Wolfe gap of eq. (2) at y: phi(y) - min_x F(f(y) + J(y)(x - y), x),
/// with the exact f and J. Returns {gap, phi(y)}. Buffers are the caller's (no allocation).
struct GapValue {
  double gap = 0;
  double objective = 0;
  double slack = 0;  ///< value - lower_bound of the GLMO solve (0 when exact): gap - slack <= exact gap <= gap
};
GapValue generalized_gap(const Oracle& oracle, const OuterFunction& outer, Glmo& glmo, const Vec& y,
                         Vec& f, Jacobian& J, Vec& x, Jacobian* dense_buffer = nullptr);

}  // namespace scfw
