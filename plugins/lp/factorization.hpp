// The factorizations of scfw's LP engine: what a simplex driver asks of a basis matrix B (m x m,
// its columns by basis position), as one compile-time interface, and the dense implementations
// the GLMOs use. A driver is a template over the factorization, so the hot loop calls these
// members directly (no virtual call):
//
//   size()              m
//   ftran(v)            v := B^{-1} v
//   btran(v)            v := B^{-T} v
//   inverse_row(r, out) out := e_r^T B^{-1} (the pivot row's multipliers)
//   update(alpha, r)    B's column r replaced by a, alpha = B^{-1} a; false when the
//                       factorization wants a refactorization first (nothing changed)
//
// How B is handed over for a refactorization differs with what each one reads, so it is not part
// of the concept: DenseInverse (dense_kernel.hpp) and DenseLU take B written dense (row-major)
// after clear_matrix(); UnitBlockLU takes the dense columns of a basis that is mostly unit
// columns.
//
//   * DenseInverse: the explicit inverse, Gauss-Jordan, product-form updates in place;
//   * DenseLU: LU with partial pivoting and an eta file of product-form updates;
//   * UnitBlockLU: B = [I_S | D] by slot (unit columns e_q on the covered rows S, k dense columns
//     on the rest R), of which only the k x k block D_R is factorized by DenseLU.
#pragma once

#include "dense_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <vector>

namespace scfw::lp {

template <class F>
concept Factorization = requires(F f, const F cf, double* v, const double* a, int r) {
  { cf.size() } -> std::convertible_to<int>;
  f.ftran(v);
  f.btran(v);
  f.inverse_row(r, v);
  { f.update(a, r) } -> std::same_as<bool>;
};

// Partial pivoting in column k of a row-major matrix (row stride `stride`): the row among
// k..m-1 with the largest |entry| (the first on ties); best is that |entry|.
inline int partial_pivot(const double* a, size_t stride, int k, int m, double& best) {
  int p = k;
  best = std::abs(a[static_cast<size_t>(k) * stride + static_cast<size_t>(k)]);
  for (int r = k + 1; r < m; ++r) {
    const double v = std::abs(a[static_cast<size_t>(r) * stride + static_cast<size_t>(k)]);
    if (v > best) {
      best = v;
      p = r;
    }
  }
  return p;
}

// Dense LU with partial pivoting (row-major, P B = L U, L unit lower) and an eta file: the
// updates since the factorization are kept as their columns alpha (at most max_etas of them)
// and applied after the LU in ftran, before it (transposed, in reverse) in btran.
class DenseLU {
 public:
  // Room for an m x m matrix (capacity) and max_etas updates; allocates, so call it in setup.
  void resize(int capacity, int max_etas) {
    const size_t c = static_cast<size_t>(capacity);
    cap_ = capacity;
    max_etas_ = max_etas;
    m_ = capacity;
    lu_.assign(c * c, 0.0);
    perm_.assign(c, 0);
    tmp_.assign(c, 0.0);
    eta_.assign(c * static_cast<size_t>(std::max(0, max_etas)), 0.0);
    eta_row_.assign(static_cast<size_t>(std::max(0, max_etas)), 0);
    etas_ = 0;
  }
  int size() const { return m_; }
  int etas() const { return etas_; }
  // Original row of the a-th pivot row (the a-th row of P B).
  int perm(int a) const { return perm_[static_cast<size_t>(a)]; }

  // B (m x m, m <= capacity, row-major), zeroed, for the caller to fill before factor().
  double* clear_matrix(int m) {
    m_ = m;
    std::fill_n(lu_.begin(), static_cast<size_t>(m) * static_cast<size_t>(m), 0.0);
    return lu_.data();
  }

  // LU of the matrix written after clear_matrix(); the eta file is emptied. Column k is accepted
  // when its pivot exceeds limit(k). Returns -1, or the first column without an acceptable pivot
  // (perm(k) is then a row not yet pivoted on).
  template <class Limit>
  int factor(Limit limit) {
    const int m = m_;
    const size_t M = static_cast<size_t>(m);
    double* a = lu_.data();
    etas_ = 0;
    for (int r = 0; r < m; ++r) perm_[static_cast<size_t>(r)] = r;
    for (int k = 0; k < m; ++k) {
      double best = 0.0;
      const int p = partial_pivot(a, M, k, m, best);
      if (!(best > limit(k))) return k;
      if (p != k) {
        std::swap_ranges(a + static_cast<size_t>(k) * M, a + static_cast<size_t>(k + 1) * M, a + static_cast<size_t>(p) * M);
        std::swap(perm_[static_cast<size_t>(k)], perm_[static_cast<size_t>(p)]);
      }
      const double* uk = a + static_cast<size_t>(k) * M;
      const double inv = 1.0 / uk[k];
      for (int r = k + 1; r < m; ++r) {
        double* lr = a + static_cast<size_t>(r) * M;
        if (lr[k] == 0.0) continue;
        const double l = lr[k] * inv;
        lr[k] = l;
        for (int c = k + 1; c < m; ++c) lr[c] -= l * uk[c];
      }
    }
    return -1;
  }

