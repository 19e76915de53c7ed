// Domain `nuclear_ball`: X = {X in R^{rows x cols} : ||X||_* <= radius}, matrices flattened
// row-major (x[i * cols + j] = X_ij), the domain of the paper's Task 3 (robust matrix
// completion, Section 6).
//
// It has no LP model (its facets are not finitely many): GLMOs that need a model (clp) refuse it,
// `column_generation` uses its LMO.
//   LMO: argmin_{||X||_* <= tau} <G, X> = -tau u1 v1^T, (u1, v1) the top singular pair of G
//        (the dual norm of the nuclear norm is the spectral norm), <G, X> = -tau sigma_max(G).
// The top pair comes from a dense symmetric eigen-decomposition of the smaller Gram matrix (G^T G
// or G G^T, Eigen::SelfAdjointEigenSolver) refined by a power step, when min(rows, cols) <= 64,
// and otherwise
// from Golub-Kahan-Lanczos bidiagonalization with full reorthogonalization, restarted from the
// current Ritz vector until the residual ||G^T u - sigma v|| <= 1e-10 sigma (warm-started from
// the previous call's vector: Frank-Wolfe directions drift slowly).
#include <scfw/scfw.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}

class NuclearBall final : public scfw::Domain {
 public:
  NuclearBall(const scfw::Params& p, const scfw::Context& c) {
    tau_ = p.has("radius") ? p.number("radius") : 1.0;
    if (!(tau_ > 0.0) || !std::isfinite(tau_)) p.fail("radius", "expected a number > 0, got " + fmt(tau_));
    if (!p.has("rows")) p.fail("rows", "required: the number of rows of the matrix");
    if (!p.has("cols")) p.fail("cols", "required: the number of columns of the matrix");
    const std::int64_t r = p.integer("rows"), k = p.integer("cols");
    if (r < 1) p.fail("rows", "expected an integer >= 1, got " + std::to_string(r));
    if (k < 1) p.fail("cols", "expected an integer >= 1, got " + std::to_string(k));
    if (r * k > (std::int64_t{1} << 31) - 1) p.fail("cols", "rows * cols is too large");
    rows_ = static_cast<int>(r);
    cols_ = static_cast<int>(k);
    if (c.dim >= 1 && c.dim != rows_ * cols_)
      p.fail("rows", "the domain has dimension rows * cols = " + std::to_string(rows_ * cols_) +
                         " but the oracle has dimension " + std::to_string(c.dim));
    v_ = scfw::Vec::Zero(cols_);
  }

  int dim() const override { return rows_ * cols_; }
  bool has_model() const override { return false; }

  void lmo(const scfw::Vec& g, scfw::Vec& x) const override {
    const Eigen::Map<const RowMat> G(g.data(), rows_, cols_);
    Eigen::VectorXd u, v;
    top_pair(G, u, v);
    x.resize(dim());
    Eigen::Map<RowMat> X(x.data(), rows_, cols_);
    X.noalias() = -tau_ * u * v.transpose();
  }

  scfw::Vec initial_point() const override { return scfw::Vec::Zero(dim()); }
  double diameter() const override { return 2.0 * tau_; }  // ||X - (-X)||_F for a rank-one X

  bool contains(const scfw::Vec& x, double tol) const override {
    if (x.size() != dim() || !x.allFinite()) return false;
    const Eigen::Map<const RowMat> X(x.data(), rows_, cols_);
    const Eigen::MatrixXd dense = X;
    return Eigen::BDCSVD<Eigen::MatrixXd>(dense).singularValues().sum() <= tau_ + tol;
  }

 private:
  // The top singular pair (u, v) of G, unit vectors with G v = sigma u, sigma >= 0.
  void top_pair(const Eigen::Map<const RowMat>& G, Eigen::VectorXd& u, Eigen::VectorXd& v) const {
    if (std::min(rows_, cols_) <= 64) {
      // Eigen-decomposition of the smaller Gram matrix (G^T G or G G^T; several times faster than
      // a dense SVD at these sizes), then one power step through G for full accuracy: sigma =
      // ||G v|| is then accurate to a few ulps of sigma_max, and <G, u v^T> = ||G v|| exactly up
      // to rounding.
      if (cols_ <= rows_) {
        gram_.noalias() = G.transpose() * G;
        eig_.compute(gram_, Eigen::ComputeEigenvectors);
        v = eig_.eigenvectors().col(cols_ - 1);
        power_step(G, u, v);
      } else {
        gram_.noalias() = G * G.transpose();
        eig_.compute(gram_, Eigen::ComputeEigenvectors);
        u = eig_.eigenvectors().col(rows_ - 1);
        v = G.transpose() * u;
        const double s = v.norm();
        if (s == 0.0) {
          u = Eigen::VectorXd::Unit(rows_, 0);
          v = Eigen::VectorXd::Unit(cols_, 0);
          return;
        }
        v /= s;
        power_step(G, u, v);
      }
      return;
    }
    lanczos(G, u, v);
  }

