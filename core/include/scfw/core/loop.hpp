// scfw core: what the loop of Algorithm 1 carries and hands out (solver.hpp runs it).
//
//   LoopState       what one iteration leaves for the next: k, y_k, y_{k-1}, z, V, the random
//                   engine and the running summary; a checkpoint serialises it (checkpoint.hpp)
//   IterationState  what every callback sees after an iteration
//   Callback        the protocol of everything that watches or steers a run: the trace, the
//                   progress line (report.hpp), the stopping rules (stopping.hpp)
//   StateHook       takes the LoopState when it says one is due (the checkpointer)
//   Summary         the end of a run
//
// This header names no other part of the host: reports, stopping rules and checkpoints build on
// it, and the solver on them.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "scfw/core/checked.hpp"
#include "scfw/core/factors.hpp"
#include "scfw/roles.hpp"

namespace scfw {

struct PhaseTimes {
  double oracle = 0;   ///< seconds in Oracle calls made by the tracker (draw + evaluate)
  double tracker = 0;  ///< seconds in the tracker's own arithmetic (update minus oracle time)
  double glmo = 0;     ///< seconds in the algorithm's GLMO
  double update = 0;   ///< seconds in the y update
  double gap = 0;      ///< seconds in exact gap reports (exact f, J, GLMO, F)
  double total() const { return oracle + tracker + glmo + update + gap; }
};

/// What the loop tallies as it goes: the running part of the Summary, which the loop state
/// carries (and so a checkpoint) and the Summary hands out at the end.
struct RunTally {
  double best_gap = 0;  ///< smallest gap reported (the loop starts it at infinity)
  bool has_gap = false;
  double final_gap = 0, final_objective = 0;
  /// Largest (value - lower_bound) of the gap reports' GLMO solves: 0 for an exact GLMO; else
  /// each reported gap is an upper bound, at most this much above the exact one.
  double gap_slack = 0;
  PhaseTimes times;
  long glmo_iterations = 0;      ///< simplex iterations of the algorithm's GLMO, summed
  long glmo_max_iterations = 0;  ///< the largest of one solve
  std::string glmo_solver;       ///< Glmo::describe(), taken when the run began
};

/// What the loop carries from one iteration to the next, and all that a resumed run needs to
/// continue bitwise as the uninterrupted one (with the plugins' own saved state, roles.hpp).
struct LoopState : RunTally {
  LoopState() { best_gap = std::numeric_limits<double>::infinity(); }
  long done = 0;      ///< iterations done: y is y_done
  Vec y, y_prev, z;   ///< y_k, y_{k-1}, z_{k-1} (the tracker updates it at the next iteration)
  Jacobian V;         ///< V_{k-1}, dense or sparse as the oracle's Jacobian
  Factors factors;    ///< y_k as factors, for an oracle that sees some matrix entries (factors.hpp)
  Rng rng;            ///< the run's engine, as it stands
  CallCounters calls; ///< calls made by the run so far
  double seconds = 0; ///< wall time of the run so far
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

/// The protocol of everything that watches or steers a run: the progress line, the trace writer
/// and the stopping rules are callbacks like any other. on_begin is called once before the first
/// iteration, on_iteration after each, on_end once with the summary — also when a plugin failed
/// (status Failed, before Solver::run rethrows). Every callback sees every completed iteration,
/// in the order they were added; if several ask to end the run at the same iteration, an Abort
/// wins over a Stop and the first of each decides the status and reason.
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

/// Decides when the loop hands over its state, and takes it (Solver::set_state_hook): the
/// checkpointer (checkpoint.hpp) is one.
class StateHook {
 public:
  virtual ~StateHook() = default;
  /// Called after every iteration once the callbacks have seen it (cheap). `stopping`: a callback
  /// is ending the run successfully after this iteration (Ctrl-C, a time limit).
  virtual bool due(long done, double seconds, bool stopping) = 0;
  virtual void save(const LoopState& state) = 0;
};

/// The end of a run: the loop's tally (best and final gap, phase times, GLMO iterations) and
/// what the run itself says.
struct Summary : RunTally {
  Status status = Status::IterationLimit;
  std::string reason;   ///< what ended the run early ("" after all K iterations)
  std::string message;  ///< "<status> (<reason>) after k of K iterations"
  long iterations = 0;
  long gap_iteration = 0;  ///< the iteration final_gap was computed at (== iterations: at y_K)
  double seconds = 0;
  CallCounters calls;            ///< calls made during this run
  std::string schedule;          ///< Schedule::describe(K): the step sizes of this run
  std::vector<std::string> notes;  ///< Problem::notes and Method::notes: choices the host made
  Vec y;                         ///< y_K
  Factors factors;               ///< y_K as factors, when the run kept them (factors.hpp)

  std::string brief() const;  ///< one line
  std::string full() const;   ///< the multi-line report printed by `scfw run`
};

}  // namespace scfw