  // v := B^{-1} v: L U v' = P v, then the etas E_1 .. E_e in order,
  // E = I - (alpha - e_r) e_r^T / alpha_r.
  void ftran(double* v) {
    solve_lu(v, v);
    const size_t M = static_cast<size_t>(m_);
    for (int k = 0; k < etas_; ++k) {
      const double* al = eta_.data() + static_cast<size_t>(k) * M;
      const int r = eta_row_[static_cast<size_t>(k)];
      const double vr = v[r] / al[r];
      for (size_t i = 0; i < M; ++i) v[i] -= al[i] * vr;
      v[r] = vr;
    }
  }
  // out := B^{-1} v without the eta file (out may be v).
  void solve_lu(const double* v, double* out) {
    const int m = m_;
    const size_t M = static_cast<size_t>(m);
    double* t = tmp_.data();
    for (int r = 0; r < m; ++r) t[r] = v[perm_[static_cast<size_t>(r)]];
    for (int r = 1; r < m; ++r) {
      const double* lr = lu_.data() + static_cast<size_t>(r) * M;
      double s = t[r];
      for (int c = 0; c < r; ++c) s -= lr[c] * t[c];
      t[r] = s;
    }
    for (int r = m - 1; r >= 0; --r) {
      const double* ur = lu_.data() + static_cast<size_t>(r) * M;
      double s = t[r];
      for (int c = r + 1; c < m; ++c) s -= ur[c] * out[c];
      out[r] = s / ur[r];
    }
  }

  // v := B^{-T} v: the etas transposed in reverse, (E^T v)_r = (v_r - sum_{i != r} alpha_i v_i) /
  // alpha_r; then U^T w = v, L^T u = w, v = P^T u.
  void btran(double* v) {
    const int m = m_;
    const size_t M = static_cast<size_t>(m);
    for (int k = etas_ - 1; k >= 0; --k) {
      const double* al = eta_.data() + static_cast<size_t>(k) * M;
      const int r = eta_row_[static_cast<size_t>(k)];
      double s = v[r];
      for (int i = 0; i < m; ++i)
        if (i != r) s -= al[i] * v[i];
      v[r] = s / al[r];
    }
    double* t = tmp_.data();
    for (int r = 0; r < m; ++r) t[r] = v[r];
    solve_lu_transposed(t);
    for (int r = 0; r < m; ++r) v[perm_[static_cast<size_t>(r)]] = t[r];
  }
  // t := (L U)^{-T} t, in the pivot order (the caller applies P^T).
  void solve_lu_transposed(double* t) const {
    const int m = m_;
    const size_t M = static_cast<size_t>(m);
    for (int r = 0; r < m; ++r) {  // U^T: column r of U is lu_[c * m + r], c <= r
      double s = t[r];
      for (int c = 0; c < r; ++c) s -= lu_[static_cast<size_t>(c) * M + static_cast<size_t>(r)] * t[c];
      t[r] = s / lu_[static_cast<size_t>(r) * M + static_cast<size_t>(r)];
    }
    for (int r = m - 2; r >= 0; --r) {  // L^T, unit diagonal
      double s = t[r];
      for (int c = r + 1; c < m; ++c) s -= lu_[static_cast<size_t>(c) * M + static_cast<size_t>(r)] * t[c];
      t[r] = s;
    }
  }

  void inverse_row(int r, double* out) {
    std::fill_n(out, static_cast<size_t>(m_), 0.0);
    out[r] = 1.0;
    btran(out);
  }

  // Appends alpha (= B^{-1} a, the entering column) as the eta of position r; false when the
  // file is full.
  bool update(const double* alpha, int r) {
    if (etas_ >= max_etas_) return false;
    std::copy_n(alpha, static_cast<size_t>(m_), eta_.begin() + static_cast<std::ptrdiff_t>(etas_) * m_);
    eta_row_[static_cast<size_t>(etas_)] = r;
    ++etas_;
    return true;
  }

