// The domains `nuclear_ball`, `polytope`, `simplex_interval`, the GLMO `column_generation`, the
// outer function `cvar_ru` and the oracles `portfolio_returns` and `matrix_completion` (paper,
// Section 6 Tasks 2 and 3), loaded as real plugins:
//   * nuclear LMO: <G, LMO(G)> = -tau sigma_max(G) from an independent full SVD, and no random
//     matrix of nuclear norm <= tau does better (dense-SVD and Lanczos paths);
//   * column generation over a `polytope` equals the `clp` LP over the same polytope (outer `max`
//     and `linear`) within 1e-7, with a certified lower bound; and over the nuclear ball it
//     matches the closed-form LMO under `linear`;
//   * polytope CSV errors word for word; unbounded and empty polytopes are refused;
//   * simplex_interval's LMO and LP model (through clp) against brute-force vertices;
//   * cvar_ru's model against its value (conformance::check_outer_model);
//   * the oracles: unbiasedness and Jacobians (conformance::check_oracle); the S&P 500 file
//     (100 assets x 1258 returns) and MovieLens u.data in the shared data folder (shared_data.hpp).
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <unistd.h>

#include "scfw/conformance.hpp"
#include "plugin_support.hpp"
#include "shared_data.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/core/solver.hpp"
#include "scfw/scfw.hpp"

using namespace scfw;
using namespace scfw::test;

namespace {

// Every block of this file reports its errors as "problem.json: /block/<parameter>: ...".
Block block_params(nlohmann::json values) { return params(std::move(values), "problem.json", "/block"); }

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::unique_ptr<Domain> make_nuclear(int r, int c, double tau) {
  return make<Domain>("nuclear_ball",
                      block_params({{"rows", std::int64_t{r}}, {"cols", std::int64_t{c}}, {"radius", tau}}), context(r * c, 1));
}

// A random polytope around the origin: m random rows a ~ N(0, I) with b = 1 + U(0, 1), plus the
// box |x_j| <= 3 so that it is bounded.
void random_polytope(int d, int m, std::mt19937_64& rng, std::vector<double>& A, std::vector<double>& b) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  A.clear();
  b.clear();
  for (int r = 0; r < m; ++r) {
    for (int j = 0; j < d; ++j) A.push_back(normal(rng));
    b.push_back(1.0 + unif(rng));
  }
  for (int j = 0; j < d; ++j)
    for (int s : {1, -1}) {
      for (int k = 0; k < d; ++k) A.push_back(k == j ? s : 0.0);
      b.push_back(3.0);
    }
}

std::unique_ptr<Domain> make_polytope(int d, const std::vector<double>& A, const std::vector<double>& b) {
  return make<Domain>("polytope", block_params({{"A", A}, {"b", b}, {"dim", std::int64_t{d}}}), context(d, 1));
}

std::unique_ptr<Glmo> make_cg(int d, int n, double tol = 1e-9) {
  return make<Glmo>("column_generation", block_params({{"tolerance", tol}}), context(d, n));
}
std::unique_ptr<Glmo> make_clp(int d, int n) { return make<Glmo>("clp", {}, context(d, n)); }

}  // namespace

// ---------------------------------------------------------------------------------------------

TEST_CASE("nuclear_ball: LMO = -tau u1 v1^T, value -tau sigma_max, no feasible matrix does better") {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  for (auto rc : {std::pair{7, 5}, std::pair{3, 9}, std::pair{120, 90}, std::pair{150, 140}}) {  // 150 x 140: the Lanczos path
    const int r = rc.first, c = rc.second;  // not a structured binding: clang 14 cannot CAPTURE one
    CAPTURE(r);
    CAPTURE(c);
    const double tau = 2.5;
    auto ball = make_nuclear(r, c, tau);
    REQUIRE(ball->dim() == r * c);
    CHECK_FALSE(ball->capabilities().has(Capability::LpModel));
    for (int trial = 0; trial < 3; ++trial) {
      Vec g(r * c);
      for (auto& v : g) v = normal(rng);
      Vec x;
      lmo_dense(*ball, g, x);
      REQUIRE(x.size() == r * c);
      const Eigen::MatrixXd G = Eigen::Map<const RowMat>(g.data(), r, c);
      const double sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(G).singularValues()[0];
      CHECK(rel_diff(g.dot(x), -tau * sigma) <= 1e-9);
      CHECK(ball->contains(x, 1e-9));
      const Eigen::MatrixXd X = Eigen::Map<const RowMat>(x.data(), r, c);
      CHECK(Eigen::JacobiSVD<Eigen::MatrixXd>(X).singularValues()[0] == doctest::Approx(tau));  // rank one
      // Random feasible matrices: Z / ||Z||_* * tau, rank-one ones too (whose nuclear norm is
      // |a| |b|). The full-rank ones need an SVD each: fewer of them on the two large sizes.
      const int samples = r * c > 1000 ? 40 : 200;
      for (int k = 0; k < samples; ++k) {
        Eigen::MatrixXd Z(r, c);
        if (k % 2 == 0) {
          for (int i = 0; i < r; ++i)
            for (int j = 0; j < c; ++j) Z(i, j) = normal(rng);
          Z *= tau / Eigen::BDCSVD<Eigen::MatrixXd>(Z).singularValues().sum();
        } else {
          Eigen::VectorXd a(r), b(c);
          for (auto& v : a) v = normal(rng);
          for (auto& v : b) v = normal(rng);
          Z = (tau / (a.norm() * b.norm())) * a * b.transpose();
        }
        CHECK((G.cwiseProduct(Z)).sum() >= g.dot(x) - 1e-9);
      }
    }
    Vec outside = Vec::Zero(r * c);
    outside[0] = tau * 1.01;
    CHECK_FALSE(ball->contains(outside, 1e-6));
    CHECK(ball->contains(ball->initial_point(), 0.0));
  }
}

