// Domain `nuclear_ball`: X = {X in R^{rows x cols} : ||X||_* <= radius}, matrices flattened
// row-major (x[i * cols + j] = X_ij), the domain of the paper's Task 3 (robust matrix
// completion, Section 6).
//
// It has no LP model (its facets are not finitely many): GLMOs that need a model (clp) refuse it,
// `column_generation` uses its LMO.
//   LMO: argmin_{||X||_* <= tau} <G, X> = -tau u1 v1^T, (u1, v1) the top singular pair of G
//        (the dual norm of the nuclear norm is the spectral norm), <G, X> = -tau sigma_max(G).
//
// The top pair when min(rows, cols) <= 128 (the Gram path), n = min(rows, cols): the top
// eigenvector of the smaller Gram matrix A (G^T G or G G^T, n x n), and only that one:
//   1. A = Q T Q^T, Householder tridiagonalization (Eigen::Tridiagonalization, 4/3 n^3 flops);
//   2. lambda_max(T) from above by Laguerre's method on det(T - x I): each step is one O(n) pivot
//      recurrence of T - x I = L D L^T, which also certifies (Sylvester's inertia: no positive
//      pivot) that x is still >= lambda_max; cubic once close, ~5 steps for a random G, stopped
//      ~1e-14 lambda_max above it;
//   3. inverse iteration on T with that shift, reusing its L D L^T (negative definite: stable),
//      O(n) per solve, 1-2 solves until ||T y - rho y|| <= 1e-14 lambda_max;
//   4. w = Q y with the stored reflectors (2 n^2 flops); then u = G v / ||G v|| (after v = G^T u /
//      ||G^T u|| when A = G G^T), so <G, u v^T> = ||G v|| to rounding.
// Why: this was a full Eigen::SelfAdjointEigenSolver (all n eigenvalues by QL iterations and all
// n eigenvectors accumulated) plus a power step, for one eigenvector. Column generation (Task 3)
// calls the LMO tens to hundreds of times per Frank-Wolfe iteration with quite different G, so a
// warm start does not help, but the work per call does: 30 x 20 went from ~278k to ~81k
// instructions per call (callgrind), 21.5 to 5.8 us, and 64 x 64 from 274 to 61 us
// (bench/bench_lmo). The accuracy is unchanged: sigma = ||G v|| within a few ulps of sigma_max
// (an eigenvector error only enters sigma squared), ||G^T u - sigma v|| ~ 1e-14 sigma
// (tests/test_nuclear_lmo.cpp). A repeated or clustered top singular value slows Laguerre to a
// linear rate (15-60 steps, still faster than before) and gives some vector of the top singular
// subspace (all optimal). Should the inverse iteration not converge (never seen), the full
// eigen-decomposition is the fallback. G with extreme entries is rescaled first (the Gram matrix
// must not overflow or underflow); G = 0 or a non-finite G gives the first basis vectors (any
// unit pair is optimal for G = 0). The work space is allocated in the constructor, not per call
// (mutable members, lmo() being const; as before, one instance must not be used by two threads
// at once).
//
// Otherwise, the top pair comes from Golub-Kahan-Lanczos bidiagonalization with full
// reorthogonalization (classical Gram-Schmidt twice), at most kLanczosSteps steps, ended early
// when the top Ritz triple's residual estimate is below 1e-12 theta (checked every 4 steps),
// restarted from the current Ritz vector until the residual ||G^T u - sigma v|| <= 1e-10 sigma
// computed with the true products (started from a fixed vector plus the previous call's vector:
// Frank-Wolfe directions drift slowly, but a fresh sample's G can be orthogonal to it). G enters
// only through G x and G^T x: the dense matrix for lmo(), for a sparse gradient (compact atoms: G
// given by its non-zeros, the atom returned as -tau u v^T's factors; docs/plugins.md, "The LMO")
// its non-zero values by rows, on only the rows and columns that hold one (the top pair lives
// there), so that a G of few non-zeros is a small problem (the bases in a work space sized once).
// The Ritz vector is the top eigenvector of the tridiagonal B^T B of the small bidiagonal B (a
// JacobiSVD of B took most of the time of this path). Every threshold
// is relative (breakdown against B's largest entry), B is brought near 1 by a power of two before
// its tridiagonal is solved, and G of extreme entries is rescaled by a power of two: the atom of
// c G is the atom of G from 1e-300 to 1e300 on both paths (tests/test_nuclear_lmo.cpp, "every
// scale"). Before that, the Lanczos path returned another atom for c G from a cold start (on
// that test's 140 x 130 matrix: <G, X> 23 % short of -tau sigma_1 at c = 1e-155, a wrong atom
// at 1e-200 .. 1e-300): Eigen's tridiagonal QR deflates with a test that is not scale-invariant,
// and B's squares under- or overflow.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <Eigen/Eigenvalues>  // Tridiagonalization, SelfAdjointEigenSolver
#include <Eigen/SVD>          // BDCSVD (tests and small matrices)

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The two products the Lanczos path needs, G x and G^T x, on a dense G.
struct DenseOp {
  const Eigen::Map<const RowMat>& G;
  int rows, cols;
  DenseOp(const Eigen::Map<const RowMat>& g) : G(g), rows(static_cast<int>(g.rows())), cols(static_cast<int>(g.cols())) {}
  template <class X>
  void mul(const X& x, Eigen::VectorXd& out) const { out.noalias() = G * x; }
  template <class X>
  void tmul(const X& x, Eigen::VectorXd& out) const { out.noalias() = G.transpose() * x; }
};

