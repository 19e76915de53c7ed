// column_generation's stabilised pricing (in-out separation, the stability centre carried across
// solves), loaded as a real plugin:
//   * every solve's certified lower bound is a true lower bound: it never exceeds F at the x of an
//     independent high-accuracy solve (plain Kelley column generation, cold, tolerance 1e-11, which
//     certifies about 1e-10 before it stalls on a repeated atom;
//     F recomputed here from x; x checked inside the domain) or of the exact `clp` LP, and the
//     solve's own value is F at its x and within its tolerance of its bound; on the nuclear ball
//     with a dense V (dense atoms), with a sparse V (compact rank-one atoms), and on a master with
//     x-rows (cvar_ru over simplex_interval);
//   * the LMO calls of a fixed small instance (Task 3 synthetic, 30 x 20, 20 groups, along the
//     GLMO's own Variant I trajectory, tolerance 1e-3) stay below a stated figure;
//   * a state saved mid-trajectory and loaded into a fresh instance continues bit for bit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "counting_domain.hpp"
#include "plugin_support.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/scfw.hpp"
#include "scfw/state.hpp"

using namespace scfw;
using namespace scfw::test;

namespace {

Block block(nlohmann::json values) { return params(std::move(values), "problem.json", "/block"); }

std::unique_ptr<Glmo> reference_cg(int d, int n) {
  return make<Glmo>("column_generation",
                    block({{"tolerance", 1e-11}, {"smoothing", 0.0}, {"carry_center", false}, {"warm_start", false},
                           {"max_rounds", std::int64_t{100000}}, {"max_atoms", std::int64_t{100000}}}),
                    context(d, n));
}

// The GLMO's objective F(z + V (x - y), x), recomputed from x.
double objective(const OuterFunction& F, const Vec& z, const Jacobian& V, const Vec& y, const Vec& x) {
  Vec u(z.size());
  V.multiply(x - y, u);
  u += z;
  return F.value(u, x);
}

// Task 3 synthetic (bench_cg's instance): 30 x 20, rank 5, 30% observed, 20 groups, batch 1.
struct Task3 {
  static constexpr int rows = 30, cols = 20, d = rows * cols, n = 20;
  std::unique_ptr<Oracle> oracle;
  std::unique_ptr<Domain> ball;
  std::unique_ptr<OuterFunction> l1;
  explicit Task3(const std::string& jacobian) {
    oracle = make<Oracle>("matrix_completion",
                          block({{"groups", n},
                                 {"batch", 1},
                                 {"jacobian", jacobian},
                                 {"synthetic", {{"rows", rows}, {"cols", cols}, {"rank", 5}, {"density", 0.3}, {"noise", 0.3}}}}),
                          context(d, n));
    ball = make<Domain>("nuclear_ball", block({{"radius", 5.0}, {"rows", rows}, {"cols", cols}}), context(d, n));
    l1 = make<OuterFunction>("norm", block({{"p", std::string("1")}}), context(d, n));
  }
};

// Steps of a Variant I trajectory (Polyak momentum on f and J, beta = K^-1/2, gamma = K^-3/4,
// K = 1000) with `glmo` as the GLMO; `each(k, z, V, y, x, result)` after each solve.
template <class Each>
void trajectory(Task3& t, Glmo& glmo, int steps, Each each) {
  const double beta = std::pow(1000.0, -0.5), gamma = std::pow(1000.0, -0.75);
  Rng rng(1);
  auto sample = t.oracle->make_sample();
  Vec y = t.ball->initial_point(), x(Task3::d), f(Task3::n), z(Task3::n);
  Jacobian J = make_jacobian(*t.oracle), V = make_jacobian(*t.oracle);
  t.oracle->draw(rng, *sample);
  t.oracle->evaluate(*sample, y, &z, &V);
  for (int k = 0; k < steps; ++k) {
    const GlmoResult r = glmo.solve(z, V, y, x);
    each(k, z, V, y, x, r);
    y += gamma * (x - y);
    t.oracle->draw(rng, *sample);
    t.oracle->evaluate(*sample, y, &f, &J);
    z = (1 - beta) * z + beta * f;
    V.values() = (1 - beta) * V.values() + beta * J.values();
  }
}

}  // namespace

