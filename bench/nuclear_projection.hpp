// The Euclidean projection onto the nuclear ball {X : ||X||_* <= tau} by a full SVD, the step of
// the projected subgradient method of bench_projected_subgradient (docs/results.md, "The case for
// Frank-Wolfe on the nuclear ball"). tests/test_nuclear_projection.cpp checks it.
//
// For X = U diag(s) V^T, the projection is U diag(t) V^T with t the Euclidean projection of s onto
// {t >= 0, sum t <= tau}: the nuclear norm is unitarily invariant, so the problem separates
// into the singular values.
#pragma once

#include <algorithm>

#include <Eigen/Dense>
#include <Eigen/SVD>

namespace scfw::bench {

/// Projects the singular values s (non-negative, in decreasing order, as BDCSVD returns them)
/// onto {t >= 0, sum t <= tau}: s itself when sum s <= tau, else t_i = max(s_i - theta, 0) with
/// theta > 0 such that sum t = tau. Returns the number of non-zero t_i.
inline Eigen::Index project_singular_values(Eigen::VectorXd& s, double tau) {
  if (s.sum() <= tau) {
    Eigen::Index r = 0;
    while (r < s.size() && s[r] > 0.0) ++r;
    return r;
  }
  // The largest r with s_r > (sum_{i <= r} s_i - tau) / r (1-based): theta is that quotient.
  double cumulative = 0.0, theta = 0.0;
  Eigen::Index r = 0;
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    cumulative += s[i];
    const double t = (cumulative - tau) / static_cast<double>(i + 1);
    if (s[i] > t) {
      r = i + 1;
      theta = t;
    }
  }
  for (Eigen::Index i = 0; i < s.size(); ++i) s[i] = std::max(s[i] - theta, 0.0);
  return r;
}

/// X (rows x cols, row-major in x) replaced by its Euclidean projection onto {||X||_* <= tau}.
/// Returns the nuclear norm before the projection.
/// BDCSVD of the Eigen in use (3.4.0 here) returned NaN singular values on some rank-deficient
/// iterates (a few hundred non-zeros in a 943 x 1682 matrix): such a decomposition is redone by
/// JacobiSVD, slower and robust, and `fallbacks` (if not null) counts it.
inline double project_nuclear(double* x, int rows, int cols, double tau, long* fallbacks = nullptr) {
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> X(x, rows, cols);
  const Eigen::MatrixXd A = X;
  auto finish = [&](const auto& svd) {
    Eigen::VectorXd s = svd.singularValues();
    const double before = s.sum();
    if (before <= tau) return before;  // inside the ball: X is its own projection
    const Eigen::Index r = project_singular_values(s, tau);
    X.noalias() = svd.matrixU().leftCols(r) * s.head(r).asDiagonal() * svd.matrixV().leftCols(r).transpose();
    return before;
  };
  Eigen::BDCSVD<Eigen::MatrixXd> svd(A, Eigen::ComputeThinU | Eigen::ComputeThinV);
  if (svd.singularValues().allFinite() && svd.matrixU().allFinite() && svd.matrixV().allFinite()) return finish(svd);
  if (fallbacks) ++*fallbacks;
  return finish(Eigen::JacobiSVD<Eigen::MatrixXd>(A, Eigen::ComputeThinU | Eigen::ComputeThinV));
}

}  // namespace scfw::bench
