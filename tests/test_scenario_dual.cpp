// The `scenario_dual` GLMO (many-row LPs solved through their dual, warm) against cold Clp solves
// of the same LP (the `clp` GLMO with warm_start false), both loaded as real plugins:
//
//   * optimal values equal Clp's within 1e-9 (relative) on random instances of cvar_ru over
//     simplex_interval and max over l1_ball / box with many outputs, on degenerate ones (V = 0,
//     duplicate rows of V, zero columns, z all equal), and along 3000-step momentum-like drifts
//     solved warm (400 steps under the sanitizers);
//   * the returned x lies in the domain and F(z + V (x - y), x) at it is the returned value;
//   * supports() declines LPs with few rows per structural column, word for word;
//   * solve() allocates nothing over 1000 warm solves;
//   * the pivot row over the nonzeros of rho (pivot_row.hpp) has the bits of Eigen's full product.
#include <doctest/doctest.h>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
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
#include "../plugins/glmo/scenario_dual/pivot_row.hpp"

namespace {

std::unique_ptr<Glmo> make_cold_clp(int d, int n) {
  return make<Glmo>("clp", params({{"warm_start", false}}), context(d, n));
}
std::unique_ptr<Glmo> make_dual(int d, int n) { return make<Glmo>("scenario_dual", {}, context(d, n)); }
// The primal simplex alone: the fallback of the dual one, tested on its own.
std::unique_ptr<Glmo> make_primal(int d, int n) {
  return make<Glmo>("scenario_dual", params({{"algorithm", "primal"}}), context(d, n));
}
std::unique_ptr<OuterFunction> make_cvar(int d, int n) {
  return make<OuterFunction>("cvar_ru", params({{"alpha", 0.95}}), context(d, n));
}
std::unique_ptr<Domain> make_simplex_interval(int d, int n) {
  return make<Domain>("simplex_interval", params({{"dim", d}}), context(d, n));
}

// One solve by both; checks value agreement, x in the domain, value = F(u(x), x). Returns the
// relative difference of the optimal values.
double compare(Glmo& dual, Glmo& clp, const OuterFunction& outer, const Domain& domain, const Instance& in,
               long* pivots = nullptr) {
  Vec xd(domain.dim()), xc(domain.dim());
  const GlmoResult rd = dual.solve(in.z, in.V, in.y, xd);
  const GlmoResult rc = clp.solve(in.z, in.V, in.y, xc);
  const double diff = rel_diff(rd.value, rc.value);
  CHECK(diff <= 1e-9);
  CHECK(domain.contains(xd, 1e-8));
  const Vec u = in.z + in.V * (xd - in.y);
  CHECK(rel_diff(outer.value(u, xd), rd.value) <= 1e-9);
  if (pivots) *pivots += rd.iterations;
  return diff;
}

struct Case {
  std::string name;
  std::unique_ptr<OuterFunction> outer;
  std::unique_ptr<Domain> domain;
  int n, d;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"cvar_ru over simplex_interval, n = 200, d = 11", make_cvar(11, 200), make_simplex_interval(11, 200), 200, 11});
  c.push_back({"cvar_ru over simplex_interval, n = 60, d = 26", make_cvar(26, 60), make_simplex_interval(26, 60), 60, 26});
  c.push_back({"max over l1_ball, n = 80, d = 8", make_max(8, 80), make_l1(8, 80, 2.0), 80, 8});
  c.push_back({"max over box, n = 50, d = 5", make_max(5, 50),
               make_box(5, 50, {-1.0, -2.0, 0.0, -1.0, -0.5}, {1.0, 0.5, 3.0, 1.0, 0.5}), 50, 5});
  return c;
}

/// `glmo` (not yet set up) against cold Clp on 40 random instances of `c` (seed 11, every other
/// one with a Gaussian z).
void compare_on_random_instances(Glmo& glmo, Case& c) {
  auto clp = make_cold_clp(c.d, c.n);
  glmo.setup(*c.outer, *c.domain, c.n, c.d);
  clp->setup(*c.outer, *c.domain, c.n, c.d);
  std::mt19937_64 rng(11);
  for (int k = 0; k < 40; ++k) {
    const Instance in = random_instance(*c.domain, c.n, rng, k % 2 == 1);
    compare(glmo, *clp, *c.outer, *c.domain, in);
  }
}

}  // namespace

