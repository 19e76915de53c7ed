#include "scfw/core/solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "scfw/core/format.hpp"
#include "scfw/core/stopping.hpp"
#include "scfw/error.hpp"

namespace scfw {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
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

/// The plugin of `role` in `names` ("the GLMO" / "the outer function" when not named).
std::string plugin_name(const PluginNames& names, const std::string& role) {
  for (const auto& [r, n] : names)
    if (r == role) return n;
  return role == "glmo" ? "the GLMO" : "the outer function";
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

/// One call of Solver::run: the plugins, the loop's state and every buffer (all sized here: the
/// iterations allocate nothing), the callbacks, the checkpoint hook and the summary. Solver::run
/// holds the steps of Algorithm 1; this holds what surrounds them.
class Run {
 public:
  Run(Problem& P, Method& M, const SolverOptions& o, std::vector<Callback*> callbacks, StateHook* hook,
      const Vec& start, const LoopState* resume)
      : P_(P), oracle_(*P.oracle), outer_(*P.outer), glmo_(*M.glmo),
        gap_glmo_(M.gap_glmo ? *M.gap_glmo : *M.glmo), options_(o), callbacks_(std::move(callbacks)),
        hook_(hook), d_(oracle_.dim()), n_(oracle_.outputs()), K_(o.iterations), can_report_(oracle_.capabilities().has(Capability::Exact)) {
    state.rng = Rng(o.seed);
    state.y = start.size() > 0 ? start : P.domain->initial_point();
    if (state.y.size() != d_)
      throw Error("domain initial point has size " + std::to_string(state.y.size()) +
                  " but the problem has dimension " + std::to_string(d_));
    state.y_prev = state.y;
    // y as factors: the oracle sees some entries of a matrix, and y_0 = 0 (a warm start or another
    // initial point has no factors). The GLMO's first answer says whether it reports combinations.
    if (const auto entries = o.factors ? oracle_.matrix_entries() : nullptr) {
      if (state.y.isZero(0.0))
        state.factors = Factors(entries->rows, entries->cols);
      else
        summary_.notes.push_back("y is not kept as factors: y_0 is not 0, and only the entries are known");
    }
    x = Vec::Zero(d_);
    state.z = Vec::Zero(n_);
    state.V = make_jacobian(oracle_);  // dense n x d, or sparse in the oracle's pattern
    gap_f_ = Vec::Zero(n_);
    gap_J_ = state.V;
    // A GLMO that takes only a dense V gets one, copied into this one buffer before each solve
    // (the composer charged it to the memory account and noted it).
    const bool densify = state.V.is_sparse() && (!glmo_.capabilities().has(Capability::SparseV) ||
                                                 (can_report_ && !gap_glmo_.capabilities().has(Capability::SparseV)));
    V_dense_ = densify ? Jacobian(n_, d_) : Jacobian();
    gap_x_ = Vec::Zero(d_);
    gap_check_.u = Vec::Zero(n_);
    gap_check_.step = Vec::Zero(d_);
    glmo_name_ = plugin_name(M.plugins, "glmo");
    outer_name_ = plugin_name(P.plugins, "outer");

    state.glmo_solver = glmo_.describe();
    summary_.schedule = M.schedule->describe(K_);
    summary_.notes = P.notes;
    summary_.notes.insert(summary_.notes.end(), M.notes.begin(), M.notes.end());
    view_.iterations = K_;
    // The counters may be shared by earlier runs on the same problem: this run's calls are the
    // difference.
    calls_at_start_ = P.counters ? *P.counters : CallCounters{};
    double seconds_before = 0;  // run time before a resume
    if (resume) {
      resume_from(*resume);
      seconds_before = resume->seconds;
    }
    view_.best_gap = state.best_gap;

    RunInfo info;
    info.iterations = K_;
    info.seed = o.seed;
    info.report_every = o.report_every;
    info.dim = d_;
    info.outputs = n_;
    info.can_report = can_report_;
    for (Callback* cb : callbacks_) cb->on_begin(info);
    t_start_ = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds_before));
  }

  LoopState state;  // y_k, y_{k-1}, z, V, the engine and the running summary
  Vec x;            // x_{k+1}, the GLMO's answer