// The same on a sparse G in compressed rows (row i: columns j[m] and values g[m] for m in
// start[i] .. start[i+1]): O(nnz) per product, no rows x cols matrix.
struct SparseOp {
  const std::int64_t* start;
  const int* j;
  const double* g;
  int rows, cols;
  template <class X>
  void mul(const X& x, Eigen::VectorXd& out) const {
    out.resize(rows);
    for (int i = 0; i < rows; ++i)
      out[i] = scfw::sparse_row_sum(start[i], start[i + 1], [&](std::int64_t m) { return g[m] * x[j[m]]; });
  }
  template <class X>
  void tmul(const X& x, Eigen::VectorXd& out) const {
    out.setZero(cols);
    for (int i = 0; i < rows; ++i) {
      const double xi = x[i];
      if (xi == 0.0) continue;
      for (std::int64_t m = start[i]; m < start[i + 1]; ++m) out[j[m]] += g[m] * xi;
    }
  }
};

class NuclearBall final : public scfw::Domain {
 public:
  NuclearBall(const scfw::Params& p, const scfw::Context& c) {
    tau_ = p.get<double>("radius");
    rows_ = p.get<int>("rows");
    cols_ = p.get<int>("cols");
    entries_ = c.entries;
    if (entries_ && (entries_->rows != rows_ || entries_->cols != cols_))
      p.fail("rows", "the domain is " + std::to_string(rows_) + " x " + std::to_string(cols_) + " but the oracle's entries are of a " +
                         std::to_string(entries_->rows) + " x " + std::to_string(entries_->cols) + " matrix");
    if (!entries_ && std::int64_t{rows_} * cols_ > (std::int64_t{1} << 31) - 1) p.fail("cols", "rows * cols is too large");
    if (!entries_ && c.dim >= 1 && c.dim != rows_ * cols_)
      p.fail("rows", "the domain has dimension rows * cols = " + std::to_string(rows_ * cols_) +
                         " but the oracle has dimension " + std::to_string(c.dim));
    {
      // The LMO's work space: the singular vectors, the Lanczos bases (rows + cols) x kLanczosSteps of the
      // large case or the Gram matrix and its tridiagonalization of the small one, and the
      // rescaled copy of G (rows x cols) used when its entries are extreme.
      // Seen at the oracle's entries (Context::entries), the gradient is never a dense rows x cols
      // matrix, so the rescaled copy is needed by the Gram path only.
      const std::int64_t r = rows_, k = cols_, small = std::min(r, k);
      std::uint64_t bytes = scfw::bytes_of({r + k, 3 + kLanczosSteps, 8});
      if (!entries_ || small <= kDenseMax) bytes = scfw::add_bytes(bytes, scfw::bytes_of({r, k, 8}));
      if (small <= kDenseMax) bytes = scfw::add_bytes(bytes, scfw::bytes_of({small, small + 8, 16}));
      c.memory.reserve(bytes, "the LMO's work space (rows x cols = " + std::to_string(r) + " x " + std::to_string(k) + ")");
    }
    v_ = scfw::Vec::Zero(cols_);
    u_out_.resize(rows_);
    v_out_.resize(cols_);
    const int n = std::min(rows_, cols_);
    if (n > kDenseMax) {
      lanczos_p_.resize(rows_, std::min(n, kLanczosSteps));
      lanczos_q_.resize(cols_, std::min(n, kLanczosSteps));
    }
    if (n <= kDenseMax) {
      gram_.resize(n, n);
      tri_ = Eigen::Tridiagonalization<Eigen::MatrixXd>(n);
      for (Eigen::VectorXd* b : {&d_, &e_, &e2_, &r_, &y_, &ty_}) b->resize(n);
      // A fixed start with no special structure (entries of both signs, |entries| in [0.5, 1.5]).
      std::mt19937_64 rng(20240601);
      std::uniform_real_distribution<double> unif(0.5, 1.5);
      start_.resize(n);
      for (int i = 0; i < n; ++i) start_[i] = (rng() & 1 ? 1.0 : -1.0) * unif(rng);
    }
  }

  int dim() const override { return entries_ ? entries_->size() : rows_ * cols_; }
  std::vector<int> shape() const override {
    if (entries_) return {};
    return {rows_, cols_};
  }
  // No LP model (known through its LMO only); compact atoms; the Lanczos start as saved state.
  scfw::Capabilities capabilities() const override {
    return scfw::Capability::CompactAtoms | scfw::Capability::SavedState;
  }

