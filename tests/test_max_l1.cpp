// The `max_l1` GLMO (max_i u_i over the l1 ball by a revised simplex on the (n + 1)-row LP, kept
// basis) against cold Clp solves and dense_simplex, all loaded as real plugins:
//
//   * optimal values equal Clp's and dense_simplex's within 1e-9 (relative) on random instances
//     of several sizes, on degenerate and tied ones (make_degenerate's kinds: duplicate rows, zero
//     columns, V = 0, rank-one V, integer data; and columns equal up to sign), and along 3000-step momentum-like drifts of Task 1's size, solved warm;
//   * the returned x lies in the ball and F(z + V (x - y)) at it is the returned value;
//   * supports() and setup() decline what is not max over the l1 ball, word for word;
//   * solve() allocates nothing over 1000 warm solves; the saved basis resumes bitwise;
//   * in a problem file: a Task 1 run ends where dense_simplex's does, bad arguments and another
//     domain are refused word for word.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine_support.hpp"
#include "plugin_support.hpp"
#include "sanitizer_support.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/scfw.hpp"

using namespace scfw;
using namespace scfw::test;

#include "malloc_counter.hpp"  // g_mallocs: every malloc of the process

namespace {

std::unique_ptr<Glmo> make_fast(int d, int n) { return make<Glmo>("max_l1", {}, context(d, n)); }
std::unique_ptr<Glmo> make_cold_clp(int d, int n) {
  return make<Glmo>("clp", params({{"warm_start", false}}), context(d, n));
}

long g_clp_unverified = 0;  // Clp solves whose value its own x does not reach within 1e-9

// One solve by `fast` and by each reference; checks value agreement, x in the ball, value = F at
// x. Returns the largest relative difference of the optimal values. Clp works to its own primal
// tolerance (1e-7): where F at Clp's x is not Clp's value within 1e-9, that value is not a
// reference; the fact checked then is that max_l1's value is no worse than F at Clp's x (and it
// still equals dense_simplex's, the other reference).
double compare(Glmo& fast, std::initializer_list<Glmo*> refs, const Domain& domain, const Instance& in,
               long* pivots = nullptr) {
  Vec xf(domain.dim()), xr(domain.dim());
  const GlmoResult rf = fast.solve(in.z, in.V, in.y, xf);
  double worst = 0.0;
  for (Glmo* ref : refs) {
    const GlmoResult rr = ref->solve(in.z, in.V, in.y, xr);
    const double at_xr = (in.z + in.V * (xr - in.y)).maxCoeff();
    if (ref->describe().rfind("clp", 0) == 0 && rel_diff(at_xr, rr.value) > 1e-9) {
      ++g_clp_unverified;
      CHECK(rf.value <= at_xr + 1e-9 * std::max(1.0, std::abs(at_xr)));
      continue;
    }
    const double diff = rel_diff(rf.value, rr.value);
    CHECK(diff <= 1e-9);
    worst = std::max(worst, diff);
  }
  CHECK(domain.contains(xf, 1e-9));
  const Vec u = in.z + in.V * (xf - in.y);
  CHECK(rel_diff(u.maxCoeff(), rf.value) <= 1e-12);
  if (pivots) *pivots += rf.iterations;
  return worst;
}

struct Size {
  int n, d;
  double radius;
};
const Size kSizes[] = {{10, 100, 5.0}, {1, 4, 1.0}, {3, 7, 2.0}, {20, 30, 0.5}, {40, 12, 3.0}};

/// max_l1 and its references over max_i u_i and the l1 ball of size `s`, all set up: `clp`
/// (the warm clp GLMO, or cold Clp solves) and dense_simplex.
struct Set {
  std::unique_ptr<OuterFunction> outer;
  std::unique_ptr<Domain> domain;
  std::unique_ptr<Glmo> fast, clp, dense;
};
Set set_up(const Size& s, bool cold_clp) {
  Set g{make_max(s.d, s.n), make_l1(s.d, s.n, s.radius), make_fast(s.d, s.n),
        cold_clp ? make_cold_clp(s.d, s.n) : make<Glmo>("clp", {}, context(s.d, s.n)),
        make<Glmo>("dense_simplex", {}, context(s.d, s.n))};
  for (Glmo* glmo : {g.fast.get(), g.clp.get(), g.dense.get()}) glmo->setup(*g.outer, *g.domain, s.n, s.d);
  return g;
}

}  // namespace

TEST_CASE("max_l1 equals cold Clp and dense_simplex on random instances") {
  for (const Size& s : kSizes) {
    CAPTURE(s.n);
    CAPTURE(s.d);
    const Set g = set_up(s, true);
    std::mt19937_64 rng(11);
    for (int k = 0; k < 60; ++k) {
      const Instance in = random_instance(*g.domain, s.n, rng, k % 2 == 1);
      compare(*g.fast, {g.clp.get(), g.dense.get()}, *g.domain, in);
    }
  }
}

