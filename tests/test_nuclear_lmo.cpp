// The LMO of the `nuclear_ball` domain (loaded as the real plugin) against an independent dense
// SVD (Eigen::BDCSVD), on fixed seeds, for ~2000 matrices of assorted shapes and spectra: random
// 30x20, 20x30, 1x7, 7x1, 5x5, 64x10, 64x64, 100x100 (the MovieLens sub-matrix; the Gram path goes
// up to min(rows, cols) = 128), rank-deficient, a
// duplicated and a nearly duplicated (1 and 1 - 1e-9) top singular value, clusters, structured
// (diagonal, one nonzero entry), extreme scales, G = 0, drifting sequences, and a few matrices of
// the Lanczos path (min(rows, cols) > 128). For each answer X = lmo(G):
//   * <G, X> = -tau sigma_max(G) to 1e-10 relative;
//   * X is rank one with nuclear norm tau (singular values tau, 0, ...) and lies in the ball;
//   * X = -tau u v^T with (u, v) a top singular pair: ||G^T u - sigma v|| <= 1e-10 sigma and
//     ||G v - sigma u|| <= 1e-10 sigma.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "plugin_support.hpp"

using namespace scfw;
using namespace scfw::test;

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::unique_ptr<Domain> make_nuclear(int rows, int cols, double tau) {
  return make<Domain>("nuclear_ball",
                      params({{"rows", std::int64_t{rows}}, {"cols", std::int64_t{cols}}, {"radius", tau}}),
                      context(rows * cols, 1));
}

Eigen::MatrixXd gaussian(int m, int n, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  Eigen::MatrixXd a(m, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) a(i, j) = normal(rng);
  return a;
}

// An m x k matrix with orthonormal columns (k <= m).
Eigen::MatrixXd orthonormal(int m, int k, std::mt19937_64& rng) {
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(gaussian(m, k, rng));
  return qr.householderQ() * Eigen::MatrixXd::Identity(m, k);
}

// U diag(s) V^T with random orthonormal U (m x k), V (n x k), k = s.size() <= min(m, n).
Eigen::MatrixXd with_singular_values(int m, int n, const Eigen::VectorXd& s, std::mt19937_64& rng) {
  const int k = static_cast<int>(s.size());
  return orthonormal(m, k, rng) * s.asDiagonal() * orthonormal(n, k, rng).transpose();
}

// min(m, n) singular values: uniform in [0, 0.9) below the given top ones.
Eigen::VectorXd spectrum(int m, int n, const std::vector<double>& top, std::mt19937_64& rng) {
  const int k = std::min(m, n);
  std::uniform_real_distribution<double> unif(0.0, 0.9);
  Eigen::VectorXd s(k);
  for (int i = 0; i < k; ++i) s[i] = i < static_cast<int>(top.size()) ? top[static_cast<size_t>(i)] : unif(rng);
  return s;
}

struct Worst {
  double value = 0, residual = 0, rank = 0, nuclear = 0;
  int checked = 0;
};

