#include "scfw/core/solver.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <sstream>

#include "scfw/core/checkpoint.hpp"
#include "scfw/core/report.hpp"
#include "scfw/error.hpp"

namespace scfw {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Prefixes the iteration to a failure raised inside the loop, keeping its category: bad input
// stays bad input (exit 2), a solver failure stays a failure (exit 1).
[[noreturn]] void rethrow_at(long iteration, const char* phase) {
  const std::string where = "iteration " + std::to_string(iteration) + " (" + phase + "): ";
  try {
    throw;
  } catch (const InputError& e) {
    throw InputError(where + e.what());
  } catch (const Error& e) {
    throw Error(where + e.what());
  } catch (const std::exception& e) {
    throw Error(where + e.what());
  }
}

CallCounters calls_since(const CallCounters& now, const CallCounters& start) {
  CallCounters c;
  c.draws = now.draws - start.draws;
  c.values = now.values - start.values;
  c.jacobians = now.jacobians - start.jacobians;
  c.exact = now.exact - start.exact;
  c.hessian = now.hessian - start.hessian;
  c.glmo_solves = now.glmo_solves - start.glmo_solves;
  c.outer_values = now.outer_values - start.outer_values;
  c.oracle_seconds = now.oracle_seconds - start.oracle_seconds;
  return c;
}

// Checkpoints (checkpoint.hpp): the loop's state after `done` iterations, and back.
RunState snapshot(long done, const Rng& rng, const Vec& y, const Vec& y_prev, const Vec& z, const Jacobian& V,
                  const Summary& s, const IterationState& state, const CallCounters& calls) {
  RunState r;
  r.done = done;
  r.y = y;
  r.y_prev = y_prev;
  r.z = z;
  r.V = V;
  r.rng = rng;
  r.best_gap = state.best_gap;
  r.has_gap = s.has_gap;
  r.final_gap = s.final_gap;
  r.final_objective = s.final_objective;
  r.gap_slack = s.gap_slack;
  r.glmo_iterations = s.glmo_iterations;
  r.glmo_max_iterations = s.glmo_max_iterations;
  r.times = s.times;
  r.calls = calls;
  r.seconds = state.seconds;
  r.glmo_solver = s.glmo_solver;
  return r;
}

void resume_state(const RunState& r, int d, int n, Rng& rng, Vec& y, Vec& y_prev, Vec& z, Jacobian& V, Summary& s,
                  IterationState& state, CallCounters& calls_at_start, long& first, double& seconds_before) {
  if (r.y.size() != d || r.y_prev.size() != d || r.z.size() != n || r.V.rows() != n || r.V.cols() != d)
    throw InputError("the saved state has other dimensions than the problem (d = " + std::to_string(d) +
                     ", n = " + std::to_string(n) + ")");
  if (!r.V.same_structure(V))
    throw InputError(std::string("the saved V is ") + (r.V.is_sparse() ? "sparse" : "dense") +
                     (r.V.is_sparse() && V.is_sparse() ? " in another pattern than" : " but") +
                     " the oracle's Jacobian" + (r.V.is_sparse() && V.is_sparse() ? "" : V.is_sparse() ? " is sparse" : " is dense"));
  if (r.done < 1 || r.done > state.iterations)
    throw InputError("the saved state is at iteration " + std::to_string(r.done) + ", outside 1.." +
                     std::to_string(state.iterations));
  first = r.done;
  rng = r.rng;
  y = r.y;
  y_prev = r.y_prev;
  z = r.z;
  V.values() = r.V.values();  // V keeps the oracle's pattern object
  state.best_gap = r.best_gap;
  s.best_gap = r.best_gap;
  s.has_gap = r.has_gap;
  s.final_gap = r.final_gap;
  s.final_objective = r.final_objective;
  s.gap_slack = r.gap_slack;
  s.glmo_iterations = r.glmo_iterations;
  s.glmo_max_iterations = r.glmo_max_iterations;
  state.times = r.times;
  // This run's calls are counted from the start of the interrupted one.
  calls_at_start = calls_since(calls_at_start, r.calls);
  seconds_before = r.seconds;
  s.glmo_solver = r.glmo_solver;
}

}  // namespace

const char* to_string(Status s) {
  switch (s) {
    case Status::IterationLimit: return "iteration limit";
    case Status::GapTolerance: return "gap tolerance reached";
    case Status::TimeLimit: return "time limit";
    case Status::Stopped: return "stopped";
    case Status::Interrupted: return "interrupted";
    case Status::Failed: return "failed";
  }
  return "?";
}

