// The `dense_simplex` GLMO (Alg. 1 line 7) against the `clp` GLMO, both loaded as real plugins,
// with `max`, `linear`, `l1_ball`, `simplex`, `box`:
//
//   * optimal values equal Clp's within 1e-9 (relative) on random instances, on degenerate ones
//     (duplicate rows of V, zero columns, z all equal, V = 0), and along a 1000-step momentum-like
//     drift V_{k+1} = (1 - b) V_k + b G_k (b = 0.01, 0.1) solved warm;
//   * the returned x lies in the domain and F(z + V (x - y)) at it is the returned value;
//   * infeasible and unbounded LPs, cones, model-less domains and max_rows, word for word;
//   * cross_check runs clean along a drift;
//   * solve() allocates nothing over 1000 warm solves (a counting malloc, as in test_momentum).
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "plugin_support.hpp"
#include "sanitizer_support.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/scfw.hpp"

using namespace scfw;
using namespace scfw::test;

#include "malloc_counter.hpp"  // g_mallocs: every malloc of the process

namespace {

std::unique_ptr<Glmo> make_clp(int d, int n) {
  return make<Glmo>("clp", {}, context(d, n));
}
std::unique_ptr<Glmo> make_dense(int d, int n, bool cross_check = false, std::int64_t max_rows = 100) {
  return make<Glmo>("dense_simplex",
                    params({{"cross_check", cross_check}, {"max_rows", max_rows}}), context(d, n));
}
// Solves with both GLMOs and checks value agreement, feasibility of x and value = F(u(x)).
void compare(Glmo& dense, Glmo& clp, const OuterFunction& outer, const Domain& domain, const Instance& in,
             long* pivots = nullptr) {
  Vec xd(domain.dim()), xc(domain.dim());
  const GlmoResult rd = dense.solve(in.z, in.V, in.y, xd);
  const GlmoResult rc = clp.solve(in.z, in.V, in.y, xc);
  CHECK(rel_diff(rd.value, rc.value) <= 1e-9);
  CHECK(rd.lower_bound == rd.value);
  CHECK(domain.contains(xd, 1e-8));
  const Vec u = in.z + in.V * (xd - in.y);
  CHECK(rel_diff(outer.value(u, xd), rd.value) <= 1e-9);
  if (pivots) *pivots += rd.iterations;
}

struct Case {
  std::string name;
  std::unique_ptr<Domain> domain;
};

std::vector<Case> domains(int d, int n) {
  std::vector<Case> cs;
  cs.push_back({"l1_ball", make_l1(d, n, 5.0)});
  cs.push_back({"simplex", make_simplex(d, n, 2.0)});
  cs.push_back({"box", make_box(d, n, {-1.0}, {2.0})});
  return cs;
}

}  // namespace

TEST_CASE("dense_simplex equals Clp on random instances (max and linear over l1_ball, simplex, box)") {
  std::mt19937_64 rng(11);
  for (const auto& dn : std::vector<std::pair<int, int>>{{5, 3}, {30, 4}, {100, 10}}) {
    const int d = dn.first, n = dn.second;  // not a structured binding: clang 14 cannot CAPTURE one
    for (auto& c : domains(d, n)) {
      for (int which = 0; which < 2; ++which) {
        CAPTURE(c.name);
        CAPTURE(d);
        CAPTURE(which);
        auto outer = which == 0 ? make_max(d, n) : make_linear(d, n, n - 1);
        auto dense = make_dense(d, n);
        auto clp = make_clp(d, n);
        dense->setup(*outer, *c.domain, n, d);
        clp->setup(*outer, *c.domain, n, d);
        // One GLMO object across unrelated instances: each solve starts from a stale basis.
        for (int t = 0; t < 25; ++t) compare(*dense, *clp, *outer, *c.domain, random_instance(*c.domain, n, rng));
      }
    }
  }
}

TEST_CASE("dense_simplex equals Clp on degenerate instances") {
  std::mt19937_64 rng(5);
  const int d = 40, n = 8;
  for (auto& c : domains(d, n)) {
    CAPTURE(c.name);
    auto outer = make_max(d, n);
    auto dense = make_dense(d, n);
    auto clp = make_clp(d, n);
    dense->setup(*outer, *c.domain, n, d);
    clp->setup(*outer, *c.domain, n, d);
    for (int trial = 0; trial < 40; ++trial) {
      CAPTURE(trial);
      Instance in = random_instance(*c.domain, n, rng);
      make_degenerate(in, trial % 5, rng);  // kinds 0-4 draw nothing from rng
      compare(*dense, *clp, *outer, *c.domain, in);
    }
  }
}