  /// f() as the loop's `phase` of `iteration`; a failure ends the run (fail()).
  template <class F>
  decltype(auto) guarded(long iteration, const char* phase, F&& f) {
    try {
      return f();
    } catch (...) {
      fail(iteration, phase);
    }
  }

  /// The tracker's step f(), its time split between the oracle calls and its own arithmetic.
  template <class F>
  void track(long iteration, F&& f) {
    const auto t0 = Clock::now();
    const double oracle_before = P_.counters ? P_.counters->oracle_seconds : 0.0;
    guarded(iteration, "tracker", f);
    const double total = seconds_since(t0);
    const double in_oracle = P_.counters ? P_.counters->oracle_seconds - oracle_before : 0.0;
    state.times.oracle += in_oracle;
    state.times.tracker += total - in_oracle;
  }

  /// x = GLMO(z, V, y), V densified first for a GLMO that takes no sparse one. The GLMO learns
  /// the step gamma first (Glmo::set_step), unless the gap reports share it: their solves are
  /// held to its own tolerance.
  GlmoResult glmo(long iteration, double gamma) {
    const auto t0 = Clock::now();
    const GlmoResult r = guarded(iteration, "GLMO", [&] {
      if (&glmo_ != &gap_glmo_) glmo_.set_step(gamma);
      if (!state.V.is_sparse() || glmo_.capabilities().has(Capability::SparseV)) return glmo_.solve(state.z, state.V, state.y, x);
      state.V.to_dense(V_dense_.dense());
      return glmo_.solve(state.z, V_dense_, state.y, x);
    });
    state.times.glmo += seconds_since(t0);
    state.glmo_iterations += r.iterations;
    if (r.iterations > state.glmo_max_iterations) state.glmo_max_iterations = r.iterations;
    return r;
  }

  /// y = (1 - gamma) y + gamma x, the old y kept as y_prev; the factors follow x's combination.
  void step(long iteration, double gamma, const GlmoResult& r) {
    const auto t0 = Clock::now();
    state.y.swap(state.y_prev);
    state.y.noalias() = (1.0 - gamma) * state.y_prev + gamma * x;
    if (state.factors.active()) {
      const char* why = !r.combination ? " reports no combination of atoms"
                        : !guarded(iteration, "factors", [&] { return state.factors.step(gamma, *r.combination); })
                            ? " combines atoms that are not rank-one (a dense Jacobian makes dense atoms)"
                            : nullptr;
      if (why) {
        state.factors = Factors();
        summary_.notes.push_back(glmo_name_ + why + ": y is kept at the oracle's entries only");
      }
    }
    state.times.update += seconds_since(t0);
  }

  /// A gap report is due after this iteration (every report_every, and after the last).
  bool report_due() const {
    return can_report_ && ((options_.report_every > 0 && state.done % options_.report_every == 0) ||
                           (state.done == K_ && options_.final_report));
  }
  /// A run stopped early still reports the gap at its last iterate.
  bool report_at_stop() const {
    return state.done < K_ && can_report_ && options_.final_report && summary_.gap_iteration != state.done;
  }

  /// The exact gap of eq. (2) at y, with its own GLMO instance: the algorithm's random engine and
  /// warm start are untouched, so reports on or off give the same iterates.
  void report_gap() {
    const auto t0 = Clock::now();
    const GapValue g = guarded(state.done, "gap report", [&] {
      return generalized_gap(oracle_, outer_, gap_glmo_, state.y, gap_f_, gap_J_, gap_x_, &V_dense_, &gap_check_);
    });
    guarded(state.done, "gap report", [&] {
      check_glmo_value(g, glmo_name_, outer_name_);
      return 0;
    });
    state.times.gap += seconds_since(t0);
    if (g.gap < state.best_gap) state.best_gap = g.gap;
    state.has_gap = true;
    state.final_gap = g.gap;
    state.final_objective = g.objective;
    state.gap_slack = std::max(state.gap_slack, g.slack);
    summary_.gap_iteration = state.done;
  }