TEST_CASE("scenario_dual equals cold Clp on random instances, dual and primal simplex") {
  for (Case& c : cases()) for (const bool primal : {false, true}) {
    CAPTURE(c.name);
    CAPTURE(primal);
    auto dual = primal ? make_primal(c.d, c.n) : make_dual(c.d, c.n);
    compare_on_random_instances(*dual, c);
  }
}

TEST_CASE("scenario_dual with \"kernels\": \"native\" equals cold Clp on random instances") {
  // AVX2 + FMA when this CPU has them (the describe() line says which ran); the portable default
  // is checked by the test above.
  for (Case& c : cases()) {
    CAPTURE(c.name);
    auto dual = make<Glmo>("scenario_dual", params({{"kernels", "native"}}), context(c.d, c.n));
    compare_on_random_instances(*dual, c);
    MESSAGE(dual->describe());
  }
}

TEST_CASE("scenario_dual equals Clp on degenerate instances, dual and primal simplex") {
  // Clp solved cold asserts on the explicit zero elements V = 0 leaves in its matrix
  // (ClpPackedMatrix.cpp: `elValue`); the warm clp GLMO is the reference here.
  for (Case& c : cases()) for (const bool primal : {false, true}) {
    CAPTURE(c.name);
    CAPTURE(primal);
    auto dual = primal ? make_primal(c.d, c.n) : make_dual(c.d, c.n);
    auto clp = make<Glmo>("clp", {}, context(c.d, c.n));
    dual->setup(*c.outer, *c.domain, c.n, c.d);
    clp->setup(*c.outer, *c.domain, c.n, c.d);
    std::mt19937_64 rng(5);
    for (int k = 0; k < 10; ++k)
      for (int kind : {0, 1, 2, 3}) {  // make_degenerate: tied rows, zero columns, z all equal, V = 0
        CAPTURE(kind);
        Instance in = random_instance(*c.domain, c.n, rng);
        make_degenerate(in, kind, rng);
        compare(*dual, *clp, *c.outer, *c.domain, in);
      }
  }
}

TEST_CASE("scenario_dual equals cold Clp along 3000-step momentum-like drifts, solved warm") {
  for (Case& c : cases()) {
    for (double b : {0.01, 0.1}) {
      CAPTURE(c.name);
      CAPTURE(b);
      auto dual = make_dual(c.d, c.n);
      auto clp = make_cold_clp(c.d, c.n);
      dual->setup(*c.outer, *c.domain, c.n, c.d);
      clp->setup(*c.outer, *c.domain, c.n, c.d);
      std::mt19937_64 rng(7);
      std::normal_distribution<double> normal;
      Instance in = random_instance(*c.domain, c.n, rng);
      Mat G(c.n, c.d);
      Vec x(c.d), g(c.n);
      long pivots = 0;
      double worst = 0.0;
      // Under the sanitizers (CI's second build, many times slower) a shorter drift: what they
      // check, the memory and arithmetic of the warm solves, shows in its first hundreds of steps.
      const int steps = kAllocatorSanitized ? (b == 0.01 ? 400 : 100) : (b == 0.01 ? 3000 : 500);
      for (int k = 0; k < steps; ++k) {
        for (int i = 0; i < c.n; ++i) {
          g[i] = normal(rng);
          for (int j = 0; j < c.d; ++j) G(i, j) = normal(rng);
        }
        in.V = (1.0 - b) * in.V + b * G;
        in.z = (1.0 - b) * in.z + b * g;
        worst = std::max(worst, compare(*dual, *clp, *c.outer, *c.domain, in, &pivots));
        dual->solve(in.z, in.V, in.y, x);
        in.y = (1.0 - b) * in.y + b * x;
      }
      MESSAGE(c.name << ", drift b = " << b << ": " << static_cast<double>(pivots) / steps
                     << " pivots per solve, largest relative difference " << worst);
    }
  }
}