TEST_CASE("max_l1 equals Clp and dense_simplex on degenerate and tied instances") {
  // Clp solved cold asserts on the explicit zeros V = 0 leaves in its matrix; the warm clp GLMO
  // is the reference here, with dense_simplex.
  for (const Size& s : kSizes) {
    CAPTURE(s.n);
    CAPTURE(s.d);
    const Set g = set_up(s, false);
    std::mt19937_64 rng(5);
    for (int k = 0; k < 12; ++k)
      for (int kind = 0; kind <= 6; ++kind) {  // make_degenerate's six kinds, then equal columns
        CAPTURE(kind);
        Instance in = random_instance(*g.domain, s.n, rng);
        if (kind < 6)
          make_degenerate(in, kind, rng);
        else  // equal columns of V up to sign
          for (int j = 1; j < s.d; j += 2) in.V.col(j) = (j % 4 == 1 ? -1.0 : 1.0) * in.V.col(j - 1);
        compare(*g.fast, {g.clp.get(), g.dense.get()}, *g.domain, in);
      }
  }
}

TEST_CASE("max_l1 equals cold Clp and dense_simplex along 3000-step momentum-like drifts, solved warm") {
  // Task 1's size (n = 10, d = 100, radius 5) and a small one; every 50th step rounds V and z to
  // multiples of 1/4 (ties between rows and between coordinates) and starts from there.
  for (const Size& s : {Size{10, 100, 5.0}, Size{4, 9, 1.5}}) {
    for (double b : {0.01, 0.1}) {
      CAPTURE(s.n);
      CAPTURE(b);
      const Set set = set_up(s, true);
      Glmo& fast = *set.fast;
      const Domain& domain = *set.domain;
      std::mt19937_64 rng(7);
      std::normal_distribution<double> normal;
      Instance in = random_instance(domain, s.n, rng);
      Vec x(s.d);
      long pivots = 0;
      double worst = 0.0;
      const int steps = b == 0.01 ? 3000 : 500;
      for (int k = 0; k < steps; ++k) {
        for (int i = 0; i < s.n; ++i) {
          in.z[i] = (1.0 - b) * in.z[i] + b * normal(rng);
          for (int j = 0; j < s.d; ++j) in.V(i, j) = (1.0 - b) * in.V(i, j) + b * normal(rng);
        }
        if (k % 50 == 49) {
          in.V = (4.0 * in.V).array().round() / 4.0;
          in.z = (4.0 * in.z).array().round() / 4.0;
        }
        // Cold Clp asserts on explicit zeros: compare with dense_simplex alone when V has one.
        if ((in.V.array() == 0.0).any()) worst = std::max(worst, compare(fast, {set.dense.get()}, domain, in, &pivots));
        else worst = std::max(worst, compare(fast, {set.clp.get(), set.dense.get()}, domain, in, &pivots));
        const GlmoResult r = fast.solve(in.z, in.V, in.y, x);
        CHECK(r.iterations == 0);  // the same LP again: the kept basis is optimal at once
        in.y = (1.0 - b) * in.y + b * x;
      }
      MESSAGE(fast.describe());
      MESSAGE(g_clp_unverified << " Clp value(s) so far not reached by Clp's own x");
      MESSAGE("n = " << s.n << ", d = " << s.d << ", drift b = " << b << ": " << static_cast<double>(pivots) / steps
                     << " pivots per solve, largest relative difference " << worst);
    }
  }
}