// Checks one LMO answer against BDCSVD; returns nothing, records the worst errors.
void check_answer(const Domain& ball, const Eigen::MatrixXd& G, double tau, Worst& worst, const std::string& what) {
  const int m = static_cast<int>(G.rows()), n = static_cast<int>(G.cols());
  const RowMat Gr = G;
  const Vec g = Eigen::Map<const Vec>(Gr.data(), m * n);
  Vec x;
  lmo_dense(ball, g, x);
  REQUIRE(x.size() == m * n);
  REQUIRE(x.allFinite());
  const Eigen::Map<const RowMat> X(x.data(), m, n);
  const double sigma = Eigen::BDCSVD<Eigen::MatrixXd>(G).singularValues()(0);
  const double value = g.dot(x);

  // <G, X> = -tau sigma_max(G).
  const double value_err = std::abs(value + tau * sigma) / std::max(tau * sigma, std::numeric_limits<double>::min());
  if (sigma > 0.0) {
    CHECK_MESSAGE(value_err <= 1e-10, what << ": <G, X> = " << value << ", -tau sigma_max = " << -tau * sigma);
    worst.value = std::max(worst.value, value_err);
  } else {
    CHECK(value == 0.0);
  }

  // Rank one, nuclear norm tau, in the ball.
  const Eigen::MatrixXd Xd = X;
  const Eigen::VectorXd sx = Eigen::BDCSVD<Eigen::MatrixXd>(Xd).singularValues();
  CHECK_MESSAGE(std::abs(sx(0) - tau) <= 1e-12 * tau, what << ": top singular value of X " << sx(0));
  const double tail = sx.size() > 1 ? sx.tail(sx.size() - 1).sum() : 0.0;
  CHECK_MESSAGE(tail <= 1e-12 * tau, what << ": X is not rank one, other singular values sum to " << tail);
  CHECK(ball.contains(x, 1e-9 * tau));
  worst.rank = std::max(worst.rank, tail / tau);
  worst.nuclear = std::max(worst.nuclear, std::abs(sx.sum() - tau) / tau);

  // X = -tau u v^T: v from X's largest row, u = -X v / tau; (u, v) is a top singular pair.
  if (sigma > 0.0) {
    Eigen::Index i = 0;
    Xd.rowwise().norm().maxCoeff(&i);
    const Eigen::VectorXd v = Xd.row(i).transpose().normalized();
    const Eigen::VectorXd u = -Xd * v / tau;
    CHECK(std::abs(u.norm() - 1.0) <= 1e-12);
    const double s = u.dot(G * v);
    // stableNorm: G may hold entries near 1e300, whose squares overflow.
    const double res = std::max((G.transpose() * u - s * v).stableNorm(), (G * v - s * u).stableNorm()) / sigma;
    CHECK_MESSAGE(res <= 1e-10, what << ": residual of the singular pair " << res);
    worst.residual = std::max(worst.residual, res);
  }
  ++worst.checked;
}

struct Shape {
  int rows, cols;
};

}  // namespace

TEST_CASE("nuclear_ball LMO: random matrices of assorted shapes") {
  std::mt19937_64 rng(2024);
  const std::vector<Shape> shapes = {{30, 20}, {20, 30}, {1, 7}, {7, 1}, {5, 5}, {64, 10}, {10, 64}, {2, 2}, {1, 1}, {64, 64}};
  const std::vector<int> counts = {300, 300, 100, 100, 200, 150, 100, 100, 20, 40};
  Worst worst;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const Shape sh = shapes[k];
    const double tau = 0.5 + static_cast<double>(k);
    const auto ball = make_nuclear(sh.rows, sh.cols, tau);  // one instance: its work space is reused
    for (int t = 0; t < counts[k]; ++t) {
      Eigen::MatrixXd G = gaussian(sh.rows, sh.cols, rng);
      if (t % 3 == 1) G *= 1e-3;  // scale does not matter
      if (t % 3 == 2) G *= 1e4;
      check_answer(*ball, G, tau, worst, std::to_string(sh.rows) + "x" + std::to_string(sh.cols) + " #" + std::to_string(t));
    }
  }
  MESSAGE("random: " << worst.checked << " matrices, worst value error " << worst.value << ", residual " << worst.residual);
  CHECK(worst.checked == 1410);
}