GapValue generalized_gap(const Oracle& oracle, const OuterFunction& outer, Glmo& glmo, const Vec& y,
                         Vec& f, Jacobian& J, Vec& x, Jacobian* dense_buffer) {
  // eq. (2): Delta(y) = phi(y) - min_{x in X} F(f(y) + grad f(y) (x - y), x), exact f and J.
  oracle.exact(y, &f, &J);
  GapValue g;
  g.objective = outer.value(f, y);
  // A sparse J for a GLMO that takes only a dense one: densified into the caller's buffer.
  const Jacobian* Jg = &J;
  Jacobian local;
  if (J.is_sparse() && !glmo.capabilities().has(Capability::SparseV)) {
    Jacobian& buf = dense_buffer ? *dense_buffer : local;
    J.to_dense(buf.dense());
    Jg = &buf;
  }
  const GlmoResult r = glmo.solve(f, *Jg, y, x);
  // With an inexact GLMO (column generation to a tolerance), the certified lower bound of the
  // minimum: the gap reported is then an upper bound on the true gap, never an underestimate.
  const double bound = std::isnan(r.lower_bound) ? r.value : std::min(r.value, r.lower_bound);
  g.gap = g.objective - bound;
  g.slack = r.value - bound;
  return g;
}

Solver::Solver(Problem& problem, Method& method, SolverOptions options)
    : problem_(problem), method_(method), options_(std::move(options)) {
  std::string why;
  if (!options_.IsValid(&why)) throw InputError(why);
  // A gap tolerance without gap reports before the last iteration could never stop the run (the
  // composer says the same with the file's pointer).
  if (options_.gap_tolerance > 0 && problem_.oracle && !problem_.oracle->capabilities().has(Capability::Exact))
    throw InputError("gap tolerance: the oracle has no exact evaluation, so no gap is ever computed");
  if (options_.gap_tolerance > 0 && (options_.report_every == 0 || options_.report_every >= options_.iterations))
    throw InputError("gap tolerance: needs gap reports during the run (report every N < " +
                     std::to_string(options_.iterations) + " iterations), but report every is " +
                     std::to_string(options_.report_every));
}