TEST_CASE("nuclear_ball: rows * cols must equal the oracle's d") {
  CHECK_THROWS_WITH_AS(make<Domain>("nuclear_ball", block_params({{"rows", std::int64_t{3}}, {"cols", std::int64_t{4}}}),
                                    context(10, 1)),
                       "problem.json: /block/rows: the domain has dimension rows * cols = 12 but the oracle has dimension 10",
                       InputError);
}

TEST_CASE("column_generation over a polytope equals the clp LP (outer max and linear)") {
  std::mt19937_64 rng(11);
  for (int d : {2, 5, 12}) {
    CAPTURE(d);
    std::vector<double> A, b;
    random_polytope(d, 3 * d, rng, A, b);
    auto poly = make_polytope(d, A, b);
    for (int n : {1, 4}) {
      CAPTURE(n);
      auto max_outer = make<OuterFunction>("max", {}, context(d, n));
      auto lin_outer = make<OuterFunction>("linear", block_params({{"component", std::int64_t{n - 1}}}), context(d, n));
      for (const OuterFunction* outer : {max_outer.get(), lin_outer.get()}) {
        auto cg = make_cg(d, n);
        auto clp = make_clp(d, n);
        cg->setup(*outer, *poly, n, d);
        clp->setup(*outer, *poly, n, d);
        for (int trial = 0; trial < 5; ++trial) {  // the cg keeps its atoms between solves (warm)
          const Instance in = random_instance(*poly, n, rng, /*gaussian_z=*/true);
          Vec x_cg, x_clp;
          const GlmoResult r_cg = cg->solve(in.z, in.V, in.y, x_cg);
          const GlmoResult r_clp = clp->solve(in.z, in.V, in.y, x_clp);
          CHECK(rel_diff(r_cg.value, r_clp.value) <= 1e-7);
          CHECK(r_cg.lower_bound <= r_clp.value + 1e-7 * std::max(1.0, std::abs(r_clp.value)));
          CHECK(r_cg.value - r_cg.lower_bound <= 1e-7 * std::max(1.0, std::abs(r_cg.value)));
          CHECK(r_cg.iterations >= 1);
          CHECK(poly->contains(x_cg, 1e-7));
          const Vec u = in.z + in.V * (x_cg - in.y);
          CHECK(rel_diff(outer->value(u, x_cg), r_cg.value) <= 1e-7);
        }
      }
    }
  }
}

TEST_CASE("column_generation with cvar_ru (depends on x) over simplex_interval equals clp") {
  std::mt19937_64 rng(5);
  const int d = 8, n = 6;
  auto dom = make<Domain>("simplex_interval", {}, context(d, n));
  auto outer = make<OuterFunction>("cvar_ru", block_params({{"alpha", 0.8}}), context(d, n));
  auto cg = make_cg(d, n);
  auto cold = make<Glmo>("column_generation", block_params({{"tolerance", 1e-9}, {"warm_start", false}}), context(d, n));
  auto clp = make_clp(d, n);
  cg->setup(*outer, *dom, n, d);
  cold->setup(*outer, *dom, n, d);
  clp->setup(*outer, *dom, n, d);
  for (int trial = 0; trial < 10; ++trial) {
    const Instance in = random_instance(*dom, n, rng, /*gaussian_z=*/true);
    Vec x_cg, x_cold, x_clp;
    const GlmoResult a = cg->solve(in.z, in.V, in.y, x_cg), b = clp->solve(in.z, in.V, in.y, x_clp),
                     c = cold->solve(in.z, in.V, in.y, x_cold);
    CHECK(rel_diff(a.value, b.value) <= 1e-7);
    CHECK(rel_diff(c.value, b.value) <= 1e-7);
    CHECK(dom->contains(x_cg, 1e-7));
  }
}