  // A dense G gets the dense atom -tau u v^T. Compact atoms: a G given by its non-zeros (the
  // pattern's columns of a sparse Jacobian) gets -tau u v^T kept as its factors. The top pair
  // comes from the same two paths for both: the Lanczos path on sparse products (O(nnz) per
  // product, no rows x cols matrix), and, when min(rows, cols) <= kDenseMax, the Gram path on G
  // scattered into the rows x cols work space (the same arithmetic as the dense G's).
  // Seen at the oracle's entries, G is the matrix with g_k at entry k (zero elsewhere), and the
  // atom -tau u v^T is kept as its factors, seen at the entries: the same pair, bit for bit, as
  // the whole matrix's sparse gradient at those positions gets.
  void lmo(const scfw::Gradient& g, scfw::Atom& s) const override {
    if (entries_) {
      if (g.is_dense()) {
        const scfw::Vec& gd = g.dense();
        sparse_top_pair(static_cast<std::size_t>(gd.size()), [](std::size_t m) { return m; },
                        [&](std::size_t m) { return gd[static_cast<Eigen::Index>(m)]; }, true, u_out_, v_out_);
      } else {
        sparse_top_pair(g.index().size(), [&](std::size_t m) { return static_cast<std::size_t>(g.index()[m]); },
                        [&](std::size_t m) { return g.value()[m]; }, false, u_out_, v_out_, g.index());
      }
      s.set_rank_one(-tau_, u_out_, v_out_, entries_.get());
      return;
    }
    if (!g.is_dense()) {
      sparse_top_pair(g.index().size(), [&](std::size_t m) { return static_cast<std::size_t>(g.index()[m]); },
                      [&](std::size_t m) { return g.value()[m]; }, false, u_out_, v_out_, g.index());
      s.set_rank_one(-tau_, u_out_, v_out_);
      return;
    }
    const Eigen::Map<const RowMat> G(g.dense().data(), rows_, cols_);
    top_pair(G, u_out_, v_out_);
    scfw::Vec& x = s.set_dense(dim());
    Eigen::Map<RowMat> X(x.data(), rows_, cols_);
    X.noalias() = -tau_ * u_out_ * v_out_.transpose();
  }

  // Checkpoints: the Lanczos path starts from the previous call's right vector v_; the rest of
  // the work space is rewritten by every call.
  void save_state(scfw::StateWriter& w) const override { w.put("lanczos_start", v_); }
  void load_state(scfw::StateReader& r) override {
    r.get("lanczos_start", v_);
    r.check_finite("lanczos_start", v_);
  }

  scfw::Vec initial_point() const override { return scfw::Vec::Zero(dim()); }

  // Seen at entries, x is in the set {P(X) : ||X||_* <= tau} (P: the values at the entries);
  // deciding that exactly is a semidefinite program, so the test is the necessary condition the
  // LMO's inequality gives at G = P^T x: ||x||^2 = <G, X> <= tau sigma_max(G). Every atom meets
  // it with equality, and so does a convex combination of atoms that share a top pair.
  bool contains(const scfw::Vec& x, double tol) const override {
    if (x.size() != dim() || !x.allFinite()) return false;
    if (entries_) {
      const double xx = x.squaredNorm();
      if (xx == 0.0) return true;
      Eigen::VectorXd u, v;
      const Eigen::VectorXd start = v_;  // the LMO's warm start stays the LMO's
      sparse_top_pair(static_cast<std::size_t>(x.size()), [](std::size_t m) { return m; },
                      [&](std::size_t m) { return x[static_cast<Eigen::Index>(m)]; }, true, u, v);
      v_ = start;
      double sigma = 0.0;
      for (Eigen::Index k = 0; k < x.size(); ++k)
        sigma += x[k] * u[entries_->row[static_cast<std::size_t>(k)]] * v[entries_->col[static_cast<std::size_t>(k)]];
      return xx <= (tau_ + tol) * std::abs(sigma) * (1.0 + 1e-12);
    }
    const Eigen::Map<const RowMat> X(x.data(), rows_, cols_);
    const Eigen::MatrixXd dense = X;
    return Eigen::BDCSVD<Eigen::MatrixXd>(dense).singularValues().sum() <= tau_ + tol;
  }

 private:
  // The first basis vectors: the answer for a G that is 0 (any unit pair is optimal) or not finite.
  void first_unit_pair(Eigen::VectorXd& u, Eigen::VectorXd& v) const {
    u = Eigen::VectorXd::Unit(rows_, 0);
    v = Eigen::VectorXd::Unit(cols_, 0);
  }

  // The top singular pair (u, v) of G, unit vectors with G v = sigma u, sigma >= 0. A G that
  // is 0 or not finite gives the first basis vectors (any unit pair is optimal for G = 0).
  void top_pair(const Eigen::Map<const RowMat>& G, Eigen::VectorXd& u, Eigen::VectorXd& v) const {
    u.resize(rows_);
    v.resize(cols_);
    double scale = G.cwiseAbs().sum();  // one pass: NaN and inf propagate
    if (!(scale > 0.0 && scale <= std::numeric_limits<double>::max())) {
      if (scale == 0.0 || !G.allFinite()) {
        first_unit_pair(u, v);
        return;
      }
      scale = G.cwiseAbs().maxCoeff();  // finite entries whose sum overflows
    }
    // Entries far from 1 are rescaled first by a power of two (exact: the pair of 2^e G is the
    // pair of G bit for bit): the Gram matrix squares G, and the Lanczos vectors' norms square
    // their entries, so neither may see entries near the overflow or underflow threshold.
    const bool lanczos_path = std::min(rows_, cols_) > kDenseMax;
    const double limit = lanczos_path ? 1e60 : 1e100;
    if (scale > limit || scale < 1.0 / limit) {
      scaled_ = std::ldexp(1.0, -std::ilogb(scale)) * G;
      const Eigen::Map<const RowMat> S(scaled_.data(), rows_, cols_);
      if (lanczos_path)
        dense_lanczos(DenseOp{S}, u, v);
      else
        dense_top_pair(S, u, v);
    } else if (lanczos_path) {
      dense_lanczos(DenseOp{G}, u, v);
    } else {
      dense_top_pair(G, u, v);
    }
  }