  /// Hands the iteration to every callback, then the state to the hook when due. True when a
  /// callback ends the run: the first Abort, else the first Stop.
  bool end_of_iteration(const Steps& steps, const GlmoResult& r) {
    view_.iteration = state.done;
    view_.steps = steps;
    view_.glmo_value = r.value;
    view_.glmo_iterations = r.iterations;
    view_.y = &state.y;
    view_.has_gap = summary_.gap_iteration == state.done;
    if (view_.has_gap) {
      view_.gap = state.final_gap;
      view_.objective = state.final_objective;
    }
    view_.best_gap = state.best_gap;
    view_.times = state.times;
    state.seconds = seconds_since(t_start_);
    view_.seconds = state.seconds;
    Callback* stopper = nullptr;
    Callback* aborter = nullptr;
    for (Callback* cb : callbacks_) {
      const CallbackResult res = cb->on_iteration(view_);
      if (res == CallbackResult::Abort && !aborter) aborter = cb;
      if (res == CallbackResult::Stop && !stopper) stopper = cb;
    }
    // A checkpoint after the callbacks (the trace has its row), unless the run failed.
    if (hook_ && !aborter && hook_->due(state.done, state.seconds, stopper != nullptr)) {
      state.calls = calls();
      guarded(state.done, "checkpoint", [&] { hook_->save(state); });
    }
    Callback* ender = aborter ? aborter : stopper;
    if (!ender) return false;
    summary_.status = aborter ? Status::Failed : stopper->stop_status();
    summary_.reason = ender->reason();
    return true;
  }

  /// A stopping rule (time limit, gap tolerance) that ends the run before half of K leaves the
  /// iterate after steps sized for K when the schedule's steps depend on K: the summary warns and
  /// names the schedule that does not (docs/formulations.md, "Anytime steps"). Whether they
  /// depend on K is asked of the schedule itself, at the last step taken, for K and for the
  /// iterations run.
  void warn_early_stop(const Schedule& schedule) {
    if (summary_.status != Status::TimeLimit && summary_.status != Status::GapTolerance) return;
    const long k = state.done;
    if (k < 1 || 2 * k >= K_) return;
    Steps for_K, for_k;
    try {
      for_K = schedule.at(k - 1, K_);
      for_k = schedule.at(k - 1, k);
    } catch (...) {
      return;  // a probe for a warning never fails a run that ended well
    }
    if (for_K.gamma == for_k.gamma && for_K.beta == for_k.beta && for_K.rho == for_k.rho) return;
    std::ostringstream w;
    w << "warning: the " << (summary_.status == Status::TimeLimit ? "time limit" : "gap tolerance")
      << " ended the run after " << k << " of K = " << K_ << " iterations (under half of K) with steps sized for K ("
      << "gamma = " << format_as("%.3g", for_K.gamma) << " where a run of " << k << " iterations takes "
      << format_as("%.3g", for_k.gamma) << "); with a stopping rule use the \"anytime\" schedule, whose steps do "
      << "not depend on K, or a K the run can reach";
    summary_.notes.push_back(w.str());
  }

  /// The summary, as every callback's on_end sees it.
  Summary finish() {
    Summary& s = summary_;
    static_cast<RunTally&>(s) = state;
    s.iterations = state.done;
    s.seconds = seconds_since(t_start_);
    if (P_.counters) s.calls = calls();
    s.y = state.y;
    s.factors = std::move(state.factors);  // the run ends here: no copy of (rows + cols) x 512
    state.factors = Factors();
    if (s.factors.truncated() > 0)
      s.notes.push_back("y's factors are an approximation off the entries: beyond " +
                        std::to_string(Factors::max_columns(s.factors.rows(), s.factors.cols())) +
                        " columns a compression dropped singular values up to " + format_as("%.3g", s.factors.truncated()) +
                        " of the largest (y at the entries is exact)");
    std::ostringstream msg;
    msg << to_string(s.status);
    if (!s.reason.empty()) msg << " (" << s.reason << ")";
    msg << " after " << state.done << " of " << K_ << " iterations";
    if (!can_report_) msg << " (the oracle has no exact evaluation, so no gap was computed)";
    s.message = msg.str();
    for (Callback* cb : callbacks_) cb->on_end(s);
    return s;
  }

