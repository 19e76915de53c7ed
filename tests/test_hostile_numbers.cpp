// Issue #12, the numbers: what a plugin hands to the host or to a GLMO is checked before it is
// used.
//   * the model API refuses a variable that is not in the model, and a GLMO that reads a model
//     with one names the plugin and the expression (test-only outer and domain objects below);
//   * a model entry that is NaN or beyond lp::kLpLimit never reaches an LP solver;
//   * the host's wrappers (core/src/checked.cpp) refuse a non-finite f, J, z, V, F value, GLMO x
//     or value: the run fails with Status::Failed and a message naming the plugin and iteration;
//   * dro_chi2's value() near ties of the top entries, against a long double reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine_support.hpp"
#include "plugin_support.hpp"
#include "scfw/core/checked.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"
#include "scfw/scfw.hpp"

using namespace scfw;
using namespace scfw::test;

namespace {

// ---------------------------------------------------------------------------------------------
// Test-only outer functions and domains whose models are wrong in one way each.

// F(u) = u_0 with a model that is broken as asked.
class BrokenOuter final : public OuterFunction {
 public:
  enum class Kind { ObjectiveIndex, HugeCoefficient, NanBound };
  explicit BrokenOuter(Kind k) : kind_(k) {}
  double value(const Vec& u, const Vec&) const override { return u[0]; }
  Expr model(Model& m, std::span<const Expr> u, std::span<const Expr>) const override {
    Expr obj = u[0];
    switch (kind_) {
      case Kind::ObjectiveIndex: obj.add(Var{57}, 1.0); break;
      case Kind::HugeCoefficient: obj.add(m.add_var(0.0, 1.0, "t"), 1e300); break;
      case Kind::NanBound: {
        const Var t = m.add_var(0.0, 1.0, "t");
        m.add_row(Expr(t), 0.0, 1e300);
        break;
      }
    }
    return obj;
  }
  OuterTraits traits() const override { return {}; }

 private:
  Kind kind_;
};

// A 3-dimensional box [-1, 1]^3 whose model returns x_1 as a variable the model does not have.
class BadIndexDomain final : public Domain {
 public:
  int dim() const override { return 3; }
  std::vector<Expr> model(Model& m) const override {
    std::vector<Expr> xs;
    for (int j = 0; j < 3; ++j) xs.emplace_back(m.add_var(-1.0, 1.0));
    xs[1] = Expr(Var{40});
    return xs;
  }
  void lmo(const Gradient& g, Atom& s) const override {
    Vec buf;
    const Vec& gd = g.to_dense(buf);
    Vec& x = s.set_dense(3);
    for (int j = 0; j < 3; ++j) x[j] = gd[j] > 0 ? -1.0 : 1.0;
  }
  Vec initial_point() const override { return Vec::Zero(3); }
  bool contains(const Vec& x, double tol) const override { return x.cwiseAbs().maxCoeff() <= 1.0 + tol; }
};

}  // namespace

TEST_CASE("model API: a variable that is not in the model is refused by every builder") {
  Model m;
  const Var a = m.add_var(0.0, 1.0, "a");
  m.add_var(0.0, 1.0, "b");
  CHECK(m.unknown_term(Expr(a)) == nullptr);
  Expr e = Expr(a);
  e.add(Var{5}, 2.0);
  REQUIRE(m.unknown_term(e) != nullptr);
  CHECK(m.unknown_term(e)->first == 5);
  CHECK(m.unknown_term(Expr(Var{})) != nullptr);  // a default Var is -1
  CHECK(error_of([&] { m.add_row(e, 0.0, 1.0); }) ==
        "Model::add_row: the expression uses variable 5, but the model has 2 variables");
  CHECK(error_of([&] { m.add_second_order_cone(Expr(a), {Expr(Var{-1})}); }) ==
        "Model::add_second_order_cone: an expression uses variable -1, but the model has 2 variables");
  CHECK(error_of([&] { m.set_bounds(Var{2}, 0.0, 1.0); }) == "Model::set_bounds: no such variable");
  CHECK(error_of([&] { m.add_var(std::nan(""), 1.0); }) == "Model::add_var: a bound is NaN");
  CHECK(error_of([&] { m.add_row(Expr(a), std::nan(""), 1.0); }) == "Model::add_row: a bound is NaN");
  CHECK(m.rows().empty());
  CHECK(m.cones().empty());
  CHECK(m.num_vars() == 2);
}