TEST_CASE("column_generation over the nuclear ball with `linear` is the nuclear LMO") {
  std::mt19937_64 rng(3);
  const int r = 6, c = 4, d = r * c, n = 3;
  auto ball = make_nuclear(r, c, 1.5);
  auto lin = make<OuterFunction>("linear", block_params({{"component", std::int64_t{1}}}), context(d, n));
  auto cg = make_cg(d, n);
  cg->setup(*lin, *ball, n, d);
  const Instance in = random_instance(*ball, n, rng, /*gaussian_z=*/true);
  Vec x, s;
  const GlmoResult res = cg->solve(in.z, in.V, in.y, x);
  lmo_dense(*ball, in.V.row(1).transpose(), s);
  const double expected = in.z[1] + in.V.row(1).dot(s - in.y);
  CHECK(rel_diff(res.value, expected) <= 1e-7);
  CHECK(res.lower_bound <= expected + 1e-9);
  // and the clp GLMO refuses a domain without a model
  auto clp = make_clp(d, n);
  CHECK_THROWS_AS(clp->setup(*lin, *ball, n, d), CapabilityError);
}

TEST_CASE("column_generation over the nuclear ball with an l1 outer: the fast path agrees with a plain one") {
  // Defaults (smoothing 0.5, in-solve column deletion at 2 max_atoms, warm starts) against plain
  // column generation (no smoothing, no deletion, cold): over a sequence of drifting instances
  // both certify their values within the tolerance, so each value is >= the other's bound.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  const int r = 8, c = 6, d = r * c, n = 10;
  auto ball = make_nuclear(r, c, 2.0);
  auto l1 = make<OuterFunction>("norm", block_params({{"p", std::string("1")}}), context(d, n));
  const double tol = 1e-8;
  auto fast = make<Glmo>("column_generation", block_params({{"tolerance", tol}, {"max_atoms", std::int64_t{5}}}), context(d, n));
  auto plain = make<Glmo>("column_generation",
                          block_params({{"tolerance", tol}, {"smoothing", 0.0}, {"max_atoms", std::int64_t{100000}},
                                        {"warm_start", false}}),
                          context(d, n));
  fast->setup(*l1, *ball, n, d);
  plain->setup(*l1, *ball, n, d);
  Instance in = random_instance(*ball, n, rng, /*gaussian_z=*/true);
  for (int k = 0; k < 8; ++k) {
    Vec x1, x2;
    const GlmoResult a = fast->solve(in.z, in.V, in.y, x1), b = plain->solve(in.z, in.V, in.y, x2);
    const double scale = std::max(1.0, std::abs(b.value));
    CHECK(a.value - a.lower_bound <= tol * std::max(1.0, std::abs(a.value)) + 1e-12);
    CHECK(a.lower_bound <= b.value + 1e-9 * scale);
    CHECK(b.lower_bound <= a.value + 1e-9 * scale);
    CHECK(rel_diff(a.value, b.value) <= 2e-8);
    CHECK(ball->contains(x1, 1e-9));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < d; ++j) in.V(i, j) += 0.1 * normal(rng);
    for (int i = 0; i < n; ++i) in.z[i] += 0.1 * normal(rng);
  }
}