  // (i, j) of the non-zero at `at`: a position i * cols + j of the whole matrix, or a
  // coordinate of the oracle's entries.
  std::pair<int, int> row_col(std::size_t at) const {
    if (entries_) return {entries_->row[at], entries_->col[at]};
    const int idx = static_cast<int>(at), i = idx / cols_;
    return {i, idx - i * cols_};
  }

  // top_pair() for a G given by its nnz non-zeros, the m-th at(m) (a position or an entry's
  // coordinate, strictly increasing: row-major) with value val(m). `index` is the list at()
  // reads, to keep the rows from one call to the next when it repeats (`all`: every entry).
  template <class At, class Val>
  void sparse_top_pair(std::size_t nnz, const At& at, const Val& val, bool all, Eigen::VectorXd& u, Eigen::VectorXd& v,
                       std::span<const int> index = {}) const {
    u.resize(rows_);
    v.resize(cols_);
    double scale = 0.0;
    for (std::size_t m = 0; m < nnz; ++m) scale += std::abs(val(m));
    bool finite = true;
    if (!(scale > 0.0 && scale <= std::numeric_limits<double>::max())) {
      double biggest = 0.0;
      for (std::size_t m = 0; m < nnz; ++m) {
        finite = finite && std::isfinite(val(m));
        biggest = std::max(biggest, std::abs(val(m)));
      }
      if (scale == 0.0 || !finite) {
        first_unit_pair(u, v);
        return;
      }
      scale = biggest;
    }
    const bool lanczos_path = std::min(rows_, cols_) > kDenseMax;
    const double limit = lanczos_path ? 1e60 : 1e100;
    const double factor = scale > limit || scale < 1.0 / limit ? std::ldexp(1.0, -std::ilogb(scale)) : 1.0;
    if (!lanczos_path) {
      // The Gram path on the scattered G (its work space is charged in the constructor).
      scaled_.setZero(rows_, cols_);
      for (std::size_t m = 0; m < nnz; ++m) {
        const auto [i, j] = row_col(at(m));
        scaled_(i, j) = factor * val(m);
      }
      const Eigen::Map<const RowMat> S(scaled_.data(), rows_, cols_);
      dense_top_pair(S, u, v);
      return;
    }
    // The compressed rows of the index, kept from the previous call when the index is the same
    // (column generation prices over one pattern: one comparison instead of a division per entry).
    const bool same = all ? sp_all_ && sp_j_.size() == nnz
                          : !sp_all_ && std::equal(index.begin(), index.end(), sp_index_.begin(), sp_index_.end());
    if (!same) {
      sp_all_ = all;
      sp_index_.assign(index.begin(), index.end());
      sp_start_.assign(static_cast<std::size_t>(rows_) + 1, 0);
      sp_j_.resize(nnz);
      for (std::size_t m = 0; m < nnz; ++m) {
        const auto [i, j] = row_col(at(m));
        ++sp_start_[static_cast<std::size_t>(i) + 1];
        sp_j_[m] = j;
      }
      for (int i = 0; i < rows_; ++i) sp_start_[static_cast<std::size_t>(i) + 1] += sp_start_[static_cast<std::size_t>(i)];
    }
    // The non-zeros only, on the rows and columns that hold one (the top pair of G lives there):
    // a G with few non-zeros, such as a batch-1 sample's under vanilla SCFW on a completion, is a
    // small problem, and a momentum average's G has exact zeros where no sample fell yet. With no
    // zero value and no empty row or column this is the whole pattern in its order: the same
    // operator, bit for bit.
    sp_g_.resize(nnz);
    cz_start_.assign(1, 0);
    cz_j_.clear();
    cz_rows_.clear();
    cz_cols_.clear();
    col_map_.assign(static_cast<std::size_t>(cols_), -1);
    for (int i = 0; i < rows_; ++i) {
      const std::size_t before = cz_j_.size();
      for (std::int64_t m = sp_start_[static_cast<std::size_t>(i)]; m < sp_start_[static_cast<std::size_t>(i) + 1]; ++m) {
        const double x = val(static_cast<std::size_t>(m));
        if (x == 0.0) continue;
        sp_g_[cz_j_.size()] = factor * x;
        cz_j_.push_back(sp_j_[static_cast<std::size_t>(m)]);
        col_map_[static_cast<std::size_t>(sp_j_[static_cast<std::size_t>(m)])] = 0;
      }
      if (cz_j_.size() > before) {
        cz_rows_.push_back(i);
        cz_start_.push_back(static_cast<std::int64_t>(cz_j_.size()));
      }
    }
    for (int j = 0; j < cols_; ++j)
      if (col_map_[static_cast<std::size_t>(j)] == 0) {
        col_map_[static_cast<std::size_t>(j)] = static_cast<int>(cz_cols_.size());
        cz_cols_.push_back(j);
      }
    for (int& j : cz_j_) j = col_map_[static_cast<std::size_t>(j)];
    const int r = static_cast<int>(cz_rows_.size()), c = static_cast<int>(cz_cols_.size());
    // The start on those columns: the fixed vector plus the previous call's right vector.
    Eigen::VectorXd start(c);
    const double vn = v_.size() == cols_ ? v_.norm() : 0.0;
    for (int jc = 0; jc < c; ++jc) {
      const Eigen::Index j = cz_cols_[static_cast<std::size_t>(jc)];
      start[jc] = vn > 0.0 ? cold()[j] + v_[j] / vn : cold()[j];
    }
    Eigen::VectorXd uc, vc;
    lanczos(SparseOp{cz_start_.data(), cz_j_.data(), sp_g_.data(), r, c}, start, uc, vc);
    u.setZero(rows_);
    v.setZero(cols_);
    for (int i = 0; i < r; ++i) u[cz_rows_[static_cast<std::size_t>(i)]] = uc[i];
    for (int jc = 0; jc < c; ++jc) v[cz_cols_[static_cast<std::size_t>(jc)]] = vc[jc];
    v_ = v;
  }