TEST_CASE("nuclear_ball LMO: rank-deficient, duplicated and nearly duplicated top singular values, clusters") {
  std::mt19937_64 rng(7);
  const std::vector<Shape> shapes = {{30, 20}, {20, 30}, {5, 5}, {64, 10}, {64, 64}};
  Worst worst;
  for (const Shape sh : shapes) {
    const int k = std::min(sh.rows, sh.cols);
    const auto ball = make_nuclear(sh.rows, sh.cols, 2.0);
    const std::string name = std::to_string(sh.rows) + "x" + std::to_string(sh.cols);
    const int reps = sh.rows * sh.cols >= 4096 ? 4 : 12;
    for (int t = 0; t < reps; ++t) {
      // Rank r < min(m, n): a product of thin Gaussian factors.
      for (int r : {1, 2, 3}) {
        if (r >= k) continue;
        check_answer(*ball, gaussian(sh.rows, r, rng) * gaussian(r, sh.cols, rng), 2.0, worst, name + " rank " + std::to_string(r));
      }
      // Zero rows and columns.
      Eigen::MatrixXd Z = gaussian(sh.rows, sh.cols, rng);
      Z.row(0).setZero();
      Z.col(sh.cols - 1).setZero();
      if (k > 1) check_answer(*ball, Z, 2.0, worst, name + " zero row and column");
      // Duplicated top singular value (1, 1, then < 0.9), and three equal ones.
      check_answer(*ball, with_singular_values(sh.rows, sh.cols, spectrum(sh.rows, sh.cols, {1.0, 1.0}, rng), rng), 2.0, worst,
                   name + " duplicated top");
      check_answer(*ball, with_singular_values(sh.rows, sh.cols, spectrum(sh.rows, sh.cols, {3.0, 3.0, 3.0}, rng), rng), 2.0,
                   worst, name + " triple top");
      // Nearly duplicated: 1 and 1 - 1e-9, and 1 and 1 - 1e-14 (the pair cannot be resolved).
      check_answer(*ball, with_singular_values(sh.rows, sh.cols, spectrum(sh.rows, sh.cols, {1.0, 1.0 - 1e-9}, rng), rng), 2.0,
                   worst, name + " near-duplicate 1e-9");
      check_answer(*ball, with_singular_values(sh.rows, sh.cols, spectrum(sh.rows, sh.cols, {1.0, 1.0 - 1e-14}, rng), rng), 2.0,
                   worst, name + " near-duplicate 1e-14");
      // Half of the spectrum equal to the top one; all equal (a multiple of an orthonormal matrix).
      Eigen::VectorXd half = spectrum(sh.rows, sh.cols, {}, rng);
      half.head((k + 1) / 2).setConstant(1.5);
      check_answer(*ball, with_singular_values(sh.rows, sh.cols, half, rng), 2.0, worst, name + " half cluster");
      check_answer(*ball, with_singular_values(sh.rows, sh.cols, Eigen::VectorXd::Constant(k, 0.7), rng), 2.0, worst,
                   name + " all equal");
      // Geometric decay 1, 1/2, 1/4, ... (most of the Gram spectrum below rounding).
      Eigen::VectorXd geo(k);
      for (int i = 0; i < k; ++i) geo[i] = std::ldexp(1.0, -i);
      check_answer(*ball, with_singular_values(sh.rows, sh.cols, geo, rng), 2.0, worst, name + " geometric");
    }
  }
  MESSAGE("structured spectra: " << worst.checked << " matrices, worst value error " << worst.value << ", residual "
                                 << worst.residual);
  CHECK(worst.checked > 400);
}