  // From a unit right vector v: u = G v / ||G v||, then v = G^T u / ||G^T u||, u = G v / ||G v||
  // (one step of the power method on G^T G). G = 0: any unit pair.
  void power_step(const Eigen::Map<const RowMat>& G, Eigen::VectorXd& u, Eigen::VectorXd& v) const {
    for (int step = 0; step < 2; ++step) {
      u.noalias() = G * v;
      const double sigma = u.norm();
      if (sigma == 0.0) {
        u = Eigen::VectorXd::Unit(rows_, 0);
        v = Eigen::VectorXd::Unit(cols_, 0);
        return;
      }
      u /= sigma;
      if (step == 1) return;
      v.noalias() = G.transpose() * u;
      v /= v.norm();
    }
  }

  void lanczos(const Eigen::Map<const RowMat>& G, Eigen::VectorXd& u, Eigen::VectorXd& v) const {
    const int k = std::min({rows_, cols_, 40});
    Eigen::VectorXd start = v_;
    if (start.norm() == 0.0) {
      std::mt19937_64 rng(12345);
      std::normal_distribution<double> normal;
      for (int j = 0; j < cols_; ++j) start[j] = normal(rng);
    }
    Eigen::MatrixXd P(rows_, k), Q(cols_, k);
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(k, k);  // upper bidiagonal: G Q = P B
    for (int restart = 0; restart < 50; ++restart) {
      Q.col(0) = start / start.norm();
      int steps = k;
      for (int j = 0; j < k; ++j) {
        Eigen::VectorXd p = G * Q.col(j);
        if (j > 0) p -= B(j - 1, j) * P.col(j - 1);
        for (int i = 0; i < j; ++i) p -= P.col(i).dot(p) * P.col(i);  // reorthogonalize
        const double alpha = p.norm();
        B(j, j) = alpha;
        if (alpha <= 1e-300) { steps = j + 1; P.col(j).setZero(); break; }
        P.col(j) = p / alpha;
        if (j + 1 == k) break;
        Eigen::VectorXd q = G.transpose() * P.col(j) - alpha * Q.col(j);
        for (int i = 0; i <= j; ++i) q -= Q.col(i).dot(q) * Q.col(i);
        const double beta = q.norm();
        if (beta <= 1e-14 * alpha) { steps = j + 1; break; }
        B(j, j + 1) = beta;
        Q.col(j + 1) = q / beta;
      }
      Eigen::JacobiSVD<Eigen::MatrixXd> small(B.topLeftCorner(steps, steps), Eigen::ComputeFullU | Eigen::ComputeFullV);
      v = Q.leftCols(steps) * small.matrixV().col(0);
      v /= v.norm();
      Eigen::VectorXd gv = G * v;
      const double sigma = gv.norm();
      if (sigma == 0.0) {  // G = 0: any unit pair is optimal
        u = Eigen::VectorXd::Unit(rows_, 0);
        v = Eigen::VectorXd::Unit(cols_, 0);
        return;
      }
      u = gv / sigma;
      const double residual = (G.transpose() * u - sigma * v).norm();
      start = v;
      if (residual <= 1e-10 * sigma) break;
      B.setZero();
    }
    v_ = v;
  }

  double tau_ = 1.0;
  int rows_ = 1, cols_ = 1;
  mutable Eigen::VectorXd v_;
  mutable Eigen::MatrixXd gram_;                                 // the dense path's Gram matrix
  mutable Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig_;  // and its eigen-solver  // the previous call's right vector: the next Lanczos start
};

void register_components(scfw::Registrar& r) {
  r.add<NuclearBall>(
      scfw::Kind::Domain, "nuclear_ball",
      "X = {X in R^{rows x cols} : ||X||_* <= radius} (x = X row-major); LMO -radius u1 v1^T (Task 3)",
      {scfw::ParamSpec::integer("rows", "number of rows of the matrix").range(1, scfw::inf).require(),
       scfw::ParamSpec::integer("cols", "number of columns of the matrix").range(1, scfw::inf).require(),
       scfw::ParamSpec::number("radius", "radius tau of the nuclear-norm ball").positive().def(1.0)});
}

}  // namespace

SCFW_PLUGIN("nuclear_ball", "0.1.0", register_components)