TEST_CASE("polytope: inline and CSV agree; bad lines, unbounded and empty polytopes are refused") {
  const auto dir = std::filesystem::temp_directory_path() / ("scfw_test_polytope_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "tri.csv") << "# x >= 0, y >= 0, x + y <= 1\n-1,0,0\n0,-1,0\n\n1, 1, 1\n";
    auto p = make<Domain>("polytope", block_params({{"file", std::string("tri.csv")}}), context(2, 1, dir.string()));
    REQUIRE(p->dim() == 2);
    Vec x;
    lmo_dense(*p, Vec(Eigen::Vector2d(1.0, -2.0)), x);
    CHECK(x[0] == doctest::Approx(0.0));
    CHECK(x[1] == doctest::Approx(1.0));
    CHECK(p->contains(p->initial_point(), 1e-9));
  }
  std::ofstream(dir / "bad.csv") << "1,0,1\n-1,0,1\n0,1\n";
  CHECK_THROWS_WITH_AS(make<Domain>("polytope", block_params({{"file", std::string("bad.csv")}}), context(2, 1, dir.string())),
                       ((dir / "bad.csv").string() + ":3: expected 3 numbers (a_1, ..., a_2, b), got 2").c_str(), InputError);
  std::ofstream(dir / "nan.csv") << "1,0,1\n-1,zero,1\n";
  CHECK_THROWS_WITH_AS(make<Domain>("polytope", block_params({{"file", std::string("nan.csv")}}), context(2, 1, dir.string())),
                       ((dir / "nan.csv").string() + ":2: not a finite number: \"zero\"").c_str(), InputError);
  // x <= 1, -x <= 1 and y <= 1: y has no lower bound
  CHECK_THROWS_WITH_AS(make_polytope(2, {1, 0, -1, 0, 0, 1}, {1, 1, 1}),
                       "problem.json: /block/A: the polytope {x : A x <= b} is unbounded (x[1] has no lower bound)", InputError);
  CHECK_THROWS_WITH_AS(make_polytope(1, {1, -1}, {-1, -1}), "problem.json: /block/A: the polytope {x : A x <= b} is empty",
                       InputError);
  CHECK_THROWS_WITH_AS(make_polytope(2, {1, 0, 1}, {1, 1}),
                       "problem.json: /block/A: has 3 numbers, not a multiple of the 2 rows of b", InputError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("simplex_interval: LMO and LP model against brute-force vertices") {
  std::mt19937_64 rng(2);
  std::normal_distribution<double> normal;
  const int d = 6;
  const double lo = -0.5, hi = 2.0;
  auto dom = make<Domain>("simplex_interval", block_params({{"lower", lo}, {"upper", hi}}), context(d, 1));
  REQUIRE(dom->dim() == d);
  std::vector<Vec> vertices;
  for (int j = 0; j + 1 < d; ++j)
    for (double t : {lo, hi}) {
      Vec v = Vec::Zero(d);
      v[j] = 1.0;
      v[d - 1] = t;
      vertices.push_back(v);
    }
  CHECK(dom->contains(dom->initial_point(), 0.0));
  auto lin = make<OuterFunction>("linear", {}, context(d, 1));
  auto clp = make_clp(d, 1);
  clp->setup(*lin, *dom, 1, d);
  for (int trial = 0; trial < 50; ++trial) {
    Vec g(d);
    for (auto& v : g) v = normal(rng);
    double best = inf;
    for (const Vec& v : vertices) best = std::min(best, g.dot(v));
    Vec x;
    lmo_dense(*dom, g, x);
    CHECK(g.dot(x) == doctest::Approx(best).epsilon(1e-12));
    CHECK(dom->contains(x, 1e-12));
    // the model: min_x <g, x> over the LP model through clp (u = 0 + g^T (x - 0))
    Mat V(1, d);
    V.row(0) = g.transpose();
    Vec xm;
    const GlmoResult r = clp->solve(Vec::Zero(1), V, Vec::Zero(d), xm);
    CHECK(r.value == doctest::Approx(best).epsilon(1e-9));
    CHECK(dom->contains(xm, 1e-9));
  }
}

TEST_CASE("cvar_ru: its LP model equals its value (conformance)") {
  const int d = 5, n = 7;
  auto outer = make<OuterFunction>("cvar_ru", block_params({{"alpha", 0.9}}), context(d, n));
  CHECK(outer->traits().depends_on_x);
  CHECK(outer->traits().monotone);
  CHECK(outer->traits().lipschitz == doctest::Approx(1.0 / (0.1 * std::sqrt(7.0))));
  auto clp = make_clp(d, n);
  const auto singleton = [&](const Vec& x) {
    std::vector<double> v(x.data(), x.data() + x.size());
    return make<Domain>("box", block_params({{"lower", v}, {"upper", v}, {"dim", std::int64_t{d}}}), context(d, n));
  };
  auto dom = make<Domain>("simplex_interval", {}, context(d, n));
  (void)dom;
  const conformance::Report rep = conformance::check_outer_model(*outer, n, d, *clp, singleton);
  CHECK_MESSAGE(rep.ok, rep.message);
  // a hand value: y0 = 0.5, u = (1, 0, 2, ...): 0.5 + (0.5 + 1.5) / (0.1 * 3)
  Vec x = Vec::Zero(2);
  x[1] = 0.5;
  CHECK(outer->value(Vec(Eigen::Vector3d(1.0, 0.0, 2.0)), x) == doctest::Approx(0.5 + 2.0 / 0.3));
}

TEST_CASE("portfolio_returns (synthetic): unbiased samples and Jacobians") {
  auto p = block_params({{"groups", 15}, {"batch", 2}, {"synthetic", {{"assets", 10}, {"days", 300}}}});
  auto oracle = make<Oracle>("portfolio_returns", p, context(-1, -1));
  REQUIRE(oracle->dim() == 11);
  REQUIRE(oracle->outputs() == 15);
  Vec x = Vec::Constant(11, 0.1);
  x[10] = 0.3;
  const conformance::Report rep = conformance::check_oracle(*oracle, x);
  CHECK_MESSAGE(rep.ok, rep.message);
  // the default synthetic instance: 50 assets, 2000 days, about 1% daily volatility
  auto p2 = block_params({{"synthetic", nlohmann::json::object()}});
  auto big = make<Oracle>("portfolio_returns", p2, context(-1, -1));
  CHECK(big->dim() == 51);
  CHECK(big->outputs() == 200);
}

TEST_CASE("portfolio_returns without the threshold: x = w, the same f and Jacobian columns") {
  // For an outer function of the weights only (cvar, max): d = A, and f and J are those of the
  // oracle with the threshold, without its last (zero) column.
  auto with = make<Oracle>("portfolio_returns", block_params({{"groups", 6}, {"synthetic", {{"assets", 4}, {"days", 60}}}}),
                           context(-1, -1));
  auto without = make<Oracle>("portfolio_returns",
                              block_params({{"groups", 6}, {"threshold", false}, {"synthetic", {{"assets", 4}, {"days", 60}}}}),
                              context(-1, -1));
  REQUIRE(without->dim() == 4);
  CHECK(with->auxiliary_variables().size() == 1);
  CHECK(without->auxiliary_variables().empty());
  CHECK(without->variable_names() == std::vector<std::string>{"asset 1", "asset 2", "asset 3", "asset 4"});
  const Vec w = Vec::Constant(4, 0.25);
  Vec x(5);
  x << w, 0.7;
  Vec f5(6), f4(6);
  scfw::Jacobian J5 = scfw::make_jacobian(*with), J4 = scfw::make_jacobian(*without);
  with->exact(x, &f5, &J5);
  without->exact(w, &f4, &J4);
  CHECK(f4 == f5);
  CHECK(Mat(J4.dense()) == Mat(J5.dense().leftCols(4)));
  const conformance::Report rep = conformance::check_oracle(*without, w);
  CHECK_MESSAGE(rep.ok, rep.message);
}

TEST_CASE("matrix_completion (synthetic): unbiased samples and Jacobians; groups = 0 is exact") {
  for (std::int64_t groups : {20, 0}) {
    auto p = block_params({{"groups", groups}, {"synthetic", nlohmann::json::object()}});
    auto oracle = make<Oracle>("matrix_completion", p, context(-1, -1));
    REQUIRE(oracle->dim() == 600);
    REQUIRE(oracle->outputs() == (groups == 0 ? 180 : 20));
    std::mt19937_64 rng(4);
    std::normal_distribution<double> normal;
    Vec x(600);
    for (auto& v : x) v = 0.3 * normal(rng);
    conformance::OracleCheckOptions opt;
    // With groups = 0 every sample is the exact value, so the check's allowance is rounding
    // (1e-12 relative) whatever the number of samples: 100 assert as much as 4000, at a fortieth
    // of the cost of 180 x 600 Jacobians per sample.
    opt.samples = groups == 0 ? 100 : 4000;
    const conformance::Report rep = conformance::check_oracle(*oracle, x, opt);
    CHECK_MESSAGE(rep.ok, rep.message);
  }
}

TEST_CASE("matrix_completion: file errors name the line") {
  const auto dir = std::filesystem::temp_directory_path() / ("scfw_test_mc_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "m.txt") << "1 1 5\n2 3 1.5\n1 1 4\n";
  CHECK_THROWS_WITH_AS(make<Oracle>("matrix_completion", block_params({{"file", std::string("m.txt")}}),
                                    context(-1, -1, dir.string())),
                       ((dir / "m.txt").string() + ":3: entry (1, 1) repeats line 1").c_str(), InputError);
  std::ofstream(dir / "m2.txt") << "1\t1\t5\t99\n2\t3\t1.5\t99\n";
  auto ok = make<Oracle>("matrix_completion", block_params({{"file", std::string("m2.txt")}, {"groups", std::int64_t{2}}}),
                         context(-1, -1, dir.string()));
  CHECK(ok->dim() == 6);
  std::filesystem::remove_all(dir);
}

TEST_CASE("matrix_completion: top_rows / top_cols keep the most observed rows and columns") {
  const auto dir = std::filesystem::temp_directory_path() / ("scfw_test_mc_top_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // Row counts 2, 3, 2, 2: top 2 rows = {2, 1} (row 2, then the tie 1/3/4 goes to row 1).
  // Column counts 2, 3, 1, 1, 2: top 3 columns = {2, 1, 5} (the tie 1/5 keeps both; 3, 4 dropped).
  std::ofstream(dir / "m.txt") << "1 1 1\n1 2 2\n2 2 3\n2 3 4\n2 5 5\n3 1 6\n3 4 7\n4 5 8\n4 2 9\n";
  // groups = 0: one group per kept entry, in file order, f_g(x) = x[i_g * cols + j_g] - M_g; `top`
  // holds top_rows and top_cols.
  auto kept = [&](nlohmann::json top) {
    top["file"] = std::string("m.txt");
    top["groups"] = std::int64_t{0};
    return make<Oracle>("matrix_completion", block_params(std::move(top)), context(-1, -1, dir.string()));
  };
  auto mc = kept({{"top_rows", std::int64_t{2}}, {"top_cols", std::int64_t{3}}});
  REQUIRE(mc->dim() == 2 * 3);
  REQUIRE(mc->outputs() == 4);
  Vec x(6);
  for (int k = 0; k < 6; ++k) x[k] = 100.0 * (k + 1);
  Vec f(4);
  mc->exact(x, &f, nullptr);
  // Kept, renumbered: (1,1,1) -> (0,0); (1,2,2) -> (0,1); (2,2,3) -> (1,1); (2,5,5) -> (1,2).
  const std::vector<double> want = {100.0 - 1.0, 200.0 - 2.0, 500.0 - 3.0, 600.0 - 5.0};
  for (int g = 0; g < 4; ++g) CHECK(f[g] == doctest::Approx(want[static_cast<size_t>(g)]));
  // Only top_rows: all 5 columns stay; top_rows >= rows keeps every row.
  auto rows_only = kept({{"top_rows", std::int64_t{1}}});
  CHECK(rows_only->dim() == 5);
  CHECK(rows_only->outputs() == 3);  // row 2's entries
  auto all = kept({{"top_rows", std::int64_t{9}}, {"top_cols", std::int64_t{9}}});
  CHECK(all->dim() == 4 * 5);
  CHECK(all->outputs() == 9);
  std::filesystem::remove_all(dir);
}

TEST_CASE("shared data: matrix_completion: top_rows x top_cols of MovieLens-100K") {
  const std::string ml = scfw::test::shared_data_file("ml-100k/u.data");
  if (ml.empty()) return;
  // Counts of the kept ratings (checked independently with a script over u.data).
  const std::vector<std::array<int, 3>> cases = {{100, 100, 7086}, {50, 50, 2042}, {60, 40, 1922}, {200, 100, 12729}};
  for (const auto& [r, c, count] : cases) {
    auto sub = make<Oracle>("matrix_completion",
                            block_params({{"file", ml}, {"groups", std::int64_t{0}}, {"top_rows", std::int64_t{r}},
                                          {"top_cols", std::int64_t{c}}}),
                            context(-1, -1));
    MESSAGE("MovieLens-100K top " << r << " x " << c << ": " << sub->outputs() << " ratings");
    CHECK(sub->dim() == r * c);
    CHECK(sub->outputs() == count);
  }
}

TEST_CASE("shared data: S&P 500 (100 assets x 1258 returns) and MovieLens-100K") {
  const std::string sp = scfw::test::shared_data_file("sp500_5yr_close_top100.csv");
  if (sp.empty()) return;
  // 1258 groups = one per day: accepted; 1259 would exceed the 1258 returns.
  auto oracle = make<Oracle>("portfolio_returns", block_params({{"file", sp}, {"groups", std::int64_t{1258}}}), context(-1, -1));
  CHECK(oracle->dim() == 101);
  CHECK(oracle->outputs() == 1258);
  CHECK_THROWS_WITH_AS(make<Oracle>("portfolio_returns", block_params({{"file", sp}, {"groups", std::int64_t{1259}}}), context(-1, -1)),
                       "problem.json: /block/groups: there are 1259 groups but only 1258 days of returns", InputError);
  auto grouped = make<Oracle>("portfolio_returns", block_params({{"file", sp}}), context(-1, -1));
  Vec x = Vec::Constant(101, 0.01);
  x[100] = 0.0;
  conformance::OracleCheckOptions opt;
  opt.samples = 5000;
  const conformance::Report rep = conformance::check_oracle(*grouped, x, opt);
  CHECK_MESSAGE(rep.ok, rep.message);

  const std::string ml = scfw::test::shared_data_file("ml-100k/u.data");
  if (ml.empty()) return;
  auto mc = make<Oracle>("matrix_completion", block_params({{"file", ml}}), context(-1, -1));
  CHECK(mc->dim() == 943 * 1682);
  CHECK(mc->outputs() == 20);
}

TEST_CASE("column_generation: the dense master and the Clp master give the same values") {
  // Three settings: an l1 outer over the nuclear ball (drifting instances, warm), cvar_ru (reads
  // x: the master has x-rows) over simplex_interval, and max over a polytope.
  std::mt19937_64 rng(23);
  std::normal_distribution<double> normal;
  const double tol = 1e-9;
  auto make_master = [&](int d, int n, const char* master) {
    return make<Glmo>("column_generation", block_params({{"tolerance", tol}, {"master", std::string(master)}}),
                      context(d, n));
  };
  struct Setting {
    std::unique_ptr<Domain> dom;
    std::unique_ptr<OuterFunction> outer;
    int d, n;
  };
  std::vector<Setting> settings;
  {
    const int r = 8, c = 6, n = 10;
    settings.push_back({make_nuclear(r, c, 2.0), make<OuterFunction>("norm", block_params({{"p", std::string("1")}}), context(r * c, n)), r * c, n});
  }
  settings.push_back({make<Domain>("simplex_interval", {}, context(8, 6)),
                      make<OuterFunction>("cvar_ru", block_params({{"alpha", 0.8}}), context(8, 6)), 8, 6});
  {
    std::vector<double> A, b;
    random_polytope(5, 15, rng, A, b);
    settings.push_back({make_polytope(5, A, b), make<OuterFunction>("max", {}, context(5, 4)), 5, 4});
  }
  for (auto& s : settings) {
    auto dense = make_master(s.d, s.n, "dense");
    auto clp = make_master(s.d, s.n, "clp");
    dense->setup(*s.outer, *s.dom, s.n, s.d);
    clp->setup(*s.outer, *s.dom, s.n, s.d);
    CHECK(dense->describe().find("a dense primal simplex") != std::string::npos);
    CHECK(clp->describe().find("with Clp") != std::string::npos);
    Instance in = random_instance(*s.dom, s.n, rng, /*gaussian_z=*/true);
    for (int k = 0; k < 12; ++k) {
      CAPTURE(k);
      Vec x1, x2;
      const GlmoResult a = dense->solve(in.z, in.V, in.y, x1), b = clp->solve(in.z, in.V, in.y, x2);
      const double scale = std::max(1.0, std::abs(b.value));
      CHECK(std::abs(a.value - b.value) <= 1e-8 * scale);
      CHECK(a.value - a.lower_bound <= tol * std::max(1.0, std::abs(a.value)) + 1e-12);
      CHECK(s.dom->contains(x1, 1e-8));
      const Vec u = in.z + in.V * (x1 - in.y);
      CHECK(std::abs(s.outer->value(u, x1) - a.value) <= 1e-8 * scale);
      for (int i = 0; i < s.n; ++i)
        for (int j = 0; j < s.d; ++j) in.V(i, j) += 0.1 * normal(rng);
      for (int i = 0; i < s.n; ++i) in.z[i] += 0.1 * normal(rng);
    }
    CHECK(dense->describe().find("redone with Clp") == std::string::npos);  // no fallback needed
  }
}

TEST_CASE("generalized gap with an inexact GLMO: taken from the certified lower bound, never below the exact gap") {
  // Task 3 synthetic (the default 30 x 20 instance, 20 groups), l1 outer, nuclear ball. The gap of
  // eq. (2) computed with column generation stopped at a loose tolerance must be an upper bound
  // on the one computed at 1e-10, and at most the tolerance above it. Computed from the GLMO's
  // value instead, it would fall below whenever the loose solve stops above the minimum, which
  // the second check makes sure happens on these points.
  auto p = block_params({{"groups", 20}, {"synthetic", nlohmann::json::object()}});
  auto oracle = make<Oracle>("matrix_completion", p, context(-1, -1));
  const int d = 600, n = 20;
  auto ball = make_nuclear(30, 20, 5.0);
  auto l1 = make<OuterFunction>("norm", block_params({{"p", std::string("1")}}), context(d, n));
  const double loose_tol = 0.05;
  auto loose = make<Glmo>("column_generation", block_params({{"tolerance", loose_tol}}), context(d, n));
  auto tight = make<Glmo>("column_generation",
                          block_params({{"tolerance", 1e-10}, {"max_rounds", std::int64_t{5000}}}), context(d, n));
  loose->setup(*l1, *ball, n, d);
  tight->setup(*l1, *ball, n, d);
  std::mt19937_64 rng(31);
  std::normal_distribution<double> normal;
  int stopped_above = 0;
  for (int trial = 0; trial < 10; ++trial) {
    CAPTURE(trial);
    Vec g(d), y;
    for (auto& v : g) v = normal(rng);
    lmo_dense(*ball, g, y);
    y *= 0.1 * (trial + 1) / 10.0;  // points inside the ball
    Vec f(n), x(d);
    Jacobian J(n, d);
    const GapValue a = generalized_gap(*oracle, *l1, *loose, y, f, J, x);
    const GapValue b = generalized_gap(*oracle, *l1, *tight, y, f, J, x);
    const GlmoResult ra = loose->solve(f, J, y, x), rb = tight->solve(f, J, y, x);
    CHECK(a.objective == b.objective);
    CHECK(a.gap >= b.gap - 1e-8);
    CHECK(a.gap <= b.gap + loose_tol * std::max(1.0, std::abs(ra.value)) + 1e-8);
    CHECK(a.slack >= 0.0);                   // the reported slack brackets the exact gap:
    CHECK(a.gap - a.slack <= b.gap + 1e-8);  // gap - slack <= exact gap <= gap
    CHECK(b.slack <= 1e-9 * std::max(1.0, std::abs(rb.value)));
    if (ra.value > rb.value + 1e-6) ++stopped_above;
  }
  CHECK(stopped_above >= 3);
}

TEST_CASE("column_generation: a dense master that runs out of pivots hands the solve to Clp, same values") {
  // max_pivots = 1 makes every dense master solve give up; each GLMO solve is then finished by
  // Clp from the atoms found so far, and describe() counts the hand-overs.
  std::mt19937_64 rng(41);
  const int r = 8, c = 6, d = r * c, n = 10;
  auto ball = make_nuclear(r, c, 2.0);
  auto l1 = make<OuterFunction>("norm", block_params({{"p", std::string("1")}}), context(d, n));
  auto starved = make<Glmo>("column_generation",
                            block_params({{"tolerance", 1e-9}, {"master", std::string("dense")}, {"max_pivots", std::int64_t{1}}}),
                            context(d, n));
  auto clp = make<Glmo>("column_generation", block_params({{"tolerance", 1e-9}, {"master", std::string("clp")}}), context(d, n));
  starved->setup(*l1, *ball, n, d);
  clp->setup(*l1, *ball, n, d);
  for (int k = 0; k < 5; ++k) {
    const Instance in = random_instance(*ball, n, rng, /*gaussian_z=*/true);
    Vec x1, x2;
    const GlmoResult a = starved->solve(in.z, in.V, in.y, x1), b = clp->solve(in.z, in.V, in.y, x2);
    CHECK(std::abs(a.value - b.value) <= 1e-8 * std::max(1.0, std::abs(b.value)));
    CHECK(ball->contains(x1, 1e-8));
  }
  CHECK(starved->describe().find("; 5 solves redone with Clp") != std::string::npos);
}

TEST_CASE("compose: an explicit clp block with parameters over the nuclear ball hands over to column_generation with its defaults") {
  // clp's own parameters ("algorithm") are not column_generation's: the hand-over builds the
  // chosen solver from its defaults, not from the clp block.
  const nlohmann::json doc = nlohmann::json::parse(R"({
    "oracle": {"plugin": "matrix_completion", "synthetic": {"rows": 3, "cols": 2, "rank": 1, "density": 1}, "groups": 2},
    "outer":  {"plugin": "max"},
    "domain": {"plugin": "nuclear_ball", "rows": 3, "cols": 2},
    "glmo":   {"plugin": "clp", "algorithm": "primal", "warm_start": false}
  })");
  const Composition p = compose(registry(), doc, "problem.json", ".");
  CHECK(p.plugins()[3].second == "column_generation");
  REQUIRE(p.notes().size() == 1);
  CHECK(p.notes()[0] ==
        "glmo: the domain has no LP model, so clp handed over to column_generation (a restricted master LP over "
        "the domain's LMO atoms)");
}