  // The fixed unit part of every Lanczos start (pseudo-random, a component along every direction).
  const Eigen::VectorXd& cold() const {
    if (cold_.size() != cols_) {
      std::mt19937_64 rng(12345);
      std::normal_distribution<double> normal;
      cold_.resize(cols_);
      for (int j = 0; j < cols_; ++j) cold_[j] = normal(rng);
      cold_ /= cold_.norm();
    }
    return cold_;
  }

  // Lanczos on a dense G (rows x cols) from the fixed vector plus the previous call's vector.
  template <class Op>
  void dense_lanczos(const Op& G, Eigen::VectorXd& u, Eigen::VectorXd& v) const {
    Eigen::VectorXd start = cold();
    if (v_.size() == cols_ && v_.norm() > 0.0) start += v_ / v_.norm();
    lanczos(G, start, u, v);
    v_ = v;
  }

  // min(rows, cols) <= kDenseMax: the top eigenvector of the smaller Gram matrix A (G^T G or
  // G G^T), as explained at the top of the file.
  void dense_top_pair(const Eigen::Map<const RowMat>& G, Eigen::VectorXd& u, Eigen::VectorXd& v) const {
    const bool right = cols_ <= rows_;  // A = G^T G (its eigenvector is v) or G G^T (it is u)
    const int n = right ? cols_ : rows_;
    Eigen::VectorXd& w = right ? v : u;  // the eigenvector of A
    gram_.setZero();
    if (right)
      gram_.selfadjointView<Eigen::Lower>().rankUpdate(G.transpose());
    else
      gram_.selfadjointView<Eigen::Lower>().rankUpdate(G);
    if (n == 1) {
      w.setOnes();
    } else if (!gram_top_eigenvector(n, w)) {
      // Not reached in our tests; the previous method, kept as a safety net.
      eig_.compute(gram_, Eigen::ComputeEigenvectors);
      w = eig_.eigenvectors().col(n - 1);
    }
    if (!right) {  // v = G^T u / ||G^T u||
      v.noalias() = G.transpose() * u;
      const double s = v.norm();
      if (!(s > 0.0)) {
        first_unit_pair(u, v);
        return;
      }
      v /= s;
    } else {
      v /= v.norm();
    }
    u.noalias() = G * v;  // u = G v / sigma: <G, u v^T> = sigma = ||G v|| to rounding
    const double sigma = u.norm();
    if (!(sigma > 0.0)) {
      first_unit_pair(u, v);
      return;
    }
    u /= sigma;
  }