TEST_CASE("scenario_dual declines LPs with few rows per structural column, word for word") {
  const int d = 100, n = 10;
  auto domain = make_l1(d, n, 5.0);
  auto outer = make_max(d, n);
  auto dual = make_dual(d, n);
  std::string why;
  CHECK_FALSE(dual->supports(*outer, *domain, n, d, &why));
  CHECK(why ==
        "scenario_dual: the GLMO LP has 11 rows for 201 structural columns, fewer than min_row_ratio = 2 times as "
        "many (its dual would not be smaller)");
  CHECK_THROWS_WITH_AS(dual->setup(*outer, *domain, n, d), why.c_str(), CapabilityError);
  auto cvar = make_cvar(11, 200);
  auto si = make_simplex_interval(11, 200);
  CHECK(dual->supports(*cvar, *si, 200, 11, &why));
  dual->setup(*cvar, *si, 200, 11);
  CHECK(dual->describe() ==
        "scenario_dual (dual simplex on the dual LP with bound flipping, kept basis, explicit inverse; dual LP 11 rows "
        "x 223 columns for a primal of 201 rows)");
  auto primal = make_primal(11, 200);
  primal->setup(*cvar, *si, 200, 11);
  CHECK(primal->describe() ==
        "scenario_dual (primal simplex on the dual LP, kept basis; dual LP 11 rows x 223 columns for a primal of 201 "
        "rows)");
  // Many rows but more than max_structural = 256 structural columns (its basis inverse is dense):
  // the automatic choice passes over it.
  auto wide_cvar = make_cvar(260, 600);
  auto wide_si = make_simplex_interval(260, 600);
  CHECK_FALSE(dual->supports(*wide_cvar, *wide_si, 600, 260, &why));
  CHECK(why == "scenario_dual: the dual LP has 260 rows, more than max_structural = 256");
}

TEST_CASE("scenario_dual solve() allocates nothing over 1000 warm solves") {
  if (kAllocatorSanitized) {
    MESSAGE(kSanitizerSkipMessage);
    return;
  }
  const int d = 11, n = 200;
  auto domain = make_simplex_interval(d, n);
  auto outer = make_cvar(d, n);
  auto dual = make_dual(d, n);
  dual->setup(*outer, *domain, n, d);
  check_warm_solves_allocate_nothing(*dual, *domain, n, 0.01, [] { return g_mallocs.load(); });
}

TEST_CASE("scenario_dual's saved state resumes bitwise: 10 solves, save, a fresh GLMO loads it, 10 more") {
  const int d = 11, n = 200;
  auto domain = make_simplex_interval(d, n);
  auto outer = make_cvar(d, n);
  check_resumes_bitwise([&] { return make_dual(d, n); }, "scenario_dual", *outer, *domain, n);
  // A basis that does not fit is refused with its reason.
  auto other = make_dual(d, n);
  other->setup(*outer, *domain, n, d);
  StateWriter bad;
  std::vector<int> unit_at(static_cast<size_t>(d), -1);
  bad.put("unit_at", unit_at);
  bad.put("dense", std::vector<int>{});
  StateReader rb(bad.text(), "scenario_dual");
  CHECK_THROWS_WITH(other->load_state(rb), "scenario_dual: block dense: the saved basis does not fit this LP (0 basic multipliers for "
                                           "11 uncovered dual rows)");
}

