// The engine against the paper: Corollary 1 (deterministic interpolation) step by step, its
// convex O(1/K) bound on an instance with a known minimizer, and the determinism guarantees
// (same seed, same trace; gap reports never change the iterates).
#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>

#include "engine_support.hpp"

using namespace scfw;
using scfw::test::make;
using scfw::test::registry;
using scfw::test::run;
using scfw::test::task1;

TEST_CASE("Corollary 1: exact oracle with beta = rho = 1 reproduces the deterministic Basic Method") {
  // batch 0 = every sample is the whole data set: sigma_f = sigma_g = 0.
  const long K = 60;
  for (const char* variant : {"polyak", "taylor"}) {
    CAPTURE(variant);
    const auto doc = task1(K, 0, variant, {{"plugin", "deterministic"}, {"step", "convex"}}, 5, 20, 40, 0.5, 2.0);
    Composition engine = make(doc);
    const auto traj = run(engine, 7, K, 0, /*keep_y=*/true, /*final_report=*/false);
    REQUIRE(traj.y.size() == static_cast<size_t>(K));

    // A direct transcription of the Basic Method of Vladarean et al.: exact f and J at y_k,
    // x_{k+1} = GLMO(f(y_k), J(y_k), y_k), y_{k+1} = (1 - 2/(k+2)) y_k + 2/(k+2) x_{k+1},
    // with its own GLMO instance and its own copy of the problem.
    Composition direct = make(doc);
    const int d = direct.problem.oracle->dim(), n = direct.problem.oracle->outputs();
    Vec y = direct.problem.domain->initial_point(), f(n), x(d);
    Mat J(n, d);
    double worst = 0;
    for (long k = 0; k < K; ++k) {
      direct.problem.oracle->exact(y, &f, test::as_jacobian(J));
      direct.method.gap_glmo->solve(f, J, y, x);
      const double gamma = 2.0 / (k + 2.0);
      y = (1.0 - gamma) * y + gamma * x;
      worst = std::max(worst, (y - traj.y[static_cast<size_t>(k)]).cwiseAbs().maxCoeff());
    }
    CHECK(worst <= 1e-10);
  }
}

TEST_CASE("Corollary 1, convex case: phi(y_K) - phi* <= 2 S / (K + 1) on an instance with a known minimizer") {
  // Noise-free synthetic data: b = A x*, ||x*||_1 = 4 < radius 5, so phi* = max_i f_i(x*) = 0.
  const int tasks = 4, dim = 12;
  auto base = task1(10, 0, "taylor", {{"plugin", "deterministic"}, {"step", "convex"}}, tasks, dim, 30, 0.0, 5.0);
  Composition probe = make(base);
  // S <= L_F * L * D^2 * sqrt(n) (Proposition "Bounded composite curvature"): L_F = 1 for max,
  // D = 2 * radius, and L = sqrt(sum_i ||H_i||_2^2) bounds the Lipschitz constant of the
  // Jacobian, where H_i is the (constant) Hessian of f_i, read off the exact Jacobian.
  const int n = probe.problem.oracle->outputs(), d = probe.problem.oracle->dim();
  Vec f(n);
  Mat J0(n, d), Jj(n, d);
  probe.problem.oracle->exact(Vec::Zero(d), &f, test::as_jacobian(J0));
  std::vector<Eigen::MatrixXd> H(static_cast<size_t>(n), Eigen::MatrixXd(d, d));
  for (int j = 0; j < d; ++j) {
    probe.problem.oracle->exact(Vec::Unit(d, j), &f, test::as_jacobian(Jj));
    for (int i = 0; i < n; ++i) H[static_cast<size_t>(i)].col(j) = (Jj.row(i) - J0.row(i)).transpose();
  }
  double L2 = 0;
  for (const auto& h : H) {
    const double lmax = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(0.5 * (h + h.transpose())).eigenvalues().maxCoeff();
    L2 += lmax * lmax;
  }
  const double S = 1.0 * std::sqrt(L2) * 10.0 * 10.0 * std::sqrt(static_cast<double>(n));

  for (long K : {5L, 20L, 80L, 320L}) {
    CAPTURE(K);
    base["iterations"] = K;
    Composition p = make(base);
    const auto t = run(p, 1, K, 0);
    REQUIRE(t.summary.has_gap);
    // Generalized gap upper-bounds the primal gap in the convex case (Lemma "primal gap").
    CHECK(t.summary.final_objective >= -1e-12);
    CHECK(t.summary.final_objective <= 2.0 * S / (K + 1.0));
    CHECK(t.summary.final_gap >= t.summary.final_objective - 1e-9);
  }
}