TEST_CASE("nuclear_ball LMO: G = 0, structured matrices, extreme scales, non-finite G") {
  std::mt19937_64 rng(11);
  Worst worst;
  for (const Shape sh : std::vector<Shape>{{30, 20}, {20, 30}, {1, 7}, {7, 1}, {5, 5}, {64, 10}, {1, 1}}) {
    const double tau = 1.25;
    const auto ball = make_nuclear(sh.rows, sh.cols, tau);
    const std::string name = std::to_string(sh.rows) + "x" + std::to_string(sh.cols);
    const int k = std::min(sh.rows, sh.cols);
    // G = 0: any rank-one matrix of nuclear norm tau is optimal (value 0).
    check_answer(*ball, Eigen::MatrixXd::Zero(sh.rows, sh.cols), tau, worst, name + " zero");
    // Between two non-zero calls too (the work space must not remember anything wrong).
    check_answer(*ball, gaussian(sh.rows, sh.cols, rng), tau, worst, name + " after zero");
    check_answer(*ball, Eigen::MatrixXd::Zero(sh.rows, sh.cols), tau, worst, name + " zero again");
    // One non-zero entry, anywhere; a diagonal; all ones (rank one); a constant column.
    for (int t = 0; t < 5; ++t) {
      Eigen::MatrixXd E = Eigen::MatrixXd::Zero(sh.rows, sh.cols);
      E(static_cast<int>(rng() % static_cast<unsigned>(sh.rows)), static_cast<int>(rng() % static_cast<unsigned>(sh.cols))) =
          (t % 2 ? -1.0 : 1.0) * (1.0 + t);
      check_answer(*ball, E, tau, worst, name + " one entry");
    }
    Eigen::MatrixXd D = Eigen::MatrixXd::Zero(sh.rows, sh.cols);
    for (int i = 0; i < k; ++i) D(i, i) = 1.0 + 0.1 * i;
    check_answer(*ball, D, tau, worst, name + " diagonal");
    D.setZero();
    for (int i = 0; i < k; ++i) D(i, i) = 2.0;  // a multiple of [I 0]: every singular value equal
    check_answer(*ball, D, tau, worst, name + " 2 [I 0]");
    check_answer(*ball, Eigen::MatrixXd::Ones(sh.rows, sh.cols), tau, worst, name + " ones");
    // Extreme scales: the Gram matrix of G would overflow / underflow without rescaling.
    for (double scale : {1e-160, 1e-120, 1e120, 1e160}) {
      const Eigen::MatrixXd S = scale * gaussian(sh.rows, sh.cols, rng);
      check_answer(*ball, S, tau, worst, name + " scale 1e" + std::to_string(static_cast<int>(std::lround(std::log10(scale)))));
    }
    // Non-finite G: an answer in the ball, finite (like the l2 ball's LMO).
    Eigen::MatrixXd N = gaussian(sh.rows, sh.cols, rng);
    N(0, 0) = std::numeric_limits<double>::quiet_NaN();
    const RowMat Nr = N;
    Vec x;
    lmo_dense(*ball, Eigen::Map<const Vec>(Nr.data(), sh.rows * sh.cols), x);
    CHECK(x.allFinite());
    CHECK(ball->contains(x, 1e-9));
  }
  MESSAGE("structured matrices: " << worst.checked << " checked, worst value error " << worst.value);
}

TEST_CASE("nuclear_ball LMO: drifting sequences (as under Frank-Wolfe) and the Lanczos path") {
  std::mt19937_64 rng(5);
  Worst worst;
  for (const Shape sh : std::vector<Shape>{{30, 20}, {20, 30}, {64, 64}, {70, 66}, {100, 100}, {140, 130}}) {
    const auto ball = make_nuclear(sh.rows, sh.cols, 3.0);
    Eigen::MatrixXd G = gaussian(sh.rows, sh.cols, rng);
    const int steps = std::min(sh.rows, sh.cols) > 64 ? 10 : 60;
    for (int t = 0; t < steps; ++t) {
      G = 0.99 * G + 0.01 * gaussian(sh.rows, sh.cols, rng);
      check_answer(*ball, G, 3.0, worst, std::to_string(sh.rows) + "x" + std::to_string(sh.cols) + " drift");
    }
    // A Lanczos-path matrix with a nearly duplicated top singular value, and G = 0 there.
    if (std::min(sh.rows, sh.cols) > 64) {  // 140 x 130: the Lanczos path; the others: large Gram matrices
      check_answer(*ball, with_singular_values(sh.rows, sh.cols, spectrum(sh.rows, sh.cols, {1.0, 1.0 - 1e-9}, rng), rng), 3.0,
                   worst, "lanczos near-duplicate");
      check_answer(*ball, Eigen::MatrixXd::Zero(sh.rows, sh.cols), 3.0, worst, "lanczos zero");
    }
  }
  MESSAGE("drift: " << worst.checked << " matrices, worst value error " << worst.value << ", residual " << worst.residual);
}

