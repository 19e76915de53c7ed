// Every example in examples/ composes, and for its (outer function, domain) pair the GLMO the
// host chooses is right: at random affine models (z, V, y) its point is feasible, value() at the
// point equals the GLMO's value, and none of 10^4 random feasible points (convex combinations of
// LMO vertices, and the vertices themselves) does better than its certified lower bound.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>

#include "engine_support.hpp"

using namespace scfw;
namespace fs = std::filesystem;

namespace {

const char* const kExamples[] = {"minimax_synthetic", "cvar_portfolio", "dro_chi2",     "fairness",
                                 "exact_penalty",     "norm_multitask", "regularized", "matrix_completion"};

Composition load(const std::string& name) {
  const fs::path file = fs::path(SCFW_SOURCE_DIR) / "examples" / (name + ".json");
  Overrides o;
  o.iterations = 40;
  o.trace = "";
  return load_problem(scfw::test::registry(), file, o);
}

}  // namespace

TEST_CASE("every example's GLMO beats 10^4 random feasible points and agrees with value()") {
  for (const char* name : kExamples) {
    CAPTURE(name);
    Composition p = load(name);
    const int n = p.problem.oracle->outputs(), d = p.problem.oracle->dim();
    std::mt19937_64 rng(17);
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> unit(0.0, 1.0);

    // Random feasible points: the LMO's answer to a random direction is a point of X (a vertex
    // for polytopes); convex combinations of a few of them stay in X.
    auto random_vertex = [&]() {
      Vec g(d), v(d);
      for (int j = 0; j < d; ++j) g[j] = normal(rng);
      scfw::test::lmo_dense(*p.problem.domain, g, v);
      return v;
    };
    std::vector<Vec> points;
    for (int i = 0; i < 10000; ++i) {
      Vec x = random_vertex();
      if (i % 2 == 1) {
        const double w = unit(rng);
        x = w * x + (1.0 - w) * random_vertex();
      }
      points.push_back(std::move(x));
    }
    points.push_back(p.problem.domain->initial_point());

    for (int trial = 0; trial < 3; ++trial) {
      CAPTURE(trial);
      Vec z(n), y = points[static_cast<size_t>(trial * 7 + 1)], x(d);
      Mat V(n, d);
      for (int i = 0; i < n; ++i) z[i] = normal(rng);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < d; ++j) V(i, j) = normal(rng);
      const GlmoResult r = p.method.glmo->solve(z, V, y, x);
      const double scale = std::max(1.0, std::abs(r.value));
      CHECK(p.problem.domain->contains(x, 1e-7));
      const Vec u = z + V * (x - y);
      CHECK(p.problem.outer->value(u, x) == doctest::Approx(r.value).epsilon(1e-7));
      CHECK(r.lower_bound <= r.value + 1e-9 * scale);
      double best = inf;
      for (const Vec& q : points) best = std::min(best, p.problem.outer->value(z + V * (q - y), q));
      CHECK(best >= r.lower_bound - 1e-7 * scale);
    }
  }
}

TEST_CASE("every example runs 40 iterations and reports a finite, non-negative gap") {
  for (const char* name : kExamples) {
    CAPTURE(name);
    Composition p = load(name);
    const auto t = scfw::test::run(p, p.options.seed, 40, 0);
    REQUIRE(t.summary.has_gap);
    CHECK(std::isfinite(t.summary.final_objective));
    // Eq. (2) is >= 0 by construction (x = y is feasible); solver tolerances allow a hair below.
    CHECK(t.summary.final_gap >= -1e-6 * std::max(1.0, std::abs(t.summary.final_objective)));
    CHECK(p.problem.domain->contains(t.summary.y, 1e-7));
  }
}