TEST_CASE("GLMOs: an outer model naming a variable that does not exist is an error naming the GLMO") {
  const int d = 3, n = 2;
  auto domain = make_l1(d, n, 1.0);
  const BrokenOuter outer(BrokenOuter::Kind::ObjectiveIndex);
  // clp and dense_simplex: the l1 ball's 2d variables p, q and the n variables u.
  for (const char* glmo : {"clp", "dense_simplex"}) {
    CAPTURE(glmo);
    auto g = make<Glmo>(glmo, params({}), context(d, n));
    const std::string got = error_of([&] { g->setup(outer, *domain, n, d); });
    CHECK(got == std::string(glmo) + ": the outer function's model: the objective uses variable 57, but the model "
                                     "has 8 variables");
  }
  // column_generation: its own n u variables only (the default traits say F does not read x).
  auto cg = make<Glmo>("column_generation", params({}), context(d, n));
  CHECK(error_of([&] { cg->setup(outer, *domain, n, d); }) ==
        "column_generation: the outer function's model: the objective uses variable 57, but the model has 2 "
        "variables");
}

TEST_CASE("GLMOs: a domain model naming a variable that does not exist is an error naming the GLMO") {
  const int d = 3, n = 2;
  const BadIndexDomain domain;
  auto outer = make_max(d, n);
  for (const char* glmo : {"clp", "dense_simplex"}) {
    CAPTURE(glmo);
    auto g = make<Glmo>(glmo, params({}), context(d, n));
    CHECK(error_of([&] { g->setup(*outer, domain, n, d); }) ==
          std::string(glmo) + ": the domain's model: x[1] uses variable 40, but the model has 3 variables");
  }
}

TEST_CASE("GLMOs: model entries that are NaN or beyond 1e20 never reach the LP solver") {
  const int d = 3, n = 2;
  auto domain = make_l1(d, n, 1.0);
  const BrokenOuter huge(BrokenOuter::Kind::HugeCoefficient), wide(BrokenOuter::Kind::NanBound);
  for (const char* glmo : {"clp", "dense_simplex"}) {
    CAPTURE(glmo);
    auto g = make<Glmo>(glmo, params({}), context(d, n));
    CHECK(error_of([&] { g->setup(huge, *domain, n, d); }) ==
          std::string(glmo) +
              ": the outer function's model: the objective has coefficient 1e+300 at variable 8 (\"t\"); LP "
              "entries must be finite and at most 1e+20 in magnitude");
    // The l1 ball has one row (row 0); the outer's row is row 1.
    CHECK(error_of([&] { g->setup(wide, *domain, n, d); }) ==
          std::string(glmo) +
              ": the outer function's model: row 1 has bounds [0, 1e+300]; LP entries must be finite and at "
              "most 1e+20 in magnitude");
  }
  // Per solve: z, V, y enter the LP's coefficients and right-hand sides.
  auto outer = make_max(d, n);
  for (const char* glmo : {"clp", "dense_simplex", "column_generation"}) {
    CAPTURE(glmo);
    auto g = make<Glmo>(glmo, params({}), context(d, n));
    g->setup(*outer, *domain, n, d);
    Vec z = Vec::Zero(n), y = Vec::Zero(d), x(d);
    Mat V = Mat::Ones(n, d);
    V(1, 2) = std::nan("");
    CHECK(error_of([&] { g->solve(z, V, y, x); }) ==
          std::string(glmo) + ": solve() got V[1,2] = nan; LP entries must be finite and at most 1e+20 in magnitude");
    V(1, 2) = 1.0;
    z[0] = -1e25;
    CHECK(error_of([&] { g->solve(z, V, y, x); }) ==
          std::string(glmo) + ": solve() got z[0] = -1e+25; LP entries must be finite and at most 1e+20 in magnitude");
  }
}

// ---------------------------------------------------------------------------------------------
// Non-finite plugin outputs in a run: decorators around the composed objects inject one bad
// number, and the host's wrapper around the decorator names it.

