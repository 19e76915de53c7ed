// The oracle `matrix_completion` (plugins/oracle/matrix_completion): the synthetic generator,
// which holds nothing of size rows x cols, against the whole-matrix construction it documents
// (bit for bit: the golden traces use its instances); the "blocks" grouping and the "share"
// weighting against values computed by hand; their parameter errors, word for word.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <unistd.h>

#include "plugin_support.hpp"
#include "scfw/conformance.hpp"
#include "scfw/scfw.hpp"

using namespace scfw;
using namespace scfw::test;

namespace {

Block block_params(nlohmann::json values) { return params(std::move(values), "problem.json", "/block"); }

struct Reference {
  std::vector<std::int64_t> pos;
  std::vector<double> value;
};

// The synthetic instance as the generator's comment defines it, built the direct way: the whole
// L = U W^T / sqrt(rank) and the whole position list 0 .. rows * cols - 1, partially shuffled.
Reference whole_matrix_instance(std::int64_t r, std::int64_t c, std::int64_t rank, double density, double noise, std::uint64_t seed) {
  Rng g(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd U(r, rank), W(c, rank);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t k = 0; k < rank; ++k) U(i, k) = normal(g);
  for (std::int64_t j = 0; j < c; ++j)
    for (std::int64_t k = 0; k < rank; ++k) W(j, k) = normal(g);
  const Eigen::MatrixXd L = U * W.transpose() / std::sqrt(static_cast<double>(rank));
  const std::int64_t total = r * c;
  const std::int64_t m = std::max<std::int64_t>(1, std::llround(density * static_cast<double>(total)));
  std::vector<std::int64_t> pos(static_cast<size_t>(total));
  std::iota(pos.begin(), pos.end(), 0);
  for (std::int64_t k = 0; k < m; ++k) {
    std::uniform_int_distribution<std::int64_t> pick(k, total - 1);
    std::swap(pos[static_cast<size_t>(k)], pos[static_cast<size_t>(pick(g))]);
  }
  std::exponential_distribution<double> expo(1.0);
  Reference ref;
  for (std::int64_t k = 0; k < m; ++k) {
    const std::int64_t p = pos[static_cast<size_t>(k)];
    const double lap = expo(g) - expo(g);
    ref.pos.push_back(p);
    ref.value.push_back(L(p / c, p % c) + noise * lap);
  }
  return ref;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("matrix_completion synthetic: the same entries, bit for bit, as the whole-matrix construction") {
  struct Case {
    int rows, cols, rank;
    double density, noise;
    int seed;
  };
  // The default instance; one column; bands of 24 rows (cols 20000: two bands, the second with
  // the 26 rows left); two bands of 240 rows; a dense small one; every entry observed.
  const std::vector<Case> cases = {{30, 20, 5, 0.3, 0.3, 1},     {60, 1, 2, 0.5, 0.1, 3},    {50, 20000, 3, 0.002, 0.3, 7},
                                   {500, 2000, 5, 0.05, 0.3, 5}, {100, 300, 4, 0.9, 1.0, 2}, {7, 3, 1, 1.0, 0.0, 1}};
  for (const Case& t : cases) {
    CAPTURE(t.rows);
    CAPTURE(t.cols);
    const Reference ref = whole_matrix_instance(t.rows, t.cols, t.rank, t.density, t.noise, static_cast<std::uint64_t>(t.seed));
    auto oracle = make<Oracle>("matrix_completion",
                               block_params({{"groups", 0},
                                             {"synthetic",
                                              {{"rows", t.rows}, {"cols", t.cols}, {"rank", t.rank}, {"density", t.density},
                                               {"noise", t.noise}, {"seed", t.seed}}}}),
                               context(-1, -1));
    const std::int64_t d = std::int64_t{t.rows} * t.cols;
    REQUIRE(oracle->dim() == d);
    REQUIRE(oracle->outputs() == static_cast<int>(ref.pos.size()));
    // x_p = p + 1 (exact doubles): f_e = (p_e + 1) - M_e names both the position and the value.
    Vec x(d);
    for (std::int64_t p = 0; p < d; ++p) x[p] = static_cast<double>(p + 1);
    Vec f(oracle->outputs());
    oracle->exact(x, &f, nullptr);
    int differ = 0;
    for (size_t k = 0; k < ref.pos.size(); ++k)
      if (!same_bits(f[static_cast<Eigen::Index>(k)], static_cast<double>(ref.pos[k] + 1) - ref.value[k])) ++differ;
    CHECK(differ == 0);
  }
}

TEST_CASE("matrix_completion grouping blocks: rows and columns binned by their mean, by value, share weighting") {
  const auto dir = std::filesystem::temp_directory_path() / ("scfw_test_mc_blocks_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // Row means 13/3, 3/2, 4: ranked rows 2, 3, 1. Column means 3, 7/2, 11/3: ranked 1, 2, 3.
  std::ofstream(dir / "m.txt") << "1 1 5\n1 2 4\n2 1 1\n2 3 2\n3 2 3\n3 3 5\n1 3 4\n";
  auto make_mc = [&](nlohmann::json extra) {
    nlohmann::json b = {{"file", "m.txt"}, {"grouping", "blocks"}};
    b.update(extra);
    return make<Oracle>("matrix_completion", block_params(b), context(-1, -1, dir.string()));
  };
  const Vec x = Vec::Constant(9, 3.0);  // residuals 3 - M_e
  Vec f;
  SUBCASE("two row bins: ranks 0, 1 -> bin 0 (rows 2, 3), rank 2 -> bin 1 (row 1)") {
    auto mc = make_mc({{"row_bins", 2}});
    REQUIRE(mc->outputs() == 2);
    f.resize(2);
    mc->exact(x, &f, nullptr);
    CHECK(f[0] == doctest::Approx((2.0 + 1.0 + 0.0 - 2.0) / 4.0));
    CHECK(f[1] == doctest::Approx((-2.0 - 1.0 - 1.0) / 3.0));
    auto share = make_mc({{"row_bins", 2}, {"weighting", "share"}});
    share->exact(x, &f, nullptr);
    CHECK(f[0] == doctest::Approx(1.0 / 7.0));
    CHECK(f[1] == doctest::Approx(-4.0 / 7.0));
  }
  SUBCASE("by value: cells (bin 0: 1, 2, 3, 5), (bin 1: 4, 5) in increasing order") {
    auto mc = make_mc({{"row_bins", 2}, {"by_value", true}});
    REQUIRE(mc->outputs() == 6);
    f.resize(6);
    mc->exact(x, &f, nullptr);
    const std::vector<double> want = {2.0, 1.0, 0.0, -2.0, -1.0, -2.0};
    for (int g = 0; g < 6; ++g) CHECK(f[g] == doctest::Approx(want[static_cast<size_t>(g)]));
    // Every group's residuals share a sign: ||f||_1 under "share" is the paper's objective.
    auto share = make_mc({{"row_bins", 2}, {"by_value", true}, {"weighting", "share"}});
    share->exact(x, &f, nullptr);
    CHECK(f.lpNorm<1>() == doctest::Approx(9.0 / 7.0));
  }
  SUBCASE("one bin per column (col_bins >= the columns): the groups are the columns, by mean") {
    auto mc = make_mc({{"col_bins", 5}});
    REQUIRE(mc->outputs() == 3);
    f.resize(3);
    mc->exact(x, &f, nullptr);
    CHECK(f[0] == doctest::Approx((-2.0 + 2.0) / 2.0));
    CHECK(f[1] == doctest::Approx((-1.0 + 0.0) / 2.0));
    CHECK(f[2] == doctest::Approx((1.0 - 2.0 - 1.0) / 3.0));
  }
  SUBCASE("the sparse Jacobian's values are the dense ones") {
    auto dense = make_mc({{"row_bins", 2}, {"by_value", true}, {"weighting", "share"}});
    auto sparse = make_mc({{"row_bins", 2}, {"by_value", true}, {"weighting", "share"}, {"jacobian", "sparse"}});
    scfw::Jacobian Jd(6, 9);
    dense->exact(x, nullptr, &Jd);
    const Mat& J = Jd.dense();
    REQUIRE(sparse->capabilities().has(scfw::Capability::SparseJacobian));
    const auto pattern = sparse->jacobian_pattern();
    scfw::Jacobian Js(pattern);
    sparse->exact(x, nullptr, &Js);
    const double* values = Js.data();
    CHECK(pattern->nnz() == 7);
    for (int g = 0; g < 6; ++g)
      for (std::int64_t t = pattern->row_start()[static_cast<size_t>(g)]; t < pattern->row_start()[static_cast<size_t>(g) + 1]; ++t)
        CHECK(values[t] == J(g, pattern->col()[static_cast<size_t>(t)]));
    CHECK(J.sum() == doctest::Approx(1.0));  // each entry weighs 1/|Omega|
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("matrix_completion grouping blocks, share: unbiased samples and Jacobians (synthetic)") {
  auto oracle = make<Oracle>("matrix_completion", block_params({{"synthetic", nlohmann::json::object()},
                                                                {"grouping", "blocks"},
                                                                {"row_bins", 3},
                                                                {"col_bins", 2},
                                                                {"weighting", "share"},
                                                                {"batch", 2}}),
                             context(-1, -1));
  REQUIRE(oracle->dim() == 600);
  REQUIRE(oracle->outputs() == 6);  // 30 observed rows and 20 columns: every cell non-empty
  std::mt19937_64 rng(4);
  std::normal_distribution<double> normal;
  Vec x(600);
  for (auto& v : x) v = 0.3 * normal(rng);
  conformance::OracleCheckOptions opt;
  opt.samples = 4000;
  const conformance::Report rep = conformance::check_oracle(*oracle, x, opt);
  CHECK_MESSAGE(rep.ok, rep.message);
}

TEST_CASE("matrix_completion grouping parameters: located errors") {
  for (const char* key : {"row_bins", "col_bins"})
    CHECK_THROWS_WITH_AS(make<Oracle>("matrix_completion", block_params({{"synthetic", nlohmann::json::object()}, {key, 2}}), context(-1, -1)),
                         (std::string("problem.json: /block/") + key + ": only used with \"grouping\": \"blocks\"").c_str(), InputError);
  CHECK_THROWS_WITH_AS(make<Oracle>("matrix_completion", block_params({{"synthetic", nlohmann::json::object()}, {"by_value", false}}),
                                    context(-1, -1)),
                       "problem.json: /block/by_value: only used with \"grouping\": \"blocks\"", InputError);
  CHECK_THROWS_AS(make<Oracle>("matrix_completion", block_params({{"synthetic", nlohmann::json::object()}, {"grouping", "blocks"}, {"row_bins", 0}}),
                               context(-1, -1)),
                  InputError);
  CHECK_THROWS_AS(make<Oracle>("matrix_completion", block_params({{"synthetic", nlohmann::json::object()}, {"weighting", "sum"}}), context(-1, -1)),
                  InputError);
}