TEST_CASE("nuclear_ball LMO: the same atom for G and c G at every scale, on both paths, from a cold start") {
  // The LMO's answer is invariant under G -> c G (c > 0): the atom of c G is the atom of G. Every
  // threshold in the LMO is relative, so that holds from 1e-300 to 1e300 for the Gram path
  // (min(rows, cols) <= 128) and for the Lanczos path alike; a fresh ball per call (cold start).
  std::mt19937_64 rng(17);
  Worst worst;
  for (const Shape sh : std::vector<Shape>{{30, 20}, {140, 130}, {129, 300}}) {
    const double tau = 2.0;
    const Eigen::MatrixXd G = gaussian(sh.rows, sh.cols, rng);
    const std::string name = std::to_string(sh.rows) + "x" + std::to_string(sh.cols);
    Vec reference;
    {
      const RowMat Gr = G;
      lmo_dense(*make_nuclear(sh.rows, sh.cols, tau), Eigen::Map<const Vec>(Gr.data(), sh.rows * sh.cols), reference);
    }
    for (double c : {1e-300, 1e-250, 1e-200, 1e-155, 1e-100, 1e-18, 1e-16, 1e-12, 0.3, 1.0, 7.0, 1e12, 1e80, 1e155,
                     1e200, 1e250, 1e300}) {
      const auto ball = make_nuclear(sh.rows, sh.cols, tau);
      const Eigen::MatrixXd S = c * G;
      char label[32];
      std::snprintf(label, sizeof label, " c = %g", c);
      const std::string what = name + label;
      check_answer(*ball, S, tau, worst, what);
      const RowMat Sr = S;
      Vec x;
      lmo_dense(*ball, Eigen::Map<const Vec>(Sr.data(), sh.rows * sh.cols), x);
      // The atom -tau u v^T is unique up to nothing (sigma_1 of a Gaussian matrix is simple).
      CHECK_MESSAGE((x - reference).norm() <= 1e-9 * tau, what << ": atom differs from c = 1 by " << (x - reference).norm());
    }
  }
  MESSAGE("scales: " << worst.checked << " matrices, worst value error " << worst.value << ", residual " << worst.residual);
}

// --- The compact LMO on a sparse G (a sparse Gradient): G given by its non-zeros, the atom as factors.