 private:
  /// Continues from a saved state: its dimensions and V's structure must be the problem's.
  void resume_from(const LoopState& r) {
    const Jacobian& V = state.V;
    if (r.y.size() != d_ || r.y_prev.size() != d_ || r.z.size() != n_ || r.V.rows() != n_ || r.V.cols() != d_)
      throw InputError("the saved state has other dimensions than the problem (d = " + std::to_string(d_) +
                       ", n = " + std::to_string(n_) + ")");
    if (!r.V.same_structure(V))
      throw InputError(std::string("the saved V is ") + (r.V.is_sparse() ? "sparse" : "dense") +
                       (r.V.is_sparse() && V.is_sparse() ? " in another pattern than" : " but") +
                       " the oracle's Jacobian" + (r.V.is_sparse() && V.is_sparse() ? "" : V.is_sparse() ? " is sparse" : " is dense"));
    if (r.done < 1 || r.done > K_)
      throw InputError("the saved state is at iteration " + std::to_string(r.done) + ", outside 1.." +
                       std::to_string(K_));
    Jacobian own = std::move(state.V);  // V keeps the oracle's pattern object
    state = r;
    own.values() = r.V.values();
    state.V = std::move(own);
    // This run's calls are counted from the start of the interrupted one.
    calls_at_start_ = calls_since(calls_at_start_, r.calls);
  }

  CallCounters calls() const { return P_.counters ? calls_since(*P_.counters, calls_at_start_) : CallCounters{}; }

  /// A plugin failed: the summary says so to every callback, then the error goes on up with the
  /// iteration and phase in front.
  [[noreturn]] void fail(long iteration, const char* phase) {
    std::exception_ptr error;
    try {
      rethrow_at(iteration, phase);
    } catch (...) {
      error = std::current_exception();
    }
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      summary_.reason = e.what();
    }
    summary_.status = Status::Failed;
    finish();
    std::rethrow_exception(error);
  }

  Problem& P_;
  Oracle& oracle_;
  OuterFunction& outer_;
  Glmo& glmo_;
  Glmo& gap_glmo_;
  const SolverOptions& options_;
  std::vector<Callback*> callbacks_;
  StateHook* hook_;
  const int d_, n_;
  const long K_;
  const bool can_report_;
  Vec gap_f_, gap_x_;
  Jacobian gap_J_, V_dense_;
  GapCheck gap_check_;
  std::string glmo_name_, outer_name_;
  Summary summary_;
  IterationState view_;
  CallCounters calls_at_start_;
  Clock::time_point t_start_;
};

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
                         Vec& f, Jacobian& J, Vec& x, Jacobian* dense_buffer, GapCheck* check) {
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
  g.glmo_value = r.value;
  if (check) {
    // F(f + J (x - y), x) at the returned x, with the J the GLMO was handed (the same numbers).
    check->step = x - y;
    check->u = f;
    J.multiply_add(check->step, check->u);
    g.value_at_x = outer.value(check->u, x);
    g.scale = std::max({1.0, std::abs(g.value_at_x), std::abs(r.value), check->u.cwiseAbs().maxCoeff()});
  }
  return g;
}

void check_glmo_value(const GapValue& g, const std::string& glmo, const std::string& outer) {
  const double diff = std::abs(g.glmo_value - g.value_at_x);
  const double allowed = std::max(0.0, g.slack) + kGlmoValueTolerance * g.scale;
  if (std::isnan(g.value_at_x) || diff <= allowed) return;
  throw Error(glmo + ": the GLMO's value " + format_as("%.10g", g.glmo_value) +
              " at the point it returned disagrees with the outer function " + outer + "'s value " +
              format_as("%.10g", g.value_at_x) + " there (difference " + format_as("%.3g", diff) + ", allowed " +
              format_as("%.3g", allowed) + "): the outer function's model is not the function, or the GLMO "
              "solved it wrongly; `scfw validate --check` checks the model");
}

Solver::Solver(Problem& problem, Method& method, SolverOptions options)
    : problem_(problem), method_(method), options_(std::move(options)) {
  std::string why;
  if (!options_.IsValidFor(problem_.oracle.get(), &why)) throw InputError(why);
  if (options_.gap_tolerance > 0) rules_.push_back(std::make_unique<GapToleranceRule>(options_.gap_tolerance));
  if (options_.time_limit > 0) rules_.push_back(std::make_unique<TimeLimitRule>(options_.time_limit));
}

