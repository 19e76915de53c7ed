// Factored iterates (core/include/scfw/core/factors.hpp, docs/memory.md "Factored iterates"):
// matrix_completion's "coordinates": "observed" runs the loop on the observed entries and keeps
// the whole matrix as rank-one factors. The run equals the same problem over the whole matrix to
// 1e-12 (y at the entries and the factors' matrix everywhere); the factors' step and compression
// equal a dense accumulation to 1e-12; bad compositions are refused in one line.
#include <doctest/doctest.h>

#include <cmath>
#include <Eigen/SVD>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine_support.hpp"
#include "plugin_support.hpp"
#include "sanitizer_support.hpp"
#include "scfw/core/factors.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solution.hpp"
#include "scfw/core/solver.hpp"
#include "scfw/scfw.hpp"

using namespace scfw;

namespace {

nlohmann::json completion(const char* coordinates, int rows, int cols, long K) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "seed": 3, "report": { "every": 20 },
    "oracle": { "plugin": "matrix_completion", "groups": 8, "batch": 2, "jacobian": "sparse",
                "synthetic": { "rank": 3, "density": 0.3, "noise": 0.3, "seed": 4 } },
    "outer": { "plugin": "norm", "p": "1" },
    "domain": { "plugin": "nuclear_ball", "radius": 4 },
    "glmo": { "plugin": "column_generation", "tolerance": 1e-9 },
    "tracker": { "plugin": "momentum", "value": "polyak" },
    "schedule": { "plugin": "nonconvex", "r": 2 } })");
  doc["iterations"] = K;
  doc["oracle"]["coordinates"] = coordinates;
  doc["oracle"]["synthetic"]["rows"] = rows;
  doc["oracle"]["synthetic"]["cols"] = cols;
  doc["domain"]["rows"] = rows;
  doc["domain"]["cols"] = cols;
  return doc;
}

double max_abs(const Vec& v) { return v.size() ? v.cwiseAbs().maxCoeff() : 0.0; }

}  // namespace

TEST_CASE("observed coordinates give the whole-matrix run's iterate, at the entries and as factors") {
  // 30 x 20 (the Gram path of the nuclear LMO) and 150 x 140 (its Lanczos path).
  for (const auto& shape : {std::pair{30, 20}, std::pair{150, 140}}) {
    const int rows = shape.first, cols = shape.second;  // named variables: clang's lambdas take no bindings
    CAPTURE(rows);
    // 20 iterations of the Lanczos shape under a sanitizer (.ci/sanitize.sh), where 60 took two
    // minutes: the same comparison on that path, over fewer steps.
    const long K = rows > 100 && test::kAllocatorSanitized ? 20 : 60;
    Composition whole = test::make(completion("matrix", rows, cols, K));
    Composition seen = test::make(completion("observed", rows, cols, K));
    const auto entries = seen.problem.oracle->matrix_entries();
    REQUIRE(entries);
    CHECK(whole.problem.oracle->matrix_entries() == nullptr);
    CHECK(seen.problem.dim() == entries->size());
    CHECK(seen.problem.dim() < rows * cols / 2);
    const Summary a = Solver(whole, whole.options).run();
    const Summary b = Solver(seen, seen.options).run();
    REQUIRE(a.iterations == K);
    REQUIRE(b.iterations == K);
    REQUIRE(b.factors.active());
    CHECK_FALSE(a.factors.active());
    const double scale = std::max(1.0, max_abs(a.y));
    // y at the entries, and the factors' matrix at every entry of the grid.
    double at_entries = 0.0, everywhere = 0.0, factors_vs_loop = 0.0;
    for (int k = 0; k < entries->size(); ++k) {
      const int i = entries->row[static_cast<size_t>(k)], j = entries->col[static_cast<size_t>(k)];
      at_entries = std::max(at_entries, std::abs(b.y[k] - a.y[static_cast<Eigen::Index>(i) * cols + j]));
      factors_vs_loop = std::max(factors_vs_loop, std::abs(b.factors.at(i, j) - b.y[k]));
    }
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        everywhere = std::max(everywhere, std::abs(b.factors.at(i, j) - a.y[static_cast<Eigen::Index>(i) * cols + j]));
    CHECK(at_entries <= 1e-12 * scale);
    CHECK(factors_vs_loop <= 1e-12 * scale);
    CHECK(everywhere <= 1e-12 * scale);
    CHECK(a.has_gap);
    // The gap reports see the entries only too: the same objective and gap, bit for bit.
    CHECK(b.final_objective == a.final_objective);
    CHECK(b.final_gap == a.final_gap);
    CHECK(b.best_gap == a.best_gap);
    // The factors' nuclear norm is at most the radius: the matrix is in the ball.
    Mat Y(rows, cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) Y(i, j) = b.factors.at(i, j);
    CHECK(Eigen::BDCSVD<Mat>(Y).singularValues().sum() <= 4.0 * (1.0 + 1e-12));
    // The loop's y at the entries is the whole run's y there, bit for bit.
    bool same = true;
    for (int k = 0; k < entries->size(); ++k)
      same = same && b.y[k] == a.y[static_cast<Eigen::Index>(entries->row[static_cast<size_t>(k)]) * cols + entries->col[static_cast<size_t>(k)]];
    CHECK(same);
  }
}