TEST_CASE("same file and seed give a bitwise identical trace; reports on or off give identical iterates") {
  const long K = 400;
  const auto doc = task1(K, 1, "taylor", {{"plugin", "nonconvex"}, {"r", 2}});
  Composition a = make(doc), b = make(doc), c = make(doc), e = make(doc);
  const auto ta = run(a, 11, K, 25, true);
  const auto tb = run(b, 11, K, 25, true);
  REQUIRE(ta.gaps.size() == 16);
  CHECK(ta.gaps == tb.gaps);  // bitwise
  CHECK(ta.summary.y == tb.summary.y);

  const auto tc = run(c, 11, K, 0, true, /*final_report=*/false);
  REQUIRE(tc.gaps.empty());
  bool identical = true;
  for (size_t k = 0; k < ta.y.size(); ++k) identical = identical && (ta.y[k] == tc.y[k]);
  CHECK(identical);

  const auto te = run(e, 12, K, 0, false, false);
  CHECK_FALSE(te.summary.y == ta.summary.y);  // the seed matters
}

TEST_CASE("K iterations are K oracle draws and K GLMO calls") {
  const long K = 37;
  Composition p = make(task1(K, 2, "polyak", {{"plugin", "nonconvex"}, {"r", 2}}));
  const auto t = run(p, 3, K, 0, false, false);
  CHECK(t.summary.iterations == K);
  CHECK(t.summary.calls.draws == K);
  CHECK(t.summary.calls.glmo_solves == K);
  CHECK(t.summary.calls.exact == 0);
}

// ---------------------------------------------------------------------------------------------
// The callback protocol: begin, each iteration, end; Continue, Stop (success), Abort (failure).

namespace {

/// Writes what it is told into a shared log; ends the run at `at` with `result`.
class Recorder final : public Callback {
 public:
  Recorder(std::string name, std::vector<std::string>& log, long at = 0, CallbackResult result = CallbackResult::Continue)
      : name_(std::move(name)), log_(log), at_(at), result_(result) {}
  void on_begin(const RunInfo& info) override {
    log_.push_back(name_ + " begin K=" + std::to_string(info.iterations) + " seed=" + std::to_string(info.seed));
  }
  CallbackResult on_iteration(const IterationState& s) override {
    log_.push_back(name_ + " " + std::to_string(s.iteration));
    return s.iteration == at_ ? result_ : CallbackResult::Continue;
  }
  void on_end(const Summary& s) override { log_.push_back(name_ + " end " + to_string(s.status)); }
  std::string reason() const override { return name_ + " says so at " + std::to_string(at_); }

 private:
  std::string name_;
  std::vector<std::string>& log_;
  long at_;
  CallbackResult result_;
};

Summary run_with(Composition& p, long K, std::vector<Callback*> callbacks, SolverOptions o = {}) {
  o.iterations = K;
  o.seed = 5;
  Solver solver(p, o);
  for (Callback* cb : callbacks) solver.add_callback(*cb);
  return solver.run();
}

}  // namespace

TEST_CASE("callbacks: on_begin, every iteration to every callback in order, on_end; Stop is a success naming its reason") {
  Composition p = make(task1(50, 1, "polyak", {{"plugin", "nonconvex"}, {"r", 2}}, 3, 12, 20));
  std::vector<std::string> log;
  Recorder a("a", log, 3, CallbackResult::Stop), b("b", log);
  const Summary s = run_with(p, 50, {&a, &b});
  const std::vector<std::string> expect = {"a begin K=50 seed=5", "b begin K=50 seed=5", "a 1", "b 1", "a 2", "b 2",
                                           "a 3", "b 3", "a end stopped", "b end stopped"};
  CHECK(log == expect);
  CHECK(s.status == Status::Stopped);
  CHECK(succeeded(s.status));
  CHECK(s.iterations == 3);
  CHECK(s.reason == "a says so at 3");
  CHECK(s.message == "stopped (a says so at 3) after 3 of 50 iterations");
  CHECK(s.has_gap);  // a run stopped early still reports the gap at its last iterate
}

TEST_CASE("callbacks: Abort ends the run with status Failed, and wins over a Stop at the same iteration") {
  Composition p = make(task1(50, 1, "polyak", {{"plugin", "nonconvex"}, {"r", 2}}, 3, 12, 20));
  std::vector<std::string> log;
  Recorder stop("stop", log, 4, CallbackResult::Stop), abort("abort", log, 4, CallbackResult::Abort);
  const Summary s = run_with(p, 50, {&stop, &abort});
  CHECK(s.status == Status::Failed);
  CHECK_FALSE(succeeded(s.status));
  CHECK(std::string(to_string(s.status)) == "failed");
  CHECK(s.iterations == 4);
  CHECK(s.message == "failed (abort says so at 4) after 4 of 50 iterations");
  CHECK(log.back() == "abort end failed");
}