Summary Solver::run() {
  std::vector<Callback*> callbacks = callbacks_;
  for (const auto& rule : rules_) callbacks.push_back(rule.get());
  Run run(problem_, method_, options_, std::move(callbacks), hook_, start_, resume_);
  LoopState& s = run.state;
  Tracker& tracker = *method_.tracker;
  Schedule& schedule = *method_.schedule;
  const long K = options_.iterations;

  for (long k = s.done; k < K; ++k) {
    const Steps steps = run.guarded(k + 1, "schedule", [&] { return schedule.at(k, K); });
    run.track(k + 1, [&] {
      if (k == 0)  // Alg. 1 line 2: draw xi_0; z_0 = f~(y_0; xi_0), V_0 = J~(y_0; xi_0).
        tracker.start(s.y, s.rng, s.z, s.V);
      else  // lines 4-6: draw xi_k at y_k; the Jacobian tracker V_k, the function tracker z_k.
        tracker.update(k, s.y, s.y_prev, steps, s.rng, s.z, s.V);
    });
    // line 7: x_{k+1} in argmin_{x in X} F(z_k + V_k (x - y_k), x).
    const GlmoResult r = run.glmo(k + 1, steps.gamma);
    // line 8: y_{k+1} = (1 - gamma_k) y_k + gamma_k x_{k+1}.
    run.step(k + 1, steps.gamma, r);
    s.done = k + 1;
    // Outside the algorithm: the exact gap when a report is due, the callbacks, the checkpoint.
    if (run.report_due()) run.report_gap();
    if (run.end_of_iteration(steps, r)) break;
  }
  if (run.report_at_stop()) run.report_gap();
  run.warn_early_stop(schedule);
  return run.finish();
}

std::string Summary::brief() const {
  std::ostringstream os;
  os << to_string(status) << ": " << iterations << " iterations";
  if (has_gap) os << ", objective " << format_as("%.6g", final_objective) << ", gap " << format_as("%.3e", final_gap)
                  << ", best gap " << format_as("%.3e", best_gap);
  os << ", " << format_as("%.3f", seconds) << " s";
  return os.str();
}

std::string Summary::full() const {
  std::ostringstream os;
  const double it = iterations > 0 ? static_cast<double>(iterations) : 1.0;
  auto phase = [&](const char* name, double sec, bool per_iteration = true) {
    os << "    " << name << format_as("%10.4f s", sec);
    if (per_iteration) os << format_as("  %9.2f us/iteration", 1e6 * sec / it);
    os << "\n";
  };
  os << "status          " << message << "\n";
  if (has_gap) {
    os << "objective       phi(y_K) = " << format_as("%.10g", final_objective) << "\n";
    os << "gap             final " << format_as("%.6e", final_gap) << ", best " << format_as("%.6e", best_gap)
       << "  (generalized Frank-Wolfe gap, eq. 2, exact f and Jacobian)\n";
    if (gap_slack > 0)
      os << "                upper bounds: the GLMO stops at a certified tolerance, each gap at most "
         << format_as("%.3e", gap_slack) << " above the exact one\n";
  }
  os << "iterations      " << iterations << " in " << format_as("%.3f", seconds) << " s ("
     << format_as("%.0f", seconds > 0 ? iterations / seconds : 0.0) << " it/s)\n";
  os << "time per phase\n";
  phase("oracle ", times.oracle);
  phase("tracker", times.tracker);
  phase("GLMO   ", times.glmo);
  phase("update ", times.update);
  phase("gap    ", times.gap, false);
  if (!schedule.empty()) os << "schedule        " << schedule << "\n";
  os << "GLMO            " << glmo_solver << "\n";
  os << "                " << format_as("%.2f", glmo_iterations / it) << " simplex iterations per solve (max "
     << glmo_max_iterations << ")\n";
  for (const auto& note : notes) os << "note            " << note << "\n";
  os << "oracle calls    " << calls.draws << " draws, " << calls.values << " values, " << calls.jacobians
     << " Jacobians, " << calls.exact << " exact, " << calls.hessian << " Hessian actions\n";
  return os.str();
}

}  // namespace scfw
