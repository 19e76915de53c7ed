// The dense simplex kernel of scfw's LP engine: the explicit basis inverse (row-major m x m,
// Gauss-Jordan factorization with partial pivoting, product-form updates, ftran) of
// dense_simplex's bounded dual simplex, and the primal tolerance at a bound. Every row r of the
// dense codes carries a logical s_r = a_r^T v, so the system is [A  -I] (v, s) = 0 with bounds on
// every variable; the tolerances are settings.hpp's. DenseInverse is one of the factorizations of
// factorization.hpp; dense_simplex and column generation's master (dense_master.hpp) run on it.
#pragma once

#include <scfw/scfw.hpp>

#include "settings.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace scfw::lp {

// The primal tolerance at a finite bound.
inline double primal_tol(double bound) { return kDefaults.primal_tol * std::max(1.0, std::abs(bound)); }

// The explicit inverse of an m x m basis matrix, row-major.
class DenseInverse {
 public:
  void resize(int m) {
    m_ = m;
    const size_t mm = static_cast<size_t>(m) * static_cast<size_t>(m);
    binv_.assign(mm, 0.0);
    bmat_.assign(mm, 0.0);
    work_.assign(mm, 0.0);
    pivrow_.assign(static_cast<size_t>(m), -1);
    order_.assign(static_cast<size_t>(m), 0);
    row_used_.assign(static_cast<size_t>(m), 0);
    tmp_.assign(static_cast<size_t>(m), 0.0);
  }
  int size() const { return m_; }
  const double* row(int i) const { return binv_.data() + static_cast<size_t>(i) * static_cast<size_t>(m_); }
  double at(int i, int c) const { return binv_[static_cast<size_t>(i) * static_cast<size_t>(m_) + static_cast<size_t>(c)]; }
  void set(int i, int c, double v) { binv_[static_cast<size_t>(i) * static_cast<size_t>(m_) + static_cast<size_t>(c)] = v; }

  // The basis matrix B to factorize (row-major), zeroed; the caller writes its columns.
  double* clear_matrix() {
    std::fill(bmat_.begin(), bmat_.end(), 0.0);
    return bmat_.data();
  }

  // Gauss-Jordan with partial pivoting on the matrix written after clear_matrix(); the columns k
  // with first(k) (unit columns: they pivot without fill-in) go first. A column whose best pivot
  // among the rows not yet used is <= singular_tol max(1, max_r |B_rk|) is rejected
  // (pivot_row(k) = -1). Returns the number rejected; with none, the inverse is in place.
  template <class First>
  int invert(First first) {
    const int m = m_;
    const size_t M = static_cast<size_t>(m);
    std::fill(work_.begin(), work_.end(), 0.0);
    for (int i = 0; i < m; ++i) work_[static_cast<size_t>(i) * M + static_cast<size_t>(i)] = 1.0;
    std::fill(row_used_.begin(), row_used_.end(), 0);
    int rejected = 0;
    int n = 0;
    for (int pass = 0; pass < 2; ++pass)
      for (int k = 0; k < m; ++k)
        if (static_cast<bool>(first(k)) == (pass == 0)) order_[static_cast<size_t>(n++)] = k;
    for (int s = 0; s < m; ++s)
      if (!eliminate(order_[static_cast<size_t>(s)], order_.data() + s + 1, m - s - 1)) ++rejected;
    if (rejected == 0)
      for (int k = 0; k < m; ++k)
        std::copy_n(work_.data() + static_cast<size_t>(pivrow_[static_cast<size_t>(k)]) * M, M,
                    binv_.data() + static_cast<size_t>(k) * M);
    return rejected;
  }
  int pivot_row(int k) const { return pivrow_[static_cast<size_t>(k)]; }
  bool row_used(int r) const { return row_used_[static_cast<size_t>(r)] != 0; }

  // The inverse of a basis of logicals and written columns: position k holds the logical of row
  // logical_row(k) (the column -e_r), or, when that is -1, the column that column(B, k) writes
  // into column k of the row-major B. A singular basis is repaired: each rejected position k, in
  // order, takes the logical of the next row nobody pivoted on (replace(k, r), after which
  // logical_row(k) must return r; that logical cannot be basic already, its column would have
  // covered the row), and the inverse is computed again. Returns 0 for a regular basis, 1 when
  // it was repaired, -1 when the repaired basis was singular too.
  template <class LogicalRow, class Column, class Replace>
  int factor_basis(LogicalRow logical_row, Column column, Replace replace) {
    const size_t M = static_cast<size_t>(m_);
    for (int attempt = 0; attempt < 2; ++attempt) {
      double* B = clear_matrix();
      for (int k = 0; k < m_; ++k) {
        const int r = logical_row(k);
        if (r >= 0)
          B[static_cast<size_t>(r) * M + static_cast<size_t>(k)] = -1.0;
        else
          column(B, k);
      }
      // Logical columns first: a column -e_r pivots on row r and creates no fill-in.
      if (invert([&](int k) { return logical_row(k) >= 0; }) == 0) return attempt;
      int r = 0;
      for (int k = 0; k < m_; ++k) {
        if (pivot_row(k) >= 0) continue;
        while (row_used(r)) ++r;
        replace(k, r++);
      }
    }
    return -1;
  }