TEST_CASE("column_generation, stabilised: every certified bound is below an independent solve's value") {
  for (const std::string jacobian : {"dense", "sparse"}) {
    for (const double tol : {1e-3, 1e-6}) {
      CAPTURE(jacobian);
      CAPTURE(tol);
      Task3 t(jacobian);
      auto cg = make<Glmo>("column_generation", block({{"tolerance", tol}}), context(Task3::d, Task3::n));
      auto ref = reference_cg(Task3::d, Task3::n);
      cg->setup(*t.l1, *t.ball, Task3::n, Task3::d);
      ref->setup(*t.l1, *t.ball, Task3::n, Task3::d);
      if (jacobian == "sparse") CHECK(cg->describe().find("compact atoms") == std::string::npos);  // decided at the first solve
      trajectory(t, *cg, 40, [&](int k, const Vec& z, const Jacobian& V, const Vec& y, const Vec& x, const GlmoResult& r) {
        if (k % 4 != 0) return;  // the reference is slow; every fourth solve
        CAPTURE(k);
        Vec xr;
        const GlmoResult e = ref->solve(z, V, y, xr);
        const double fr = objective(*t.l1, z, V, y, xr), fx = objective(*t.l1, z, V, y, x);
        const double scale = std::max(1.0, std::abs(fr));
        CHECK(t.ball->contains(xr, 1e-9));
        CHECK(t.ball->contains(x, 1e-9));
        CHECK(std::abs(e.value - fr) <= 1e-10 * scale);
        CHECK(e.value - e.lower_bound <= 2e-9 * scale);  // it stalls (a repeated atom) near 1e-10
        // the stabilised solve: its bound below F at the reference's x, its value F at its own x,
        // certified within its tolerance
        CHECK(r.lower_bound <= fr + 1e-12 * scale);
        CHECK(std::abs(r.value - fx) <= 1e-10 * scale);
        CHECK(r.value - r.lower_bound <= tol * std::max(1.0, std::abs(r.value)));
        CHECK(fx >= e.lower_bound - 1e-12 * scale);
      });
      if (jacobian == "sparse") CHECK(cg->describe().find("compact atoms") != std::string::npos);
    }
  }
}

TEST_CASE("column_generation, stabilised: with x-rows (cvar_ru over simplex_interval) the bound is below the exact LP") {
  std::mt19937_64 rng(29);
  std::normal_distribution<double> normal;
  const int d = 8, n = 6;
  auto dom = make<Domain>("simplex_interval", {}, context(d, n));
  auto cvar = make<OuterFunction>("cvar_ru", block({{"alpha", 0.8}}), context(d, n));
  for (const double tol : {1e-3, 1e-7}) {
    CAPTURE(tol);
    auto cg = make<Glmo>("column_generation", block({{"tolerance", tol}}), context(d, n));
    auto clp = make<Glmo>("clp", {}, context(d, n));
    cg->setup(*cvar, *dom, n, d);
    clp->setup(*cvar, *dom, n, d);
    Instance in = random_instance(*dom, n, rng, /*gaussian_z=*/true);
    for (int k = 0; k < 15; ++k) {
      CAPTURE(k);
      Vec x1, x2;
      const Jacobian V(in.V);
      const GlmoResult a = cg->solve(in.z, V, in.y, x1), b = clp->solve(in.z, V, in.y, x2);
      const double exact = objective(*cvar, in.z, V, in.y, x2), scale = std::max(1.0, std::abs(exact));
      CHECK(dom->contains(x1, 1e-9));
      CHECK(dom->contains(x2, 1e-9));
      CHECK(std::abs(b.value - exact) <= 1e-9 * scale);
      CHECK(a.lower_bound <= exact + 1e-10 * scale);
      CHECK(std::abs(a.value - objective(*cvar, in.z, V, in.y, x1)) <= 1e-10 * scale);
      CHECK(a.value - a.lower_bound <= tol * std::max(1.0, std::abs(a.value)));
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < d; ++j) in.V(i, j) += 0.05 * normal(rng);
      for (int i = 0; i < n; ++i) in.z[i] += 0.05 * normal(rng);
    }
  }
}