TEST_CASE("dense_simplex equals Clp along a 1000-step momentum-like drift, solved warm") {
  const int d = 100, n = 10;
  for (double b : {0.01, 0.1}) {
    for (int dom = 0; dom < 2; ++dom) {
      CAPTURE(b);
      CAPTURE(dom);
      auto domain = dom == 0 ? make_l1(d, n, 5.0) : make_simplex(d, n, 1.0);
      auto outer = make_max(d, n);
      auto dense = make_dense(d, n);
      auto clp = make_clp(d, n);
      dense->setup(*outer, *domain, n, d);
      clp->setup(*outer, *domain, n, d);
      std::mt19937_64 rng(7);
      std::normal_distribution<double> normal;
      Instance in = random_instance(*domain, n, rng);
      Mat G(n, d);
      Vec x(d), g(n);
      long pivots = 0;
      for (int k = 0; k < 1000; ++k) {
        for (int i = 0; i < n; ++i) {
          g[i] = normal(rng);
          for (int j = 0; j < d; ++j) G(i, j) = normal(rng);
        }
        in.V = (1.0 - b) * in.V + b * G;
        in.z = (1.0 - b) * in.z + b * g;
        compare(*dense, *clp, *outer, *domain, in, &pivots);
        // y moves toward the new GLMO point, as Alg. 1 line 8 does.
        dense->solve(in.z, in.V, in.y, x);
        in.y = 0.99 * in.y + 0.01 * x;
      }
      MESSAGE("drift b = " << b << (dom == 0 ? ", l1_ball" : ", simplex") << ": "
                           << static_cast<double>(pivots) / 1000.0 << " pivots per solve");
    }
  }
}

TEST_CASE("dense_simplex with cross_check runs clean along a drift and describes itself") {
  const int d = 100, n = 10;
  auto domain = make_l1(d, n, 5.0);
  auto outer = make_max(d, n);
  auto dense = make_dense(d, n, true);
  dense->setup(*outer, *domain, n, d);
  CHECK(dense->describe() ==
        "dense_simplex (bounded dual simplex, kept basis; LP 11 rows x 201 columns; cross-checked "
        "against Clp at every solve)");
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  Instance in = random_instance(*domain, n, rng);
  Vec x(d);
  for (int k = 0; k < 200; ++k) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < d; ++j) in.V(i, j) = 0.9 * in.V(i, j) + 0.1 * normal(rng);
    REQUIRE_NOTHROW(dense->solve(in.z, in.V, in.y, x));
  }
}

TEST_CASE("dense_simplex reports infeasible and unbounded LPs, cones, model-less domains and max_rows word for word") {
  const int d = 2, n = 2;
  auto domain = make_box(d, n, {-1.0}, {1.0});
  const Vec z = Vec::Zero(n), y = Vec::Zero(d);
  const Mat V = Mat::Ones(n, d);
  Vec x(d);
  for (auto kind : {BrokenLpOuter::Kind::Unbounded, BrokenLpOuter::Kind::UnboundedRay}) {
    BrokenLpOuter outer(kind);
    auto glmo = make_dense(d, n);
    glmo->setup(outer, *domain, n, d);
    CHECK_THROWS_WITH_AS(glmo->solve(z, V, y, x), "dense_simplex: the GLMO LP is unbounded", Error);
    auto clp = make_clp(d, n);
    clp->setup(outer, *domain, n, d);
    CHECK_THROWS_WITH_AS(clp->solve(z, V, y, x), "clp: the GLMO LP is unbounded", Error);
  }
  {
    BrokenLpOuter outer(BrokenLpOuter::Kind::Infeasible);
    auto glmo = make_dense(d, n);
    glmo->setup(outer, *domain, n, d);
    CHECK_THROWS_WITH_AS(glmo->solve(z, V, y, x), "dense_simplex: the GLMO LP is infeasible; over a nonempty domain, with an outer model feasible for every u (every "
                         "shipped outer function's is), this is a numerical failure; hint: scale the data so that f and its "
                         "Jacobian are of moderate size, or shrink the domain", Error);
    // And again from the basis the failed solve left behind.
    CHECK_THROWS_WITH_AS(glmo->solve(z, V, y, x), "dense_simplex: the GLMO LP is infeasible; over a nonempty domain, with an outer model feasible for every u (every "
                         "shipped outer function's is), this is a numerical failure; hint: scale the data so that f and its "
                         "Jacobian are of moderate size, or shrink the domain", Error);
  }
  {
    BrokenLpOuter outer(BrokenLpOuter::Kind::Cone);
    auto glmo = make_dense(d, n);
    CHECK_THROWS_WITH_AS(glmo->setup(outer, *domain, n, d),
                         "dense_simplex: the model has second-order cones, which this LP solver does not "
                         "handle; use the clp GLMO",
                         CapabilityError);
  }
  CHECK(lmo_only_refusal(*make_dense(d, n), n) ==
        "dense_simplex: the domain has no LP model (it is known only through its LMO); the dense_simplex GLMO needs "
        "the domain's model");
  {
    auto outer = make_max(d, n);
    auto glmo = make_dense(d, n, false, 1);  // box + max: the 2 epigraph rows
    CHECK_THROWS_WITH_AS(glmo->setup(*outer, *domain, n, d),
                         "dense_simplex: the GLMO LP has 2 rows, more than max_rows = 1", CapabilityError);
  }
  {
    // Too wide: the structural columns here are the box's d coordinates and the epigraph t.
    auto outer = make_max(d, n);
    auto glmo = make<Glmo>("dense_simplex", params({{"max_columns", std::int64_t{2}}}), context(d, n));
    const std::string expected =
        "dense_simplex: the GLMO LP has " + std::to_string(d + 1) + " columns, more than max_columns = 2";
    CHECK_THROWS_WITH_AS(glmo->setup(*outer, *domain, n, d), expected.c_str(), CapabilityError);
  }
}