  // The unit eigenvector w of the top eigenvalue of the n x n symmetric positive semi-definite
  // gram_ (lower triangle), n >= 2: Householder tridiagonalization A = Q T Q^T, the largest
  // eigenvalue of T from above by Laguerre's method on det(T - x I), inverse iteration on T with
  // that shift, then w = Q y. False if the inverse iteration did not converge (the caller then
  // falls back to a full eigen-decomposition).
  bool gram_top_eigenvector(int n, Eigen::VectorXd& w) const {
    tri_.compute(gram_);
    const auto& P = tri_.packedMatrix();  // T on the diagonal and subdiagonal, then Householder vectors
    // T / bound, with bound >= lambda_max(T) (the smaller of Gershgorin's and Frobenius' bounds):
    // the eigenvalues of the scaled T lie in [0, 1], so the Laguerre sums cannot overflow.
    double gersh = 0.0, frob = 0.0;
    for (int i = 0; i < n; ++i) {
      const double di = P(i, i);
      const double el = i > 0 ? std::abs(P(i, i - 1)) : 0.0, er = i + 1 < n ? std::abs(P(i + 1, i)) : 0.0;
      gersh = std::max(gersh, di + el + er);
      frob += di * di + 2.0 * er * er;
    }
    const double bound = std::min(gersh, std::sqrt(frob));
    if (!(bound > 0.0)) return false;
    const double inv = 1.0 / bound;
    double lo = 0.0;  // a lower bound of lambda_max: the largest diagonal entry
    for (int i = 0; i < n; ++i) {
      d_[i] = P(i, i) * inv;
      lo = std::max(lo, d_[i]);
      if (i + 1 < n) {
        e_[i] = P(i + 1, i) * inv;
        e2_[i] = e_[i] * e_[i];
      }
    }
    // Laguerre from above: for a polynomial with real roots, started above the largest root, the
    // iterates decrease monotonically to it, cubically for a simple root (linearly, by ~0.3 per
    // step, for a multiple one). Each step costs one pivot sequence of T - x I (n divisions),
    // which also says whether x is still above lambda_max (all pivots <= 0). Once the step is
    // tiny (the cubic phase) the next point aims a few ulps above the predicted lambda_max, so
    // that it is usually the last one; a point that rounding drops below lambda_max becomes the
    // lower bound, and points slightly above it are tried (then bisection).
    constexpr double tol = 1e-14;  // stop when x - lambda_max <~ tol (lambda_max ~ 1)
    double hi = 1.0 + 8.0 * std::numeric_limits<double>::epsilon() * n;
    double x = hi, bump = 4e-15;
    bool pivots_at_hi = false;
    for (int it = 0; it < 200; ++it) {
      double G1 = 0.0, H = 0.0;
      pivots_at_hi = sturm(n, x, &G1, &H);
      if (pivots_at_hi) {
        hi = x;
        const double disc = std::max(0.0, (n - 1) * (n * H - G1 * G1));
        const double step = n / (G1 + std::sqrt(disc));  // <= x - lambda_max (exactly)
        if (!(step > tol * x) || hi - lo <= tol * hi) break;
        x = step > 1e-8 * x ? x - step : x - step + 4e-15 * x;
        if (!(x > lo)) x = 0.5 * (lo + hi);
      } else {
        lo = x;
        if (hi - lo <= tol * hi) break;
        x = std::min(lo + bump * lo, 0.5 * (lo + hi));
        bump *= 16.0;
      }
    }
    // Inverse iteration with the shift hi >= lambda_max: T - hi I = L D L^T is negative definite,
    // its factorization stable; the start is a fixed pseudo-random vector.
    if (!pivots_at_hi) sturm(n, hi, nullptr, nullptr);  // the pivots 1 / D at hi, in r_
    Eigen::VectorXd& y = y_;
    y.head(n) = start_.head(n);
    double res = 0.0;
    for (int solve = 0; solve < 4; ++solve) {
      for (int i = 1; i < n; ++i) y[i] -= e_[i - 1] * r_[i - 1] * y[i - 1];  // L z = y
      for (int i = 0; i < n; ++i) y[i] *= r_[i];                            // D^{-1}
      for (int i = n - 2; i >= 0; --i) y[i] -= e_[i] * r_[i] * y[i + 1];    // L^T
      const double norm = y.head(n).norm();
      if (!(norm > 0.0) || !std::isfinite(norm)) return false;
      y.head(n) /= norm;
      // The residual of the Rayleigh pair, ||T y - rho y||, relative to lambda_max ~ hi (the scaled
      // T): 1e-14 is a few ulps; a cluster of eigenvalues closer than the shift's own error may stop
      // it higher, which only costs a residual of the size of the cluster's width.
      double rho = 0.0;
      for (int i = 0; i < n; ++i) {
        double t = d_[i] * y[i];
        if (i > 0) t += e_[i - 1] * y[i - 1];
        if (i + 1 < n) t += e_[i] * y[i + 1];
        ty_[i] = t;
        rho += t * y[i];
      }
      res = (ty_.head(n) - rho * y.head(n)).norm();
      if (res <= 1e-14 * hi) break;
    }
    // ||G^T u - sigma v|| = ||A v - sigma^2 v|| / sigma <= ~res / hi sigma: <= 1e-11 sigma.
    if (!(res <= 1e-11 * hi)) return false;
    // w = Q y, Q = H_0 H_1 ... H_{n-2}, H_k = I - h_k z_k z_k^T acting on entries k+1..n-1,
    // z_k = (1, P(k+2.., k)).
    w = y.head(n);
    const auto& h = tri_.householderCoefficients();
    for (int k = n - 2; k >= 0; --k) {
      const int len = n - k - 2;
      const double s = h[k] * (w[k + 1] + P.col(k).segment(k + 2, len).dot(w.segment(k + 2, len)));
      w[k + 1] -= s;
      w.segment(k + 2, len) -= s * P.col(k).segment(k + 2, len);
    }
    return true;
  }

