// The projection onto the nuclear ball of bench_projected_subgradient (bench/nuclear_projection.hpp):
// the singular values' projection against the simplex-capped set's definition, and the matrix
// projection against the optimality condition of a Euclidean projection onto a convex set.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "../bench/nuclear_projection.hpp"

namespace {

Eigen::MatrixXd gaussian(int rows, int cols, unsigned seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd A(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) A(i, j) = normal(g);
  return A;
}

double nuclear(const Eigen::MatrixXd& A) { return Eigen::JacobiSVD<Eigen::MatrixXd>(A).singularValues().sum(); }

/// X projected by project_nuclear (x row-major).
Eigen::MatrixXd project(const Eigen::MatrixXd& X, double tau) {
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> R = X;
  scfw::bench::project_nuclear(R.data(), static_cast<int>(R.rows()), static_cast<int>(R.cols()), tau);
  return R;
}

}  // namespace

TEST_CASE("singular values projected onto the capped simplex: a worked case and the inside case") {
  // s = (5, 3, 1), tau = 4: theta = (5 + 3 - 4) / 2 = 2 (3 > 2, and 1 < (9 - 4) / 3), t = (3, 1, 0).
  Eigen::VectorXd s = Eigen::Vector3d(5, 3, 1);
  CHECK(scfw::bench::project_singular_values(s, 4.0) == 2);
  CHECK(s == Eigen::VectorXd(Eigen::Vector3d(3, 1, 0)));
  // Inside the set: unchanged, bitwise.
  Eigen::VectorXd u = Eigen::Vector3d(2, 1, 0);
  CHECK(scfw::bench::project_singular_values(u, 4.0) == 2);
  CHECK(u == Eigen::VectorXd(Eigen::Vector3d(2, 1, 0)));
}

TEST_CASE("the nuclear-ball projection is on the boundary and satisfies the projection's optimality condition") {
  for (const auto& [rows, cols] : {std::pair{6, 9}, std::pair{9, 6}, std::pair{7, 7}}) {
    const Eigen::MatrixXd X = gaussian(rows, cols, static_cast<unsigned>(rows * 100 + cols));
    const double tau = 0.3 * nuclear(X);
    const Eigen::MatrixXd P = project(X, tau);
    // On the boundary: ||P||_* = tau (X lies outside the ball).
    CHECK(nuclear(P) == doctest::Approx(tau).epsilon(1e-12));
    // P = argmin ||Z - X||_F over the ball iff <X - P, Z - P> <= 0 for every Z in the ball; the
    // largest <X - P, Z> over the ball is tau sigma_1(X - P) (at Z = tau u_1 v_1^T), so the
    // condition is tau sigma_1(X - P) <= <X - P, P>, and <X - P, P> <= ||X - P||_2 ||P||_* =
    // tau sigma_1(X - P) always: equality.
    const Eigen::MatrixXd D = X - P;
    const double sigma1 = Eigen::JacobiSVD<Eigen::MatrixXd>(D).singularValues()[0];
    CHECK((D.array() * P.array()).sum() == doctest::Approx(tau * sigma1).epsilon(1e-12));
    // And no point of the ball tried is closer to X: P + t (Z - P), Z the projection of a random
    // matrix (a point of the ball), t in (0, 1].
    for (unsigned k = 0; k < 5; ++k) {
      const Eigen::MatrixXd Z = project(gaussian(rows, cols, 1000 + k), tau);
      for (const double t : {1e-3, 0.1, 1.0}) CHECK((X - (P + t * (Z - P))).norm() >= D.norm());
    }
  }
  // Inside the ball: X itself, bitwise.
  const Eigen::MatrixXd Y = gaussian(5, 4, 7);
  const Eigen::MatrixXd Q = project(Y, 2.0 * nuclear(Y));
  CHECK((Q.array() == Y.array()).all());
}