Summary Solver::run() {
  Problem& P = problem_;
  Oracle& oracle = *P.oracle;
  OuterFunction& outer = *P.outer;
  Domain& domain = *P.domain;
  Glmo& glmo = *method_.glmo;
  Glmo& gap_glmo = method_.gap_glmo ? *method_.gap_glmo : *method_.glmo;
  Tracker& tracker = *method_.tracker;
  Schedule& schedule = *method_.schedule;

  const int d = oracle.dim();
  const int n = oracle.outputs();
  const long K = options_.iterations;
  const bool can_report = oracle.capabilities().has(Capability::Exact);

  // The stopping rules of the options are callbacks like the caller's, after them.
  GapToleranceRule gap_rule(options_.gap_tolerance);
  TimeLimitRule time_rule(options_.time_limit);
  std::vector<Callback*> callbacks = callbacks_;
  if (options_.gap_tolerance > 0) callbacks.push_back(&gap_rule);
  if (options_.time_limit > 0) callbacks.push_back(&time_rule);

  // Every buffer of the loop is sized here; the loop itself allocates nothing.
  Rng rng(options_.seed);
  Vec y = start_.size() > 0 ? start_ : domain.initial_point();
  if (y.size() != d) throw Error("domain initial point has size " + std::to_string(y.size()) +
                                 " but the problem has dimension " + std::to_string(d));
  Vec y_prev = y;
  Vec x = Vec::Zero(d);
  Vec z = Vec::Zero(n);
  Jacobian V = make_jacobian(oracle);  // dense n x d, or sparse in the oracle's pattern
  Vec gap_f = Vec::Zero(n);
  Jacobian gap_J = V;
  // A GLMO that takes only a dense V gets one, copied into this one buffer before each solve
  // (the composer charged it to the memory account and noted it).
  const bool densify = V.is_sparse() && (!glmo.capabilities().has(Capability::SparseV) || (can_report && !gap_glmo.capabilities().has(Capability::SparseV)));
  Jacobian V_dense = densify ? Jacobian(n, d) : Jacobian();
  Vec gap_x = Vec::Zero(d);

  Summary s;
  s.glmo_solver = glmo.describe();
  s.schedule = schedule.describe(K);
  s.notes = P.notes;
  s.notes.insert(s.notes.end(), method_.notes.begin(), method_.notes.end());
  s.best_gap = std::numeric_limits<double>::infinity();
  IterationState state;
  state.iterations = K;
  state.best_gap = s.best_gap;
  PhaseTimes& times = state.times;
  // The counters may be shared by earlier runs on the same problem: this run's calls are the
  // difference.
  CallCounters calls_at_start = P.counters ? *P.counters : CallCounters{};
  long first = 0;            // the first iteration of this call (> 0 when resumed)
  double seconds_before = 0;  // run time before a resume
  if (resume_) resume_state(*resume_, d, n, rng, y, y_prev, z, V, s, state, calls_at_start, first, seconds_before);

  RunInfo info;
  info.iterations = K;
  info.seed = options_.seed;
  info.report_every = options_.report_every;
  info.dim = d;
  info.outputs = n;
  info.can_report = can_report;
  for (Callback* cb : callbacks) cb->on_begin(info);

  const auto t_start = Clock::now() - std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(seconds_before));
  long done = first;
  s.status = Status::IterationLimit;

  auto finish = [&] {
    s.iterations = done;
    s.times = times;
    s.seconds = seconds_since(t_start);
    if (P.counters) s.calls = calls_since(*P.counters, calls_at_start);
    s.y = y;
    std::ostringstream msg;
    msg << to_string(s.status);
    if (!s.reason.empty()) msg << " (" << s.reason << ")";
    msg << " after " << done << " of " << K << " iterations";
    if (!can_report) msg << " (the oracle has no exact evaluation, so no gap was computed)";
    s.message = msg.str();
  };
  // A plugin failed: the summary says so to every callback, then the error goes on up with the
  // iteration and phase in front.
  auto fail = [&](long iteration, const char* phase) {
    std::exception_ptr error;
    try {
      rethrow_at(iteration, phase);
    } catch (...) {
      error = std::current_exception();
    }
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      s.reason = e.what();
    }
    s.status = Status::Failed;
    finish();
    for (Callback* cb : callbacks) cb->on_end(s);
    std::rethrow_exception(error);
  };

  for (long k = first; k < K; ++k) {
    Steps steps;
    try {
      steps = schedule.at(k, K);
    } catch (...) {
      fail(k + 1, "schedule");
    }

    // Alg. 1 line 2 at k = 0, lines 4-6 afterwards.
    auto t0 = Clock::now();
    const double oracle_before = P.counters ? P.counters->oracle_seconds : 0.0;
    try {
      if (k == 0)
        tracker.start(y, rng, z, V);
      else
        tracker.update(k, y, y_prev, steps, rng, z, V);
    } catch (...) {
      fail(k + 1, "tracker");
    }
    const double tracker_total = seconds_since(t0);
    const double in_oracle = P.counters ? P.counters->oracle_seconds - oracle_before : 0.0;
    times.oracle += in_oracle;
    times.tracker += tracker_total - in_oracle;

    // Alg. 1 line 7: the GLMO on the tracked affine model.
    t0 = Clock::now();
    GlmoResult r;
    try {
      if (V.is_sparse() && !glmo.capabilities().has(Capability::SparseV)) {
        V.to_dense(V_dense.dense());
        r = glmo.solve(z, V_dense, y, x);
      } else {
        r = glmo.solve(z, V, y, x);
      }
    } catch (...) {
      fail(k + 1, "GLMO");
    }
    times.glmo += seconds_since(t0);
    s.glmo_iterations += r.iterations;
    if (r.iterations > s.glmo_max_iterations) s.glmo_max_iterations = r.iterations;

    // Alg. 1 line 8: y_{k+1} = (1 - gamma_k) y_k + gamma_k x_{k+1}.
    t0 = Clock::now();
    y.swap(y_prev);
    y.noalias() = (1.0 - steps.gamma) * y_prev + steps.gamma * x;
    times.update += seconds_since(t0);
    done = k + 1;

    state.iteration = done;
    state.steps = steps;
    state.glmo_value = r.value;
    state.glmo_iterations = r.iterations;
    state.y = &y;
    state.has_gap = false;
    const bool report_now =
        can_report && ((options_.report_every > 0 && done % options_.report_every == 0) ||
                       (done == K && options_.final_report));
    if (report_now) {
      // The gap uses the exact oracle and its own GLMO instance: the algorithm's random engine
      // and warm start are untouched, so reports on or off give the same iterates.
      t0 = Clock::now();
      GapValue g;
      try {
        g = generalized_gap(oracle, outer, gap_glmo, y, gap_f, gap_J, gap_x, &V_dense);
      } catch (...) {
        fail(done, "gap report");
      }
      times.gap += seconds_since(t0);
      state.has_gap = true;
      state.gap = g.gap;
      state.objective = g.objective;
      if (g.gap < state.best_gap) state.best_gap = g.gap;
      s.has_gap = true;
      s.final_gap = g.gap;
      s.final_objective = g.objective;
      s.gap_iteration = done;
      s.best_gap = state.best_gap;
      s.gap_slack = std::max(s.gap_slack, g.slack);
    }
    state.seconds = seconds_since(t_start);

    // Every callback sees the iteration; the first Abort, else the first Stop, ends the run.
    Callback* stopper = nullptr;
    Callback* aborter = nullptr;
    for (Callback* cb : callbacks) {
      const CallbackResult res = cb->on_iteration(state);
      if (res == CallbackResult::Abort && !aborter) aborter = cb;
      if (res == CallbackResult::Stop && !stopper) stopper = cb;
    }
    // A checkpoint after the callbacks (the trace has its row), unless the run failed.
    if (hook_ && !aborter && hook_->due(done, state.seconds, stopper != nullptr)) {
      s.times = times;
      try {
        hook_->save(snapshot(done, rng, y, y_prev, z, V, s, state,
                             P.counters ? calls_since(*P.counters, calls_at_start) : CallCounters{}));
      } catch (...) {
        fail(done, "checkpoint");
      }
    }
    if (aborter) {
      s.status = Status::Failed;
      s.reason = aborter->reason();
      break;
    }
    if (stopper) {
      s.status = stopper->stop_status();
      s.reason = stopper->reason();
      break;
    }
  }

  // A run stopped early still reports the gap at its last iterate.
  if (done < K && can_report && options_.final_report && !state.has_gap) {
    const auto t0 = Clock::now();
    GapValue g;
    try {
      g = generalized_gap(oracle, outer, gap_glmo, y, gap_f, gap_J, gap_x, &V_dense);
    } catch (...) {
      fail(done, "gap report");
    }
    times.gap += seconds_since(t0);
    s.has_gap = true;
    s.final_gap = g.gap;
    s.final_objective = g.objective;
    s.gap_iteration = done;
    if (g.gap < s.best_gap) s.best_gap = g.gap;
    s.gap_slack = std::max(s.gap_slack, g.slack);
  }

  finish();
  for (Callback* cb : callbacks) cb->on_end(s);
  return s;
}