 private:
  int cap_ = 0, m_ = 0, max_etas_ = 0, etas_ = 0;
  std::vector<double> lu_, tmp_, eta_;
  std::vector<int> perm_, eta_row_;
};

// B = [I_S | D] by slot, for a basis made mostly of unit columns: slot q (a row of B) holds the
// unit column e_q when q is covered, else one of k dense columns, the t-th of them in the t-th
// uncovered row rrows[t] (ascending). Only D_R (the dense columns' entries on the uncovered rows,
// k x k) is factorized:
//   B^{-1} a:  D_R x = a_R, then a_S - D_S x on the covered slots and x on the uncovered ones;
//   B^{-T} c:  pi_S = c_S, D_R^T pi_R = c_R - D_S^T c_S.
// The basis changes by refactorization (k is small); there is no update.
class UnitBlockLU {
 public:
  void resize(int rows) {
    rows_ = rows;
    lu_.resize(rows, 0);  // no eta file
    rrows_.assign(static_cast<size_t>(rows), -1);
    cols_.assign(static_cast<size_t>(rows), nullptr);
    covered_.assign(static_cast<size_t>(rows), 0);
    wk_.assign(static_cast<size_t>(rows), 0.0);
  }
  int size() const { return rows_; }
  int dense() const { return k_; }

  // covered(q): whether row q holds a unit column; col(t): the t-th dense column (rows_ entries,
  // kept alive by the caller until the next factor()). A pivot of D_R must exceed singular_tol
  // times max(1, the largest |entry| of D_R). Returns -1, or the dense column t that is dependent
  // on the earlier ones over R; then uncovered_row() names the row left without a pivot.
  template <class Covered, class Col>
  int factor(Covered covered, Col col, double singular_tol) {
    k_ = 0;
    for (int q = 0; q < rows_; ++q) {
      covered_[static_cast<size_t>(q)] = covered(q) ? 1 : 0;
      if (!covered_[static_cast<size_t>(q)]) rrows_[static_cast<size_t>(k_++)] = q;
    }
    const size_t K = static_cast<size_t>(k_);
    double* a = lu_.clear_matrix(k_);
    double scale = 0.0;
    for (int t = 0; t < k_; ++t) {
      const double* c = col(t);
      cols_[static_cast<size_t>(t)] = c;
      for (int r = 0; r < k_; ++r) {
        const double v = c[rrows_[static_cast<size_t>(r)]];
        a[static_cast<size_t>(r) * K + static_cast<size_t>(t)] = v;
        scale = std::max(scale, std::abs(v));
      }
    }
    const double limit = singular_tol * std::max(1.0, scale);
    bad_ = lu_.factor([limit](int) { return limit; });
    return bad_;
  }
  // After factor() returned t >= 0: the uncovered row whose pivot position t had no pivot.
  int uncovered_row() const { return rrows_[static_cast<size_t>(lu_.perm(bad_))]; }
  int row_of(int t) const { return rrows_[static_cast<size_t>(t)]; }

  // v (by row of B) := B^{-1} v (by slot).
  void ftran(double* v) {
    for (int t = 0; t < k_; ++t) wk_[static_cast<size_t>(t)] = v[rrows_[static_cast<size_t>(t)]];
    lu_.solve_lu(wk_.data(), wk_.data());
    for (int t = 0; t < k_; ++t) {
      const double xt = wk_[static_cast<size_t>(t)];
      if (xt == 0.0) continue;
      const double* c = cols_[static_cast<size_t>(t)];
      for (int q = 0; q < rows_; ++q)
        if (covered_[static_cast<size_t>(q)]) v[q] -= c[q] * xt;
    }
    for (int t = 0; t < k_; ++t) v[rrows_[static_cast<size_t>(t)]] = wk_[static_cast<size_t>(t)];
  }
  // The dense part of the last ftran: x_t of dense column t.
  double dense_value(int t) const { return wk_[static_cast<size_t>(t)]; }

  // c (by slot) := B^{-T} c (by row of B).
  void btran(double* c) {
    for (int t = 0; t < k_; ++t) wk_[static_cast<size_t>(t)] = c[rrows_[static_cast<size_t>(t)]];
    for (int t = 0; t < k_; ++t) c[rrows_[static_cast<size_t>(t)]] = 0.0;
    for (int t = 0; t < k_; ++t) {
      const double* col = cols_[static_cast<size_t>(t)];
      double s = wk_[static_cast<size_t>(t)];
      for (int q = 0; q < rows_; ++q) s -= col[q] * c[q];  // c_R is 0 here
      wk_[static_cast<size_t>(t)] = s;
    }
    lu_.solve_lu_transposed(wk_.data());
    for (int a = 0; a < k_; ++a) c[rrows_[static_cast<size_t>(lu_.perm(a))]] = wk_[static_cast<size_t>(a)];
  }
  void inverse_row(int r, double* out) {
    std::fill_n(out, static_cast<size_t>(rows_), 0.0);
    out[r] = 1.0;
    btran(out);
  }
  bool update(const double*, int) { return false; }

 private:
  int rows_ = 0, k_ = 0, bad_ = -1;
  DenseLU lu_;
  std::vector<int> rrows_;
  std::vector<const double*> cols_;
  std::vector<unsigned char> covered_;
  std::vector<double> wk_;
};

static_assert(Factorization<DenseInverse>);
static_assert(Factorization<DenseLU>);
static_assert(Factorization<UnitBlockLU>);

}  // namespace scfw::lp