TEST_CASE("scenario_dual's pivot row over the nonzeros of rho has the bits of Eigen's full product P rho") {
  std::mt19937_64 rng(17);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  long compared = 0;
  // N >= 2: with one row Eigen takes a dot product instead (another order), and scenario_dual
  // keeps Eigen's product there.
  for (const int N : {2, 7, 8, 15, 16, 17, 24, 200, 201}) {
    for (const int D : {1, 2, 3, 11, 50, 51}) {
      for (const double zeros : {0.0, 0.3, 0.7, 1.0}) {
        CAPTURE(N);
        CAPTURE(D);
        CAPTURE(zeros);
        using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        RowMajor P(N, D);
        for (int i = 0; i < N; ++i)
          for (int j = 0; j < D; ++j) P(i, j) = unit(rng) < 0.1 ? 0.0 : normal(rng) * std::exp(4.0 * normal(rng));
        Vec rho(D);
        for (int j = 0; j < D; ++j) rho[j] = unit(rng) < zeros ? (unit(rng) < 0.5 ? 0.0 : -0.0) : normal(rng);
        // The portable path's product (kern::gemv_base): Eigen, P row-major.
        Vec full(N);
        full.noalias() = P * rho;
        const int S = scenario_dual::pt_stride(N);
        std::vector<double> PT(static_cast<size_t>(S) * static_cast<size_t>(D) + 16, 0.0);
        scenario_dual::transpose(N, D, P.data(), PT.data());
        for (int i = 0; i < N; ++i)
          for (int j = 0; j < D; ++j) REQUIRE(PT[static_cast<size_t>(j) * static_cast<size_t>(S) + static_cast<size_t>(i)] == P(i, j));
        std::vector<const double*> col(static_cast<size_t>(D));
        std::vector<double> x(static_cast<size_t>(D));
        scenario_dual::Lanes lanes{col.data(), x.data()};
        scenario_dual::nonzero_lanes(N, D, PT.data(), rho.data(), lanes);
        std::vector<double> out(static_cast<size_t>(N) + 1, 42.0);
        scenario_dual::pivot_row(N, lanes, out.data());
        for (int i = 0; i < N; ++i) {
          CHECK(std::bit_cast<std::uint64_t>(out[static_cast<size_t>(i)]) == std::bit_cast<std::uint64_t>(full[i]));
          ++compared;
        }
        CHECK(out[static_cast<size_t>(N)] == 42.0);  // nothing written past row N
      }
    }
  }
  MESSAGE("pivot row: " << compared << " entries bitwise equal to Eigen's product");
}

// FNV-1a over the bits of every value, x and pivot count of a drift: the GLMO's answers, bit for
// bit. The constant was recorded with the code before the pivot row over the nonzeros of rho,
// the unit columns of B^{-1} taken as such in ftran and the steepest-edge weights kept per pivot
// (commit f238b52): those changes leave out exact zeros only and must not move a bit.
TEST_CASE("scenario_dual's answers along a 400-step drift at d = 51, n = 200 are bitwise those recorded") {
  const int d = 51, n = 200;
  auto domain = make_simplex_interval(d, n);
  auto outer = make_cvar(d, n);
  auto dual = make_dual(d, n);
  dual->setup(*outer, *domain, n, d);
  std::mt19937_64 rng(21);
  std::normal_distribution<double> normal;
  Instance in = random_instance(*domain, n, rng);
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xffU;
      h *= 1099511628211ULL;
    }
  };
  Vec x(d);
  long pivots = 0;
  const double b = 0.01;
  for (int k = 0; k < 400; ++k) {
    for (int i = 0; i < n; ++i) {
      in.z[i] = (1.0 - b) * in.z[i] + b * normal(rng);
      for (int j = 0; j < d; ++j) in.V(i, j) = (1.0 - b) * in.V(i, j) + b * normal(rng);
    }
    const GlmoResult r = dual->solve(in.z, in.V, in.y, x);
    mix(std::bit_cast<std::uint64_t>(r.value));
    mix(static_cast<std::uint64_t>(r.iterations));
    for (int j = 0; j < d; ++j) mix(std::bit_cast<std::uint64_t>(x[j]));
    pivots += r.iterations;
    in.y = (1.0 - b) * in.y + b * x;
  }
  MESSAGE("drift at d = 51: " << pivots << " pivots, hash " << h);
  CHECK(pivots == 4195);
  CHECK(h == 17334476176781603572ULL);
}