  // The pivots q_i of T - x I = L D L^T (d_, e2_ the scaled T), their inverses in r_; true when
  // none is positive (x >= every eigenvalue: Sylvester's inertia). G1 = sum_j 1/(x - lambda_j)
  // and H = sum_j 1/(x - lambda_j)^2, from the derivatives of log |det(T - x I)| = sum log |q_i|
  // (q_i' and q_i'' follow the pivot recurrence). Pivots in (-1e-18, 0] are set to -1e-18: above
  // lambda_max, |q_i| >= x - lambda_max, so this only happens for x = lambda_max to within 1e-18,
  // where the inverse iteration must not divide by zero (a perturbation of T far below its
  // rounding errors).
  bool sturm(int n, double x, double* G1, double* H) const {
    constexpr double pivmin = 1e-18;
    double a = 0.0, b = 0.0, r = 0.0, g1 = 0.0, h2 = 0.0;
    bool above = true;
    for (int i = 0; i < n; ++i) {
      double q, qp, qpp;
      if (i == 0) {
        q = d_[0] - x;
        qp = -1.0;
        qpp = 0.0;
      } else {
        const double t = e2_[i - 1] * r;  // e^2 / q_{i-1}
        q = (d_[i] - x) - t;
        qp = -1.0 + t * a;
        qpp = t * (b - 2.0 * a * a);
      }
      if (q > 0.0) above = false;
      if (q > -pivmin && q <= 0.0) q = -pivmin;
      r = 1.0 / q;
      r_[i] = r;
      a = qp * r;
      b = qpp * r;
      g1 += a;
      h2 += a * a - b;
    }
    if (G1) *G1 = g1;
    if (H) *H = h2;
    return above;
  }

  // The eigen-decomposition of the tridiagonal B^T B of the first m columns of the bidiagonal B,
  // B scaled by a power of two near its largest entry bnorm (returned): see lanczos().
  static double ritz(const Eigen::MatrixXd& B, int m, double bnorm, Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>& small) {
    const double bscale = bnorm > 0.0 ? std::ldexp(1.0, -std::ilogb(bnorm)) : 1.0;
    Eigen::VectorXd diag(m), sub(std::max(m - 1, 1));
    for (int j = 0; j < m; ++j) {
      const double bjj = bscale * B(j, j), above = j > 0 ? bscale * B(j - 1, j) : 0.0;
      diag[j] = bjj * bjj + above * above;
      if (j + 1 < m) sub[j] = bjj * (bscale * B(j, j + 1));
    }
    small.computeFromTridiagonal(diag, sub.head(std::max(m - 1, 0)), Eigen::ComputeEigenvectors);
    return bscale;
  }

  // Lanczos on G (G.rows x G.cols) through its two products, G x and G^T x (Op: DenseOp or
  // SparseOp), from `start`. The start is a fixed pseudo-random unit vector plus the previous
  // call's right vector. The previous vector alone speeds up a drifting G but can be orthogonal to
  // the new G's top right singular vector (a fresh sample of a few entries, as under vanilla SCFW on
  // a completion): the Krylov space would then never contain it, and the answer would be another
  // singular pair that passes the residual test. The fixed part has a component along every
  // direction.
  template <class Op>
  void lanczos(const Op& G, Eigen::VectorXd start, Eigen::VectorXd& u, Eigen::VectorXd& v) const {
    const int rows = G.rows, cols = G.cols;
    const int k = std::min({rows, cols, kLanczosSteps});
    // The bases in the work space charged in the constructor (P: rows x k, Q: cols x k).
    auto P = lanczos_p_.topLeftCorner(rows, k);
    auto Q = lanczos_q_.topLeftCorner(cols, k);
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(k, k);  // upper bidiagonal: G Q = P B
    Eigen::VectorXd p(rows), q(cols), gv(rows), gtu(cols), h(k);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> small;
    for (int restart = 0; restart < 50; ++restart) {
      Q.col(0) = start / start.norm();
      int steps = k;
      double bnorm = 0.0;  // the largest entry of B so far
      for (int j = 0; j < k; ++j) {
        G.mul(Q.col(j), p);
        if (j > 0) p -= B(j - 1, j) * P.col(j - 1);
        // Reorthogonalize: classical Gram-Schmidt twice, as two matrix-vector products each.
        for (int pass = 0; pass < 2 && j > 0; ++pass) {
          h.head(j).noalias() = P.leftCols(j).transpose() * p;
          p.noalias() -= P.leftCols(j) * h.head(j);
        }
        const double alpha = p.norm();
        B(j, j) = alpha;
        bnorm = std::max(bnorm, alpha);
        // Breakdown (an invariant subspace): relative to the largest entry of B so far, so that
        // G and c G take the same steps.
        if (alpha <= 1e-15 * bnorm || alpha == 0.0) { steps = j + 1; P.col(j).setZero(); break; }
        P.col(j) = p / alpha;
        if (j + 1 == k) break;
        G.tmul(P.col(j), q);
        q -= alpha * Q.col(j);
        for (int pass = 0; pass < 2; ++pass) {
          h.head(j + 1).noalias() = Q.leftCols(j + 1).transpose() * q;
          q.noalias() -= Q.leftCols(j + 1) * h.head(j + 1);
        }
        const double beta = q.norm();
        if (beta <= 1e-14 * alpha) { steps = j + 1; break; }
        B(j, j + 1) = beta;
        bnorm = std::max(bnorm, beta);
        Q.col(j + 1) = q / beta;
        // Every 4 steps, the top Ritz triple of B's first m = j + 1 columns: its residual
        // ||G^T x - theta w|| is beta |s_m| = beta alpha_m |t_m| / theta (t the top eigenvector
        // of B^T B, s = B t / theta), so the bidiagonalization stops once that is <= 1e-12 theta;
        // the residual test after it decides with the true products.
        if ((j + 1) % 4 == 0) {
          const int m = j + 1;
          const double bs = ritz(B, m, bnorm, small);
          const double theta2 = small.eigenvalues()[m - 1] / (bs * bs);
          if (beta * alpha * std::abs(small.eigenvectors()(m - 1, m - 1)) <= 1e-12 * theta2) {
            steps = m;
            break;
          }
        }
      }
      // The top right singular vector of the bidiagonal B = the top eigenvector of the
      // tridiagonal B^T B (diagonal B_jj^2 + B_{j-1,j}^2, off-diagonal B_jj B_{j,j+1}); squaring
      // loses nothing for the largest singular value, and the residual test below decides. B is
      // divided by a power of two near its largest entry first: Eigen's tridiagonal QR deflates
      // a subdiagonal entry e when (e / eps)^2 <= |d_i| + |d_i+1|, a test that is not invariant
      // under scaling (it deflated everything for G of entries near 1e-16, and squared entries
      // overflow beyond 1e154), so the tridiagonal it sees always has entries near 1.
      ritz(B, steps, bnorm, small);
      v = Q.leftCols(steps) * small.eigenvectors().col(steps - 1);
      v /= v.norm();
      G.mul(v, gv);
      const double sigma = gv.norm();
      if (sigma == 0.0) {  // G = 0: any unit pair is optimal
        u = Eigen::VectorXd::Unit(rows, 0);
        v = Eigen::VectorXd::Unit(cols, 0);
        return;
      }
      u = gv / sigma;
      G.tmul(u, gtu);
      const double residual = (gtu - sigma * v).norm();
      start = v;
      if (residual <= 1e-10 * sigma) break;
      B.setZero();
    }
  }