TEST_CASE("stopping rules are callbacks: the gap tolerance stops at the first reported gap below it") {
  const long K = 200;
  const auto doc = task1(K, 1, "taylor", {{"plugin", "nonconvex"}, {"r", 2}}, 3, 12, 20);
  Composition ref = make(doc);
  const auto full = run(ref, 9, K, 10, /*keep_y=*/true);
  REQUIRE(full.gaps.size() == 20);
  // The tolerance: the 6th report's gap; the rule fires at the first report at or below it.
  const double tol = full.gaps[5];
  size_t first = 0;
  while (full.gaps[first] > tol) ++first;
  const long stop_at = 10 * static_cast<long>(first + 1);

  Composition p = make(doc);
  SolverOptions o = test::options(K, 9, 10);
  o.gap_tolerance = tol;
  Solver solver(p, o);
  const Summary s = solver.run();
  CHECK(s.status == Status::GapTolerance);
  CHECK(s.iterations == stop_at);
  CHECK(s.final_gap == full.gaps[first]);  // bitwise: the same iterates up to the stop
  CHECK(s.y == full.y[static_cast<size_t>(stop_at - 1)]);
  char reason[96];
  std::snprintf(reason, sizeof reason, "gap %.3e <= tolerance %.3g", full.gaps[first], tol);
  CHECK(s.reason == reason);
  CHECK(s.message == std::string("gap tolerance reached (") + reason + ") after " + std::to_string(stop_at) + " of " +
                         std::to_string(K) + " iterations");

  // The time limit: any iteration takes more than a nanosecond, so the run stops after the first.
  Composition q = make(doc);
  SolverOptions t = o;
  t.gap_tolerance = 0;
  t.time_limit = 1e-9;
  const Summary ts = Solver(q, t).run();
  CHECK(ts.status == Status::TimeLimit);
  CHECK(ts.iterations == 1);
  CHECK(ts.reason.rfind(" s >= limit 1e-09 s") != std::string::npos);
}

TEST_CASE("options: IsValid names the field; the Solver refuses invalid options") {
  SolverOptions o;
  std::string why;
  CHECK(o.IsValid(&why));
  CHECK(why.empty());
  o.iterations = 0;
  CHECK_FALSE(o.IsValid(&why));
  CHECK(why == "iterations: expected an integer >= 1, got 0");
  o.iterations = 10;
  o.report_every = -2;
  CHECK_FALSE(o.IsValid(&why));
  CHECK(why == "report every: expected an integer >= 0, got -2");
  o.report_every = 0;
  o.gap_tolerance = -1e-3;
  CHECK_FALSE(o.IsValid(&why));
  CHECK(why == "gap tolerance: expected a finite number >= 0, got -0.001");
  o.gap_tolerance = 0;
  o.time_limit = -1;
  CHECK_FALSE(o.IsValid(nullptr));
  Composition p = make(task1(10, 1, "polyak", {{"plugin", "nonconvex"}}, 3, 12, 20));
  CHECK_THROWS_WITH_AS(Solver(p, o), "time limit: expected a number of seconds >= 0, got -1", InputError);
}

TEST_CASE("one problem, many methods: compose_problem + compose_method run bitwise as compose, and count per run") {
  const long K = 60;
  const auto doc = task1(K, 1, "taylor", {{"plugin", "nonconvex"}, {"r", 2}}, 3, 12, 20);
  Composition whole = make(doc);
  const auto expect = run(whole, 4, K, 10, true);

  Problem problem = compose_problem(registry(), doc, "test.json", SCFW_SOURCE_DIR);
  const nlohmann::json tracker = doc["tracker"], schedule = doc["schedule"], glmo = doc["glmo"];
  for (int repeat = 0; repeat < 2; ++repeat) {
    CAPTURE(repeat);
    Method method = compose_method(registry(), problem, {&tracker, "/tracker"}, {&schedule, "/schedule"}, {&glmo, "/glmo"});
    SolverOptions o = test::options(K, 4, 10);
    std::vector<double> gaps;
    Solver solver(problem, method, o);
    solver.add_callback([&](const IterationState& s) {
      if (s.has_gap) gaps.push_back(s.gap);
      return true;
    });
    const Summary s = solver.run();
    CHECK(gaps == expect.gaps);  // bitwise
    CHECK(s.y == expect.summary.y);
    // The counters are the problem's, shared by its runs: the summary counts this run's calls.
    CHECK(s.calls.draws == K);
    CHECK(s.calls.glmo_solves == K + 6);
    CHECK(problem.counters->draws == (repeat + 1) * K);
  }
}