namespace {

nlohmann::json small_problem() {
  return nlohmann::json{
      {"seed", 3},
      {"iterations", 20},
      {"oracle",
       {{"plugin", "least_squares_tasks"},
        {"synthetic", {{"tasks", 4}, {"dim", 12}, {"rows_per_task", 30}, {"seed", 2}}},
        {"batch", 2}}},
      {"outer", {{"plugin", "max"}}},
      {"domain", {{"plugin", "l1_ball"}, {"radius", 2.0}}}};
}

// f[3] is NaN from the 12th draw on.
class NanOracle final : public Oracle {
 public:
  explicit NanOracle(std::unique_ptr<Oracle> inner) : inner_(std::move(inner)) {}
  int dim() const override { return inner_->dim(); }
  int outputs() const override { return inner_->outputs(); }
  std::unique_ptr<Sample> make_sample() const override { return inner_->make_sample(); }
  void draw(Rng& rng, Sample& s) const override {
    ++draws_;
    inner_->draw(rng, s);
  }
  void evaluate(const Sample& s, const Vec& x, Vec* f, Jacobian* J) const override {
    inner_->evaluate(s, x, f, J);
    if (f && draws_ >= 12) (*f)[3] = std::nan("");
  }
  Capabilities capabilities() const override { return inner_->capabilities(); }
  void exact(const Vec& x, Vec* f, Jacobian* J) const override { inner_->exact(x, f, J); }

 private:
  std::unique_ptr<Oracle> inner_;
  mutable long draws_ = 0;
};

// value() is NaN.
class NanOuter final : public OuterFunction {
 public:
  explicit NanOuter(std::unique_ptr<OuterFunction> inner) : inner_(std::move(inner)) {}
  double value(const Vec&, const Vec&) const override { return std::nan(""); }
  Expr model(Model& m, std::span<const Expr> u, std::span<const Expr> x) const override { return inner_->model(m, u, x); }
  OuterTraits traits() const override { return inner_->traits(); }

 private:
  std::unique_ptr<OuterFunction> inner_;
};

// The 7th solve returns x with x[0] = NaN.
class NanGlmo final : public Glmo {
 public:
  explicit NanGlmo(std::unique_ptr<Glmo> inner) : inner_(std::move(inner)) {}
  void setup(const OuterFunction& o, const Domain& dom, int n, int d) override { inner_->setup(o, dom, n, d); }
  GlmoResult solve(const Vec& z, const Jacobian& V, const Vec& y, Vec& x) override {
    GlmoResult r = inner_->solve(z, V, y, x);
    if (++solves_ == 7) x[0] = std::nan("");
    return r;
  }
  std::string describe() const override { return inner_->describe(); }

 private:
  std::unique_ptr<Glmo> inner_;
  long solves_ = 0;
};

// The update at k = 4 leaves V(1, 2) = +inf.
class InfTracker final : public Tracker {
 public:
  explicit InfTracker(std::unique_ptr<Tracker> inner) : inner_(std::move(inner)) {}
  void bind(const Oracle& o) override { inner_->bind(o); }
  void start(const Vec& y0, Rng& rng, Vec& z, Jacobian& V) override { inner_->start(y0, rng, z, V); }
  void update(long k, const Vec& y, const Vec& y_prev, const Steps& s, Rng& rng, Vec& z, Jacobian& V) override {
    inner_->update(k, y, y_prev, s, rng, z, V);
    if (k == 4) V.dense()(1, 2) = std::numeric_limits<double>::infinity();
  }

 private:
  std::unique_ptr<Tracker> inner_;
};

struct EndStatus final : Callback {
  bool ended = false;
  Summary summary;
  long rows = 0;
  CallbackResult on_iteration(const IterationState&) override {
    ++rows;
    return CallbackResult::Continue;
  }
  void on_end(const Summary& s) override {
    ended = true;
    summary = s;
  }
};

// Runs the problem with the given method and report cadence; returns the error's text.
std::string run_failing(Problem& problem, Method& method, long report_every, EndStatus& end) {
  SolverOptions o;
  o.iterations = 20;
  o.seed = 3;
  o.report_every = report_every;
  Solver solver(problem, method, o);
  solver.add_callback(end);
  return error_of([&] { solver.run(); });
}

Method default_method(Problem& p) { return compose_method(registry(), p, {}, {}, {}); }

}  // namespace

TEST_CASE("host checks: a NaN in the oracle's f fails the run at its iteration, naming the oracle") {
  Problem p = compose_problem(registry(), small_problem(), "test.json", SCFW_SOURCE_DIR);
  p.oracle = wrap_oracle(std::make_unique<NanOracle>(std::move(p.oracle)), "nan_oracle", p.counters);
  Method m = default_method(p);
  EndStatus end;
  CHECK(run_failing(p, m, 0, end) ==
        "iteration 12 (tracker): nan_oracle: evaluate() returned a non-finite value at f[3] = nan");
  CHECK(end.ended);
  CHECK(end.summary.status == Status::Failed);
  CHECK(end.summary.iterations == 11);
  CHECK(end.rows == 11);
}