std::string Summary::brief() const {
  std::ostringstream os;
  os << to_string(status) << ": " << iterations << " iterations";
  if (has_gap) os << ", objective " << fmt("%.6g", final_objective) << ", gap " << fmt("%.3e", final_gap)
                  << ", best gap " << fmt("%.3e", best_gap);
  os << ", " << fmt("%.3f", seconds) << " s";
  return os.str();
}

std::string Summary::full() const {
  std::ostringstream os;
  const double it = iterations > 0 ? static_cast<double>(iterations) : 1.0;
  auto phase = [&](const char* name, double sec, bool per_iteration = true) {
    os << "    " << name << fmt("%10.4f s", sec);
    if (per_iteration) os << fmt("  %9.2f us/iteration", 1e6 * sec / it);
    os << "\n";
  };
  os << "status          " << message << "\n";
  if (has_gap) {
    os << "objective       phi(y_K) = " << fmt("%.10g", final_objective) << "\n";
    os << "gap             final " << fmt("%.6e", final_gap) << ", best " << fmt("%.6e", best_gap)
       << "  (generalized Frank-Wolfe gap, eq. 2, exact f and Jacobian)\n";
    if (gap_slack > 0)
      os << "                upper bounds: the GLMO stops at a certified tolerance, each gap at most "
         << fmt("%.3e", gap_slack) << " above the exact one\n";
  }
  os << "iterations      " << iterations << " in " << fmt("%.3f", seconds) << " s ("
     << fmt("%.0f", seconds > 0 ? iterations / seconds : 0.0) << " it/s)\n";
  os << "time per phase\n";
  phase("oracle ", times.oracle);
  phase("tracker", times.tracker);
  phase("GLMO   ", times.glmo);
  phase("update ", times.update);
  phase("gap    ", times.gap, false);
  if (!schedule.empty()) os << "schedule        " << schedule << "\n";
  os << "GLMO            " << glmo_solver << "\n";
  os << "                " << fmt("%.2f", glmo_iterations / it) << " simplex iterations per solve (max "
     << glmo_max_iterations << ")\n";
  for (const auto& note : notes) os << "note            " << note << "\n";
  os << "oracle calls    " << calls.draws << " draws, " << calls.values << " values, " << calls.jacobians
     << " Jacobians, " << calls.exact << " exact, " << calls.hessian << " Hessian actions\n";
  return os.str();
}

}  // namespace scfw