TEST_CASE("column_generation, stabilised: LMO calls on Task 3 synthetic at tolerance 1e-3") {
  // 60 solves along the GLMO's own trajectory. Before the in-out separation (two LMO calls a
  // round: at the master's duals, where the bound was taken, and at a Wentges-smoothed point) the
  // same count was 1704 with a dense V and 1688 with a sparse one (median 25 a solve, p90 47 and
  // 43); with it, 677 and 685 (median 10 and 11, p90 17 and 18). The figures below hold the gain.
  for (const std::string jacobian : {"dense", "sparse"}) {
    CAPTURE(jacobian);
    Task3 t(jacobian);
    CountingDomain counting(*t.ball);
    auto cg = make<Glmo>("column_generation", block({{"tolerance", 1e-3}}), context(Task3::d, Task3::n));
    cg->setup(*t.l1, counting, Task3::n, Task3::d);
    std::vector<long> per_solve;
    trajectory(t, *cg, 60, [&](int, const Vec&, const Jacobian&, const Vec&, const Vec&, const GlmoResult& r) {
      per_solve.push_back(counting.calls);
      CHECK(r.value - r.lower_bound <= 1e-3 * std::max(1.0, std::abs(r.value)));
    });
    for (size_t k = per_solve.size() - 1; k > 0; --k) per_solve[k] -= per_solve[k - 1];
    long total = 0;
    for (long c : per_solve) total += c;
    std::sort(per_solve.begin(), per_solve.end());
    MESSAGE("LMO calls: total " << total << ", median " << per_solve[30] << ", p90 " << per_solve[54]);
    CHECK(total <= 800);
    CHECK(per_solve[30] <= 12);
  }
}

TEST_CASE("column_generation, stabilised: a state saved mid-trajectory continues bit for bit") {
  for (const std::string jacobian : {"dense", "sparse"}) {
    CAPTURE(jacobian);
    Task3 t(jacobian);
    auto whole = make<Glmo>("column_generation", block({{"tolerance", 1e-3}}), context(Task3::d, Task3::n));
    whole->setup(*t.l1, *t.ball, Task3::n, Task3::d);
    // The trajectory's inputs, recorded from the uninterrupted run.
    std::vector<Vec> zs, ys, xs;
    std::vector<Jacobian> Vs;
    std::vector<GlmoResult> rs;
    trajectory(t, *whole, 30, [&](int, const Vec& z, const Jacobian& V, const Vec& y, const Vec& x, const GlmoResult& r) {
      zs.push_back(z);
      Vs.push_back(V);
      ys.push_back(y);
      xs.push_back(x);
      rs.push_back(r);
    });
    // A second instance over the same inputs to solve 15, saved; the nuclear ball's Lanczos start
    // saved with it; both loaded into fresh instances that solve the rest.
    Task3 t2(jacobian);
    auto first = make<Glmo>("column_generation", block({{"tolerance", 1e-3}}), context(Task3::d, Task3::n));
    first->setup(*t2.l1, *t2.ball, Task3::n, Task3::d);
    Vec x;
    for (int k = 0; k < 15; ++k) first->solve(zs[k], Vs[k], ys[k], x);
    StateWriter w, wd;
    first->save_state(w);
    t2.ball->save_state(wd);
    Task3 t3(jacobian);
    auto second = make<Glmo>("column_generation", block({{"tolerance", 1e-3}}), context(Task3::d, Task3::n));
    second->setup(*t3.l1, *t3.ball, Task3::n, Task3::d);
    StateReader r(w.text(), "column_generation"), rd(wd.text(), "nuclear_ball");
    second->load_state(r);
    t3.ball->load_state(rd);
    for (int k = 15; k < 30; ++k) {
      CAPTURE(k);
      const GlmoResult res = second->solve(zs[k], Vs[k], ys[k], x);
      CHECK(res.value == rs[k].value);
      CHECK(res.lower_bound == rs[k].lower_bound);
      CHECK(res.iterations == rs[k].iterations);
      CHECK(x == xs[k]);
    }
  }
}