TEST_CASE("the factors' steps and compressions equal the dense accumulation to 1e-12") {
  const int rows = 30, cols = 20;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  Factors F(rows, cols);
  Mat Y = Mat::Zero(rows, cols);
  std::vector<Atom> pool(6);
  auto fresh = [&](Atom& a) {
    Vec u(rows), v(cols);
    for (auto& t : u) t = normal(rng);
    for (auto& t : v) t = normal(rng);
    a.set_rank_one(-4.0, u / u.norm(), v / v.norm());
  };
  for (Atom& a : pool) fresh(a);
  long steps = 0;
  for (int k = 0; k < 400; ++k) {
    // Three atoms of the pool (kept across steps, as column generation keeps its atoms), one of
    // them replaced every step: 400 new atoms in all, three times the capacity.
    fresh(pool[static_cast<size_t>(k % 6)]);
    AtomCombination c;
    const double w[3] = {0.5, 0.3, 0.2};
    for (int t = 0; t < 3; ++t) {
      c.atom.push_back(&pool[static_cast<size_t>((k + 2 * t) % 6)]);
      c.weight.push_back(w[t]);
    }
    const double gamma = 2.0 / (k + 3.0);
    REQUIRE(F.step(gamma, c));
    Y *= 1.0 - gamma;
    for (int t = 0; t < 3; ++t) Y += gamma * w[t] * c.atom[static_cast<size_t>(t)]->scale() * c.atom[static_cast<size_t>(t)]->u() * c.atom[static_cast<size_t>(t)]->v().transpose();
    ++steps;
  }
  CHECK(F.compressions() >= 2);
  CHECK(F.count() <= Factors::max_columns(rows, cols));
  CHECK(F.truncated() == 0.0);  // rank <= 20 = min(rows, cols): every compression exact
  // Each compression rounds at the scale of Y's largest singular value.
  double err = 0.0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) err = std::max(err, std::abs(F.at(i, j) - Y(i, j)));
  CHECK(err <= 1e-12 * Eigen::BDCSVD<Mat>(Y).singularValues()[0]);
  // An atom met again merges into its column; a dense atom is refused and changes nothing.
  fresh(pool[0]);
  AtomCombination again;
  again.atom = {&pool[0]};
  again.weight = {1.0};
  REQUIRE(F.step(0.1, again));
  const int before = F.count();
  REQUIRE(F.step(0.1, again));
  CHECK(F.count() == before);
  Atom dense;
  dense.set_dense(Vec::Ones(rows * cols));
  AtomCombination bad;
  bad.atom = {&dense};
  bad.weight = {1.0};
  const double c0 = F.coef(0);
  CHECK_FALSE(F.step(0.5, bad));
  CHECK(F.coef(0) == c0);
}