namespace {

// The non-zeros of G (row-major order) as a sparse Gradient over the buffers given.
Gradient nonzeros(const RowMat& G, std::vector<int>& index, std::vector<double>& value) {
  index.clear();
  value.clear();
  for (int i = 0; i < G.rows(); ++i)
    for (int j = 0; j < G.cols(); ++j)
      if (G(i, j) != 0.0) {
        index.push_back(i * static_cast<int>(G.cols()) + j);
        value.push_back(G(i, j));
      }
  return Gradient::sparse(static_cast<int>(G.size()), index, value);
}

// A rows x cols matrix with about density * rows * cols Gaussian entries at random places.
RowMat sparse_gaussian(int rows, int cols, double density, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  RowMat G = RowMat::Zero(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      if (unif(rng) < density) G(i, j) = normal(rng);
  return G;
}

// The compact answer for G, as a dense vector; checks its form (rank one, scale -tau, unit factors).
Vec sparse_answer(const Domain& ball, const RowMat& G, double tau) {
  std::vector<int> index;
  std::vector<double> value;
  Atom s;
  ball.lmo(nonzeros(G, index, value), s);
  REQUIRE(s.kind() == Atom::Kind::RankOne);
  REQUIRE(s.rows() == G.rows());
  REQUIRE(s.cols() == G.cols());
  CHECK(s.scale() == -tau);
  CHECK(std::abs(s.u().norm() - 1.0) <= 1e-12);
  CHECK(std::abs(s.v().norm() - 1.0) <= 1e-12);
  Vec x;
  s.to_dense(x);
  return x;
}

}  // namespace

TEST_CASE("nuclear_ball compact LMO: the dense path's atom on random sparse G, both paths") {
  // Against lmo() on the same G made dense: the same atom to 1e-9 tau when sigma_1 is simple, the
  // same value -tau sigma_1 to 1e-10 relative always (a repeated top singular value has a whole
  // subspace of optimal atoms), on the Gram path (30 x 20, 20 x 30, 64 x 64) and the Lanczos path
  // (140 x 130, 129 x 300, 300 x 200), densities 0.02 to 0.5.
  std::mt19937_64 rng(41);
  int compared = 0;
  for (const Shape sh : std::vector<Shape>{{30, 20}, {20, 30}, {64, 64}, {140, 130}, {129, 300}, {300, 200}}) {
    const double tau = 1.5;
    const auto dense_ball = make_nuclear(sh.rows, sh.cols, tau);
    const auto sparse_ball = make_nuclear(sh.rows, sh.cols, tau);  // each keeps its own warm start
    const std::string name = std::to_string(sh.rows) + "x" + std::to_string(sh.cols);
    for (double density : {0.02, 0.1, 0.5}) {
      for (int t = 0; t < 4; ++t) {
        const RowMat G = sparse_gaussian(sh.rows, sh.cols, density, rng);
        const Vec g = Eigen::Map<const Vec>(G.data(), G.size());
        Vec xd;
        lmo_dense(*dense_ball, g, xd);
        const Vec xs = sparse_answer(*sparse_ball, G, tau);
        const Eigen::VectorXd sv = Eigen::BDCSVD<Eigen::MatrixXd>(Eigen::MatrixXd(G)).singularValues();
        CAPTURE(name);
        CAPTURE(density);
        CHECK(std::abs(g.dot(xs) + tau * sv(0)) <= 1e-10 * tau * sv(0));
        if (sv(0) - sv(1) > 1e-6 * sv(0)) {
          CHECK_MESSAGE((xs - xd).norm() <= 1e-9 * tau, name << ": the atoms differ by " << (xs - xd).norm());
          ++compared;
        }
      }
    }
    // Repeated and nearly repeated top singular values, sparse: a diagonal (1, 1, 0.5, ...) and
    // (1, 1 - 1e-9, 0.5, ...) placed on a random permutation of rows and columns; two equal
    // sparse blocks.
    const int k = std::min(sh.rows, sh.cols);
    std::vector<int> prow(static_cast<size_t>(sh.rows)), pcol(static_cast<size_t>(sh.cols));
    for (int i = 0; i < sh.rows; ++i) prow[static_cast<size_t>(i)] = i;
    for (int j = 0; j < sh.cols; ++j) pcol[static_cast<size_t>(j)] = j;
    std::shuffle(prow.begin(), prow.end(), rng);
    std::shuffle(pcol.begin(), pcol.end(), rng);
    for (double second : {1.0, 1.0 - 1e-9}) {
      RowMat D = RowMat::Zero(sh.rows, sh.cols);
      for (int i = 0; i < k; ++i)
        D(prow[static_cast<size_t>(i)], pcol[static_cast<size_t>(i)]) = i == 0 ? 1.0 : i == 1 ? second : 0.5 / (1 + i);
      const Vec g = Eigen::Map<const Vec>(D.data(), D.size());
      const Vec xs = sparse_answer(*sparse_ball, D, tau);
      CHECK(std::abs(g.dot(xs) + tau) <= 1e-10 * tau);
    }
    RowMat B = RowMat::Zero(sh.rows, sh.cols);
    const RowMat block = sparse_gaussian(k / 2, k / 2, 0.3, rng);
    B.topLeftCorner(k / 2, k / 2) = block;
    B.block(k / 2, k / 2, k / 2, k / 2) = block;
    const double sb = Eigen::BDCSVD<Eigen::MatrixXd>(Eigen::MatrixXd(B)).singularValues()(0);
    const Vec gb = Eigen::Map<const Vec>(B.data(), B.size());
    const Vec xb = sparse_answer(*sparse_ball, B, tau);
    CHECK(std::abs(gb.dot(xb) + tau * sb) <= 1e-10 * tau * sb);
  }
  CHECK(compared >= 60);
}

TEST_CASE("nuclear_ball compact LMO: the same atom for G and c G at every scale, on both paths, from a cold start") {
  // As for lmo(): every threshold is relative and extreme entries are rescaled by a power of two,
  // so the compact atom of c G is the dense path's atom of G from 1e-300 to 1e300.
  std::mt19937_64 rng(19);
  for (const Shape sh : std::vector<Shape>{{30, 20}, {140, 130}, {129, 300}}) {
    const double tau = 2.0;
    const RowMat G = sparse_gaussian(sh.rows, sh.cols, 0.1, rng);
    const std::string name = std::to_string(sh.rows) + "x" + std::to_string(sh.cols);
    Vec reference;
    lmo_dense(*make_nuclear(sh.rows, sh.cols, tau), Eigen::Map<const Vec>(G.data(), G.size()), reference);
    const auto reused = make_nuclear(sh.rows, sh.cols, tau);  // the same index every call: kept structures
    for (double c : {1e-300, 1e-250, 1e-200, 1e-155, 1e-100, 1e-18, 1e-16, 1e-12, 0.3, 1.0, 7.0, 1e12, 1e80, 1e155,
                     1e200, 1e250, 1e300}) {
      const RowMat S = c * G;
      const Vec x = sparse_answer(*make_nuclear(sh.rows, sh.cols, tau), S, tau);
      CHECK(x.allFinite());
      CHECK_MESSAGE((x - reference).norm() <= 1e-9 * tau, name << " c = " << c << ": atom differs by " << (x - reference).norm());
      const Vec xr = sparse_answer(*reused, S, tau);
      CHECK_MESSAGE((xr - reference).norm() <= 1e-9 * tau, name << " c = " << c << ", reused: atom differs by " << (xr - reference).norm());
    }
  }
}

TEST_CASE("nuclear_ball compact LMO: G = 0 and a non-finite G give a unit pair, like lmo()") {
  for (const Shape sh : std::vector<Shape>{{30, 20}, {140, 130}}) {
    const auto ball = make_nuclear(sh.rows, sh.cols, 1.0);
    const Vec x0 = sparse_answer(*ball, RowMat::Zero(sh.rows, sh.cols), 1.0);
    Vec ref;
    lmo_dense(*ball, Vec::Zero(sh.rows * sh.cols), ref);
    CHECK(x0 == ref);
    RowMat N = RowMat::Zero(sh.rows, sh.cols);
    N(1, 2) = std::numeric_limits<double>::infinity();
    CHECK(sparse_answer(*ball, N, 1.0) == ref);
  }
}

TEST_CASE("nuclear_ball LMO: a gradient orthogonal to the previous call's vector still gets its top pair (warm start)") {
  // As under vanilla SCFW on a large completion: each call's G holds a fresh sample of a few
  // entries, each in its own row and column, so sigma_1 = max |G_ij| (exact) and the previous
  // call's right vector is orthogonal to the new G's row space. The Lanczos path (min(rows, cols)
  // > 128) must not start from that vector alone: it would see G^T G v = 0 and answer as for G = 0.
  std::mt19937_64 rng(77);
  const int rows = 300, cols = 500;
  const double tau = 2.0;
  const auto sparse_ball = make_nuclear(rows, cols, tau);
  const auto dense_ball = make_nuclear(rows, cols, tau);
  std::uniform_real_distribution<double> unif(0.5, 1.5);
  for (int call = 0; call < 12; ++call) {
    std::vector<int> prow(static_cast<size_t>(rows)), pcol(static_cast<size_t>(cols));
    for (int i = 0; i < rows; ++i) prow[static_cast<size_t>(i)] = i;
    for (int j = 0; j < cols; ++j) pcol[static_cast<size_t>(j)] = j;
    std::shuffle(prow.begin(), prow.end(), rng);
    std::shuffle(pcol.begin(), pcol.end(), rng);
    RowMat G = RowMat::Zero(rows, cols);
    double top = 0.0;
    for (int e = 0; e < 45; ++e) {
      const double value = (rng() & 1 ? 1.0 : -1.0) * unif(rng);
      G(prow[static_cast<size_t>(e)], pcol[static_cast<size_t>(e)]) = value;
      top = std::max(top, std::abs(value));
    }
    const Vec g = Eigen::Map<const Vec>(G.data(), G.size());
    Vec xd;
    lmo_dense(*dense_ball, g, xd);
    const Vec xs = sparse_answer(*sparse_ball, G, tau);
    CAPTURE(call);
    CHECK(std::abs(g.dot(xd) + tau * top) <= 1e-10 * tau * top);
    CHECK(std::abs(g.dot(xs) + tau * top) <= 1e-10 * tau * top);
  }
}