  // min(rows, cols) up to this: the Gram matrix path. Measured (bench_lmo): 100 x 100 costs
  // 242 us there against ~860 us by Lanczos (the MovieLens sub-matrix of Task 3).
  static constexpr int kDenseMax = 128;
  // The Lanczos path's Krylov dimension before a restart (from the top Ritz vector). The
  // bidiagonalization stops earlier when the Ritz residual is small (checked every 4 steps), so a
  // larger subspace costs only the calls that need it: those whose top singular values cluster,
  // where a restart throws away what a longer run would keep (MovieLens-100K: see
  // docs/performance.md, "Sparse Jacobians").
  static constexpr int kLanczosSteps = 120;

  double tau_ = 1.0;
  int rows_ = 1, cols_ = 1;
  mutable Eigen::VectorXd v_;  // the previous call's right vector: the next Lanczos start
  mutable Eigen::VectorXd cold_;  // the fixed unit part of every Lanczos start
  // The LMO's work space, sized in the constructor (no allocation per call).
  mutable Eigen::VectorXd u_out_, v_out_;  // the top pair
  mutable RowMat scaled_;                  // G rescaled when its entries are extreme (rare: sized on first use)
  mutable Eigen::MatrixXd gram_;           // the Gram matrix (lower triangle)
  mutable Eigen::Tridiagonalization<Eigen::MatrixXd> tri_;  // gram_ = Q T Q^T
  mutable Eigen::VectorXd d_, e_, e2_;     // T / bound: diagonal, subdiagonal, its squares
  mutable Eigen::VectorXd r_, y_, ty_;     // 1 / pivots of T - x I, the inverse iteration's y and T y
  Eigen::VectorXd start_;                  // the inverse iteration's fixed start
  mutable std::vector<std::int64_t> sp_start_;  // a sparse gradient's G by rows: row starts,
  mutable std::vector<int> sp_j_;                // columns
  mutable std::vector<int> sp_index_;            // the index they were built from
  mutable bool sp_all_ = false;                  // or: built from every entry of entries_
  std::shared_ptr<const scfw::MatrixEntries> entries_;  // the oracle's entries the ball is seen at, or null
  mutable std::vector<double> sp_g_;       // the non-zero values (rescaled), in the compressed rows' order
  mutable std::vector<std::int64_t> cz_start_;  // the non-zeros by rows: starts over the rows that hold one,
  mutable std::vector<int> cz_j_;                // their columns among the columns that hold one,
  mutable std::vector<int> cz_rows_, cz_cols_;   // those rows and columns
  mutable std::vector<int> col_map_;             // a column's place among them
  mutable Eigen::MatrixXd lanczos_p_, lanczos_q_;  // the Lanczos bases' work space
  mutable Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig_;  // the fallback only
};

void register_components(scfw::Registrar& r) {
  r.add<NuclearBall>(
      "nuclear_ball",
      "X = {X in R^{rows x cols} : ||X||_* <= radius} (x = X row-major, or X at the oracle's entries under "
      "matrix_completion's \"coordinates\": \"observed\"); LMO -radius u1 v1^T (Task 3)",
      {scfw::ParamSpec::integer("rows", "number of rows of the matrix").at_least(1).require(),
       scfw::ParamSpec::integer("cols", "number of columns of the matrix").at_least(1).require(),
       scfw::ParamSpec::number("radius", "radius tau of the nuclear-norm ball").positive().def(1.0)});
}

}  // namespace

SCFW_PLUGIN("nuclear_ball", SCFW_PLUGIN_VERSION, register_components)