TEST_CASE("the solution file holds the factors, and the grid of a small matrix") {
  Composition c = test::make(completion("observed", 30, 20, 30));
  const Summary s = Solver(c, c.options).run();
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "scfw_test_factored_solution.json";
  write_solution(file, make_solution(c.problem, s, nullptr));
  const nlohmann::json doc = nlohmann::json::parse(std::ifstream(file));
  std::filesystem::remove(file);
  REQUIRE(doc.contains("factors"));
  CHECK(doc["factors"]["rows"] == 30);
  CHECK(doc["factors"]["coef"].size() == static_cast<size_t>(s.factors.count()));
  CHECK(doc["factors"]["u"][0].size() == 30u);
  CHECK(doc["factors"]["v"][0].size() == 20u);
  CHECK(doc["matrix"].size() == 30u);
  CHECK(doc["matrix"][7][5].get<double>() == s.factors.at(7, 5));
  CHECK(doc["x"]["values"].size() == static_cast<size_t>(c.problem.dim()));
}

TEST_CASE("observed coordinates: a domain of another shape is refused in one line") {
  nlohmann::json doc = completion("observed", 30, 20, 5);
  doc["domain"]["cols"] = 21;
  CHECK(test::input_error([&] { test::make(doc); }) ==
        "test.json: /domain/rows: the domain is 30 x 21 but the oracle's entries are of a 30 x 20 matrix");
}

TEST_CASE("a matrix of more than 2^31 - 1 cells: refused over the whole matrix, run at its entries") {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "scfw_test_factored_wide.data";
  std::ofstream(file) << "1 1 1\n1 50000 2\n50000 2 3\n50000 50000 4\n";
  nlohmann::json doc = nlohmann::json::parse(R"({
    "seed": 1, "iterations": 3,
    "oracle": { "plugin": "matrix_completion", "groups": 2, "jacobian": "sparse" },
    "outer": { "plugin": "norm", "p": "1" },
    "domain": { "plugin": "nuclear_ball", "rows": 50000, "cols": 50000, "radius": 2 } })");
  doc["oracle"]["file"] = file.string();
  CHECK(test::input_error([&] { test::make(doc); }) ==
        "test.json: /oracle/coordinates: x would hold rows x cols = 2500000000 numbers, more than a vector of scfw holds "
        "(2^31 - 1): give \"coordinates\": \"observed\"");
  doc["oracle"]["coordinates"] = "observed";
  Composition c = test::make(doc);
  CHECK(c.problem.dim() == 4);
  const Summary s = Solver(c, c.options).run();
  REQUIRE(s.factors.active());
  CHECK(s.factors.rows() == 50000);
  // The factors' 50000 x 50000 matrix at the entries is the loop's y there.
  for (int k = 0; k < 4; ++k) {
    const auto& e = *c.problem.oracle->matrix_entries();
    CHECK(std::abs(s.factors.at(e.row[static_cast<size_t>(k)], e.col[static_cast<size_t>(k)]) - s.y[k]) <= 1e-12);
  }
  std::filesystem::remove(file);
}

TEST_CASE("matrix_completion's batch 0 is the exact f and J, bit for bit") {
  nlohmann::json doc = completion("observed", 30, 20, 3);
  doc["oracle"]["batch"] = 0;
  Composition c = test::make(doc);
  const Oracle& o = *c.problem.oracle;
  const int d = o.dim(), n = o.outputs();
  Vec x(d);
  for (int k = 0; k < d; ++k) x[k] = std::sin(0.37 * k);
  auto sample = o.make_sample();
  Rng rng(5);
  o.draw(rng, *sample);
  Vec f1(n), f2(n);
  Jacobian J1 = make_jacobian(o), J2 = make_jacobian(o);
  o.evaluate(*sample, x, &f1, &J1);
  o.exact(x, &f2, &J2);
  CHECK(f1 == f2);
  CHECK(J1.values() == J2.values());
}
