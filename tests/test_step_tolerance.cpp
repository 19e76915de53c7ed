// A GLMO tolerance tied to the step (docs/formulations.md, "A GLMO tolerance tied to the step"):
// the host tells the loop's GLMO each step gamma_k before its solve and never tells the gap
// reports' GLMO; column_generation with "step_tolerance" = delta stops a loop solve at
// max(tolerance, delta gamma_k) relative, with a valid certified bound, and a gap report's solve
// at its tolerance.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine_support.hpp"
#include "plugin_support.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"
#include "scfw/scfw.hpp"

using namespace scfw;
using namespace scfw::test;

namespace {

Block block_params(nlohmann::json values) { return params(std::move(values), "problem.json", "/block"); }

// Records the steps it is told and the solves it runs, in order: "step 0.25", "solve".
class RecordingGlmo final : public Glmo {
 public:
  RecordingGlmo(std::unique_ptr<Glmo> inner, std::vector<std::string>& log) : inner_(std::move(inner)), log_(log) {}
  Capabilities capabilities() const override { return inner_->capabilities(); }
  void setup(const OuterFunction& o, const Domain& dom, int n, int d) override { inner_->setup(o, dom, n, d); }
  void set_step(double gamma) override {
    log_.push_back("step " + std::to_string(gamma));
    inner_->set_step(gamma);
  }
  GlmoResult solve(const Vec& z, const Jacobian& V, const Vec& y, Vec& x) override {
    log_.push_back("solve");
    return inner_->solve(z, V, y, x);
  }
  std::string describe() const override { return inner_->describe(); }

 private:
  std::unique_ptr<Glmo> inner_;
  std::vector<std::string>& log_;
};

// Task 3's synthetic instance (30 x 20, 20 groups) under an l1 outer over the nuclear ball.
nlohmann::json task3(double step_tolerance) {
  return {{"seed", 5},
          {"iterations", 40},
          {"report", {{"every", 10}}},
          {"oracle", {{"plugin", "matrix_completion"}, {"groups", 20}, {"synthetic", nlohmann::json::object()}}},
          {"outer", {{"plugin", "norm"}, {"p", "1"}}},
          {"domain", {{"plugin", "nuclear_ball"}, {"rows", 30}, {"cols", 20}, {"radius", 5}}},
          {"glmo", {{"plugin", "column_generation"}, {"tolerance", 1e-7}, {"step_tolerance", step_tolerance}}},
          {"tracker", {{"plugin", "momentum"}, {"value", "polyak"}}},
          {"schedule", {{"plugin", "nonconvex"}, {"r", 2}}}};
}

}  // namespace

TEST_CASE("the host tells the loop's GLMO each step before its solve, and never the gap reports' GLMO") {
  Composition c = make(task3(0.0));
  std::vector<std::string> loop, gap;
  c.method.glmo = std::make_unique<RecordingGlmo>(std::move(c.method.glmo), loop);
  c.method.gap_glmo = std::make_unique<RecordingGlmo>(std::move(c.method.gap_glmo), gap);
  Solver solver(c.problem, c.method, c.options);
  const Summary s = solver.run();
  REQUIRE(s.iterations == 40);
  REQUIRE(loop.size() == 80);
  for (long k = 0; k < 40; ++k) {
    CAPTURE(k);
    CHECK(loop[2 * k] == "step " + std::to_string(c.method.schedule->at(k, 40).gamma));
    CHECK(loop[2 * k + 1] == "solve");
  }
  CHECK(gap == std::vector<std::string>(4, "solve"));  // reports at 10, 20, 30, 40
}

TEST_CASE("column_generation step_tolerance: loop solves stop at max(tolerance, delta gamma), certified") {
  auto p = block_params({{"groups", 20}, {"synthetic", nlohmann::json::object()}});
  auto oracle = make<Oracle>("matrix_completion", p, context(-1, -1));
  const int d = 600, n = 20;
  auto ball = make<Domain>("nuclear_ball", block_params({{"rows", 30}, {"cols", 20}, {"radius", 5.0}}), context(d, 1));
  auto l1 = make<OuterFunction>("norm", block_params({{"p", std::string("1")}}), context(d, n));
  const double tol = 1e-7, delta = 2.0;
  auto stepped = make<Glmo>("column_generation", block_params({{"tolerance", tol}, {"step_tolerance", delta}}), context(d, n));
  auto plain = make<Glmo>("column_generation", block_params({{"tolerance", tol}}), context(d, n));
  auto exact = make<Glmo>("column_generation",
                          block_params({{"tolerance", 1e-11}, {"max_rounds", std::int64_t{5000}}}), context(d, n));
  for (Glmo* g : {stepped.get(), plain.get(), exact.get()}) g->setup(*l1, *ball, n, d);
  std::mt19937_64 rng(17);
  std::normal_distribution<double> normal;
  long stepped_rounds = 0, plain_rounds = 0;
  int loose_stops = 0;
  for (int trial = 0; trial < 12; ++trial) {
    CAPTURE(trial);
    Vec g(d), y;
    for (auto& v : g) v = normal(rng);
    lmo_dense(*ball, g, y);
    y *= 0.08 * (trial + 1);  // points inside the ball
    Vec f(n), x(d);
    Jacobian J(n, d);
    oracle->exact(y, &f, &J);
    const double gamma = 0.02;
    stepped->set_step(gamma);
    const GlmoResult a = stepped->solve(f, J, y, x);
    const GlmoResult b = plain->solve(f, J, y, x);
    const GlmoResult e = exact->solve(f, J, y, x);
    const double scale = std::max(1.0, std::abs(a.value));
    CHECK(a.value - a.lower_bound <= delta * gamma * scale);  // stopped within its loosened tolerance
    CHECK(a.lower_bound <= e.value + 1e-9);                   // a valid bound on the minimum
    CHECK(a.value >= e.value - 1e-9);
    CHECK(b.value - b.lower_bound <= tol * std::max(1.0, std::abs(b.value)));
    if (a.value - a.lower_bound > tol * scale) ++loose_stops;
    stepped_rounds += a.iterations;
    plain_rounds += b.iterations;
    // Told step 0 (what a gap report's instance always has), it keeps `tolerance`.
    stepped->set_step(0.0);
    const GlmoResult t = stepped->solve(f, J, y, x);
    CHECK(t.value - t.lower_bound <= tol * std::max(1.0, std::abs(t.value)));
  }
  CHECK(loose_stops >= 1);               // the loosened tolerance is used, not just allowed
  CHECK(stepped_rounds < plain_rounds);  // and it saves rounds and pivots
  MESSAGE("rounds + pivots: " << stepped_rounds << " with step_tolerance, " << plain_rounds << " without");
}

TEST_CASE("column_generation step_tolerance: the summary line says it, the declared range refuses < 0") {
  Composition c = make(task3(0.5));
  CHECK(c.method.glmo->describe().find("tolerance 1e-07, in the loop max(tolerance, 0.5 gamma_k)") != std::string::npos);
  auto doc = task3(-1.0);
  CHECK(input_error([&] { make(doc); }) == "test.json: /glmo/step_tolerance: expected a number >= 0, got -1.0");
}