TEST_CASE("host checks: a NaN outer value fails the gap report, naming the outer function") {
  Problem p = compose_problem(registry(), small_problem(), "test.json", SCFW_SOURCE_DIR);
  p.outer = wrap_outer(std::make_unique<NanOuter>(std::move(p.outer)), "nan_outer", p.outputs(), p.dim(),
                       p.counters);
  Method m = default_method(p);
  EndStatus end;
  CHECK(run_failing(p, m, 5, end) == "iteration 5 (gap report): nan_outer: value() returned a non-finite value: nan");
  CHECK(end.summary.status == Status::Failed);
  CHECK(end.summary.iterations == 5);
}

TEST_CASE("host checks: a NaN GLMO point and an infinite tracked V fail at their iteration") {
  {
    Problem p = compose_problem(registry(), small_problem(), "test.json", SCFW_SOURCE_DIR);
    Method m = default_method(p);
    m.glmo = wrap_glmo(std::make_unique<NanGlmo>(std::move(m.glmo)), "nan_glmo", p.counters);
    m.glmo->setup(*p.outer, *p.domain, p.outputs(), p.dim());
    EndStatus end;
    CHECK(run_failing(p, m, 0, end) == "iteration 7 (GLMO): nan_glmo: solve() returned a non-finite value at x[0] = nan");
    CHECK(end.summary.status == Status::Failed);
    CHECK(end.summary.iterations == 6);
  }
  {
    Problem p = compose_problem(registry(), small_problem(), "test.json", SCFW_SOURCE_DIR);
    Method m = default_method(p);
    m.tracker = wrap_tracker(std::make_unique<InfTracker>(std::move(m.tracker)), "inf_tracker");
    m.tracker->bind(*p.oracle);
    EndStatus end;
    CHECK(run_failing(p, m, 0, end) == "iteration 5 (tracker): inf_tracker: update() left a non-finite value at V[1,2] = inf");
    CHECK(end.summary.status == Status::Failed);
    CHECK(end.summary.iterations == 4);
  }
}

// ---------------------------------------------------------------------------------------------
// dro_chi2 near ties

namespace {

// The same supremum (the active-set formula of dro_chi2.cpp) in long double with a two-pass
// variance per k: the reference the double code is held to.
long double chi2_reference(std::vector<long double> s, long double rho) {
  const int n = static_cast<int>(s.size());
  std::sort(s.begin(), s.end(), std::greater<long double>());
  const long double r2 = rho / n;
  if ((n - 1.0L) / n <= r2 || n == 1) return s[0];
  long double best = -INFINITY;
  for (int k = n; k >= 1; --k) {
    long double m = 0;
    for (int i = 0; i < k; ++i) m += s[static_cast<size_t>(i)];
    m /= k;
    long double ss = 0;
    for (int i = 0; i < k; ++i) ss += (s[static_cast<size_t>(i)] - m) * (s[static_cast<size_t>(i)] - m);
    const long double budget = r2 - (n - k) / (static_cast<long double>(n) * n) -
                               k * (1.0L / k - 1.0L / n) * (1.0L / k - 1.0L / n);
    if (budget < 0) continue;
    const long double c = ss > 0 ? std::sqrt(budget / ss) : 0;
    if (1.0L / k + c * (s[static_cast<size_t>(k) - 1] - m) < 0) continue;
    best = std::max(best, m + c * ss);
  }
  return best;
}

}  // namespace

TEST_CASE("dro_chi2: value() near ties of the top entries agrees with a long double reference") {
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int n : {4, 15, 60}) {
    for (double rho : {0.5, 3.0}) {
      auto F = make<OuterFunction>("dro_chi2", params({{"rho", rho}}), context(1, n));
      for (double offset : {1.0, 1e3, 1e6}) {
        for (double spread : {1e-6, 1e-9, 1e-12}) {
          CAPTURE(n);
          CAPTURE(rho);
          CAPTURE(offset);
          CAPTURE(spread);
          Vec u(n);
          std::vector<long double> ul(static_cast<size_t>(n));
          for (int i = 0; i < n; ++i) {
            u[i] = offset * (1.0 + spread * unit(rng));
            ul[static_cast<size_t>(i)] = u[i];
          }
          const double got = F->value(u, Vec::Zero(1));
          const long double ref = chi2_reference(ul, rho);
          REQUIRE(std::isfinite(got));
          // Within a few rounding errors of the offset (the sum of n entries of that size).
          CHECK(std::abs(static_cast<long double>(got) - ref) <= 8.0L * n * 1.1e-16L * offset);
        }
      }
    }
  }
}