  // Product-form update of the inverse: pivot on col = B^-1 a_q at position r.
  bool update(const double* col, int r) {
    const size_t M = static_cast<size_t>(m_);
    double* br = binv_.data() + static_cast<size_t>(r) * M;
    const double inv = 1.0 / col[r];
    for (size_t c = 0; c < M; ++c) br[c] *= inv;
    for (size_t i = 0; i < M; ++i) {
      if (i == static_cast<size_t>(r)) continue;
      const double f = col[i];
      if (f == 0.0) continue;
      double* bi = binv_.data() + i * M;
      for (size_t c = 0; c < M; ++c) bi[c] -= f * br[c];
    }
    return true;
  }

  // out = B^-1 a, a's entries stride apart.
  void ftran(const double* a, size_t stride, double* out) const {
    const size_t M = static_cast<size_t>(m_);
    for (size_t i = 0; i < M; ++i) {
      const double* bi = binv_.data() + i * M;
      double s = 0.0;
      for (size_t r = 0; r < M; ++r) s += bi[r] * a[r * stride];
      out[i] = s;
    }
  }
  // v := B^-1 v.
  void ftran(double* v) {
    ftran(v, 1, tmp_.data());
    std::copy_n(tmp_.data(), static_cast<size_t>(m_), v);
  }
  // v := B^-T v (v^T B^-1, the rows of the inverse combined).
  void btran(double* v) {
    const size_t M = static_cast<size_t>(m_);
    std::fill_n(tmp_.data(), M, 0.0);
    for (size_t i = 0; i < M; ++i) {
      const double f = v[i];
      if (f == 0.0) continue;
      const double* bi = binv_.data() + i * M;
      for (size_t c = 0; c < M; ++c) tmp_[c] += f * bi[c];
    }
    std::copy_n(tmp_.data(), M, v);
  }
  void inverse_row(int r, double* out) const { std::copy_n(row(r), static_cast<size_t>(m_), out); }
  // out = B^-1 (-e_r): the column of the logical of row r.
  void ftran_logical(int r, double* out) const {
    const size_t M = static_cast<size_t>(m_);
    for (size_t i = 0; i < M; ++i) out[i] = -binv_[i * M + static_cast<size_t>(r)];
  }

 private:
  // One Gauss-Jordan step on column k; false when the column has no acceptable pivot. The
  // columns of B still to be eliminated are rest[0..nrest-1]: the others are never read again,
  // so B's rows are updated there only (the inverse's rows in full).
  bool eliminate(int k, const int* rest, int nrest) {
    const int m = m_;
    const size_t M = static_cast<size_t>(m);
    double best = 0.0, norm = 0.0;
    int p = -1, nonzeros = 0;
    for (int r = 0; r < m; ++r) {
      const double v = std::abs(bmat_[static_cast<size_t>(r) * M + static_cast<size_t>(k)]);
      nonzeros += v != 0.0;
      norm = std::max(norm, v);
      if (!row_used_[static_cast<size_t>(r)] && v > best) {
        best = v;
        p = r;
      }
    }
    if (p < 0 || best <= kDefaults.singular_tol * std::max(1.0, norm)) {
      pivrow_[static_cast<size_t>(k)] = -1;
      return false;
    }
    pivrow_[static_cast<size_t>(k)] = p;
    row_used_[static_cast<size_t>(p)] = 1;
    double* bp = bmat_.data() + static_cast<size_t>(p) * M;
    double* ip = work_.data() + static_cast<size_t>(p) * M;
    const double inv = 1.0 / bp[k];
    for (size_t c = 0; c < M; ++c) {
      bp[c] *= inv;
      ip[c] *= inv;
    }
    if (nonzeros == 1) return true;  // a unit column (a logical): no other row to eliminate
    for (int r = 0; r < m; ++r) {
      if (r == p) continue;
      double* br = bmat_.data() + static_cast<size_t>(r) * M;
      const double f = br[k];
      if (f == 0.0) continue;
      double* ir = work_.data() + static_cast<size_t>(r) * M;
      for (size_t c = 0; c < M; ++c) ir[c] -= f * ip[c];
      for (int e = 0; e < nrest; ++e) {
        const size_t c = static_cast<size_t>(rest[e]);
        br[c] -= f * bp[c];
      }
    }
    return true;
  }

  int m_ = 0;
  std::vector<double> binv_, bmat_, work_, tmp_;
  std::vector<int> pivrow_;
  std::vector<int> order_;  // invert(): the columns in elimination order
  std::vector<unsigned char> row_used_;
};

}  // namespace scfw::lp