TEST_CASE("max_l1 declines what is not max over the l1 ball, word for word") {
  const int d = 6, n = 3;
  auto fast = make_fast(d, n);
  auto max = make_max(d, n);
  auto l1 = make_l1(d, n, 2.0);
  std::string why;
  CHECK(fast->supports(*max, *l1, n, d, &why));
  CHECK(why.empty());
  fast->setup(*max, *l1, n, d);
  CHECK(fast->describe() == "max_l1 (revised simplex on max_i u_i over the l1 ball, kept basis; LP 4 rows x 16 columns and t)");

  auto simplex = make_simplex(d, n, 1.0);
  CHECK_FALSE(fast->supports(*max, *simplex, n, d, &why));
  CHECK(why == "max_l1: the GLMO LP is not max_i u_i over the l1 ball: the model has 10 variables, not 2 d + n + 1 = 16 "
               "(F is not max_i u_i, or X is not the l1 ball)");
  CHECK_THROWS_WITH_AS(fast->setup(*max, *simplex, n, d), why.c_str(), CapabilityError);

  auto linear = make_linear(d, n, 1);
  CHECK_FALSE(fast->supports(*linear, *l1, n, d, &why));
  CHECK(why == "max_l1: the GLMO LP is not max_i u_i over the l1 ball: the model has 15 variables, not 2 d + n + 1 = 16 "
               "(F is not max_i u_i, or X is not the l1 ball)");

  LmoOnlyDomain disc;
  CHECK_FALSE(fast->supports(*make_max(2, n), disc, n, 2, &why));
  CHECK(why == "max_l1: the domain has no LP model (X is not the l1 ball)");

  auto narrow = make<Glmo>("max_l1", params({{"max_outputs", 2}}), context(d, n));
  CHECK_FALSE(narrow->supports(*max, *l1, n, d, &why));
  CHECK(why == "max_l1: 3 outputs, more than max_outputs = 2 (the basis matrix is (n + 1) x (n + 1), factorized at "
               "least once per solve)");
}

TEST_CASE("max_l1 solve() allocates nothing over 1000 warm solves") {
  const auto pivots = check_task1_warm_solves_allocate_nothing("max_l1", 0.05, [] { return g_mallocs.load(); });
  if (pivots) CHECK(*pivots > 0);
}

TEST_CASE("max_l1's saved state resumes bitwise: 10 solves, save, a fresh GLMO loads it, 10 more") {
  const int d = 100, n = 10;
  auto domain = make_l1(d, n, 5.0);
  auto outer = make_max(d, n);
  check_resumes_bitwise([&] { return make_fast(d, n); }, "max_l1", *outer, *domain, n);
  // A basis that does not fit is refused with its reason.
  auto other = make_fast(d, n);
  other->setup(*outer, *domain, n, d);
  StateWriter bad;
  bad.put("head", std::vector<int>{0, 1, 2});
  bad.put("solves", std::int64_t{0});
  bad.put("cold", std::int64_t{0});
  StateReader rb(bad.text(), "max_l1");
  CHECK_THROWS_WITH(other->load_state(rb), "max_l1: block head: the saved basis does not fit this LP (3 basic columns for 11 rows)");
}

TEST_CASE("max_l1 in a problem file: a Task 1 run ends where dense_simplex's does; refusals word for word") {
  nlohmann::json doc = task1(400, 1, "taylor", {{"plugin", "nonconvex"}, {"r", 2}}, 4, 30, 50);
  std::vector<double> objective, gap;
  for (const char* glmo : {"dense_simplex", "max_l1"}) {
    doc["glmo"] = {{"plugin", glmo}};
    Composition p = make(doc);
    const Trajectory t = run(p, 3, 400, 100);
    objective.push_back(t.summary.final_objective);
    gap.push_back(t.summary.final_gap);
  }
  CHECK(rel_diff(objective[1], objective[0]) <= 1e-12);
  CHECK(rel_diff(gap[1], gap[0]) <= 1e-9);
  MESSAGE("phi(y_K) " << objective[1] << " against " << objective[0] << " (relative difference "
                      << rel_diff(objective[1], objective[0]) << "), final gap " << rel_diff(gap[1], gap[0]) << " apart");

  doc["glmo"] = {{"plugin", "max_l1"}};
  doc["domain"] = {{"plugin", "simplex"}};
  CHECK_THROWS_WITH_AS(make(doc),
                       "test.json: /glmo: max_l1: the GLMO LP is not max_i u_i over the l1 ball: the model has 35 "
                       "variables, not 2 d + n + 1 = 65 (F is not max_i u_i, or X is not the l1 ball)",
                       InputError);

  auto outer = make_max(3, 2);
  auto l1 = make_l1(3, 2, 1.0);
  auto fast = make_fast(3, 2);
  Vec x(3);
  CHECK_THROWS_WITH(fast->solve(Vec::Zero(2), Jacobian(Mat::Zero(2, 3)), Vec::Zero(3), x),
                    "max_l1: solve() called before setup()");
  fast->setup(*outer, *l1, 2, 3);
  Mat V = Mat::Ones(2, 3);
  V(1, 2) = std::nan("");
  CHECK_THROWS_WITH(fast->solve(Vec::Zero(2), Jacobian(V), Vec::Zero(3), x),
                    "max_l1: solve() got V[1,2] = nan; LP entries must be finite and at most 1e+20 in magnitude");
  CHECK_THROWS_WITH(fast->solve(Vec::Zero(3), Jacobian(Mat::Ones(2, 3)), Vec::Zero(3), x),
                    "max_l1: solve() got z, V, y of sizes 3, 2x3, 3; set up for n = 2, d = 3");
}