TEST_CASE("the GLMOs' shared setup and solve() checks (plugins/lp) name each plugin, word for word") {
  const int d = 2, n = 2;
  auto domain = make_box(d, n, {-1.0}, {1.0});
  auto outer = make_max(d, n);
  const Vec z = Vec::Zero(n), y = Vec::Zero(d), y3 = Vec::Zero(3);
  const Mat V = Mat::Ones(n, d);
  Vec x(d);
  for (const std::string name : {"clp", "dense_simplex", "column_generation"}) {
    auto glmo = make<Glmo>(name, {}, context(d, n));
    if (name != "column_generation")  // it checks n and d in its own words
      CHECK_THROWS_WITH_AS(glmo->setup(*outer, *domain, 0, d),
                           (name + ": the GLMO needs n >= 1 and d >= 1, got n = 0, d = 2").c_str(), Error);
    glmo->setup(*outer, *domain, n, d);
    CHECK_THROWS_WITH_AS(glmo->solve(z, V, y3, x),
                         (name + ": solve() got z, V, y of sizes 2, 2x2, 3; set up for n = 2, d = 2").c_str(),
                         Error);
  }
}

// supports() answers before setup() what setup() would find: false exactly when setup() throws
// CapabilityError, with that exception's words as the reason (the host quotes them in the run
// summary when it picks another solver).
TEST_CASE("Glmo::supports agrees with setup(): same verdict, same words") {
  const int d = 2, n = 2;
  auto box = make_box(d, n, {-1.0}, {1.0});
  auto max_outer = make_max(d, n);
  BrokenLpOuter cone(BrokenLpOuter::Kind::Cone);
  LmoOnlyDomain lmo_only;
  auto l2 = make<OuterFunction>("norm", params({{"p", "2"}}), context(d, n));
  struct Case {
    std::string label;
    std::function<std::unique_ptr<Glmo>()> glmo;
    const OuterFunction* outer;
    const Domain* domain;
  };
  const std::vector<Case> cases = {
      {"dense_simplex, box + max", [&] { return make_dense(d, n); }, max_outer.get(), box.get()},
      {"dense_simplex, cones", [&] { return make_dense(d, n); }, &cone, box.get()},
      {"dense_simplex, no LP model", [&] { return make_dense(d, n); }, max_outer.get(), &lmo_only},
      {"dense_simplex, max_rows = 1", [&] { return make_dense(d, n, false, 1); }, max_outer.get(), box.get()},
      {"dense_simplex, max_columns = 2",
       [&] { return make<Glmo>("dense_simplex", params({{"max_columns", 2}}), context(d, n)); }, max_outer.get(),
       box.get()},
      {"clp, box + max", [&] { return make_clp(d, n); }, max_outer.get(), box.get()},
      {"clp, cones", [&] { return make_clp(d, n); }, &cone, box.get()},
      {"clp, no LP model", [&] { return make_clp(d, n); }, max_outer.get(), &lmo_only},
      {"column_generation, no LP model", [&] { return make<Glmo>("column_generation", {}, context(d, n)); },
       max_outer.get(), &lmo_only},
      {"column_generation, cones", [&] { return make<Glmo>("column_generation", {}, context(d, n)); }, l2.get(),
       &lmo_only},
  };
  int declined = 0;
  for (const Case& c : cases) {
    CAPTURE(c.label);
    std::string why = "untouched";
    const bool ok = c.glmo()->supports(*c.outer, *c.domain, n, d, &why);
    std::string thrown;
    try {
      c.glmo()->setup(*c.outer, *c.domain, n, d);
    } catch (const CapabilityError& e) {
      thrown = e.what();
    }
    CHECK(ok == thrown.empty());
    CHECK(why == (ok ? std::string("untouched") : thrown));
    CHECK(c.glmo()->supports(*c.outer, *c.domain, n, d, nullptr) == ok);  // no reason asked for
    declined += ok ? 0 : 1;
  }
  CHECK(declined == 6);  // all but box + max (twice), clp with cones, column_generation over the disc
}

TEST_CASE("dense_simplex solve() allocates nothing over 1000 warm solves") {
  check_task1_warm_solves_allocate_nothing("dense_simplex", 0.01, [] { return g_mallocs.load(); });
}
