// The pivot row of scenario_dual's dual simplex, out = P rho (P: N x D, rho: D), computed from
// P's transpose (D x N, row j = column j of P) over the nonzero entries of rho only, with the
// same bits as the portable path's Eigen product `out = P * rho` (P row-major).
//
// Why the same bits. Eigen 3.4's row-major matrix-vector product on SSE2 (two doubles per
// packet, no half packet) sums, for each row i, the products of the even columns into one lane
// and those of the odd columns into the other, each from +0 in increasing column order, over the
// first 2 floor(D / 2) columns; adds the two lanes (lane 0 + lane 1); adds the last column's
// product when D is odd; and writes +0 + 1 * that (the destination is zeroed, then the product
// added with alpha = 1). Here each of those sums runs over the same columns in the same order,
// element by element across rows (a lane-wise operation: vectorized or not, each row gets the
// same sequence of IEEE operations), except that a column j with rho_j = +-0 is left out. Leaving
// it out is exact: its product is +-0 (P is finite), and adding +-0 to a sum that started at +0
// and so is never -0 returns that sum. In the basis of the dual LP most rows of B^{-1} vanish on
// the dual rows covered by a basic unit column, so rho has about k + 1 nonzeros of D (k = the
// structural columns strictly inside their bounds): for Task 2, about 37 of 51.
//
// tests/test_scenario_dual.cpp checks the bits against Eigen's product on random P and rho with
// zeros, for D even and odd. (With N = 1 Eigen takes a dot product, another order: the plugin
// keeps Eigen's product there.)
#pragma once

#include <algorithm>
#include <cstddef>

namespace scfw::scenario_dual {

// The row stride of PT: N rounded up to even, so every column of PT starts 16-byte aligned.
inline int pt_stride(int N) { return N + N % 2; }

// The nonzero products of a pivot row: the columns of PT with rho_j != 0 and those rho_j, the
// even lane's first (ne of them), then the odd lane's (nodd); the last column of an odd D is
// neither (it is added after the lanes, tail).
struct Lanes {
  const double** col;  // D entries
  double* x;           // D entries
  int ne = 0, nodd = 0;
  const double* tail = nullptr;
  double tail_x = 0.0;
};

inline void nonzero_lanes(int N, int D, const double* PT, const double* rho, Lanes& l) {
  const size_t S = static_cast<size_t>(pt_stride(N));
  const int packed = D - D % 2;
  int n = 0;
  for (int j = 0; j < packed; j += 2)
    if (rho[j] != 0.0) {
      l.col[n] = PT + static_cast<size_t>(j) * S;
      l.x[n++] = rho[j];
    }
  l.ne = n;
  for (int j = 1; j < packed; j += 2)
    if (rho[j] != 0.0) {
      l.col[n] = PT + static_cast<size_t>(j) * S;
      l.x[n++] = rho[j];
    }
  l.nodd = n - l.ne;
  l.tail = packed < D ? PT + static_cast<size_t>(packed) * S : nullptr;
  l.tail_x = packed < D ? rho[packed] : 0.0;
}

namespace detail {
// Rows i0 .. i0 + nb - 1 (nb <= B). The columns of PT start 16-byte aligned and i0 is a
// multiple of B, so the products read PT in place.
template <int B>
inline void row_block(const Lanes& l, size_t i0, int nb, double* out) {
  double e[B], o[B];
  for (int b = 0; b < B; ++b) e[b] = o[b] = 0.0;
  for (int t = 0; t < l.ne; ++t) {
    const double x = l.x[t];
    const double* c = static_cast<const double*>(__builtin_assume_aligned(l.col[t] + i0, 16));
    for (int b = 0; b < B; ++b) e[b] += c[b] * x;
  }
  for (int t = l.ne; t < l.ne + l.nodd; ++t) {
    const double x = l.x[t];
    const double* c = static_cast<const double*>(__builtin_assume_aligned(l.col[t] + i0, 16));
    for (int b = 0; b < B; ++b) o[b] += c[b] * x;
  }
  double cc[B];
  for (int b = 0; b < B; ++b) cc[b] = e[b] + o[b];
  if (l.tail) {
    const double x = l.tail_x;
    const double* c = static_cast<const double*>(__builtin_assume_aligned(l.tail + i0, 16));
    for (int b = 0; b < B; ++b) cc[b] += c[b] * x;
  }
  for (int b = 0; b < nb; ++b) out[i0 + static_cast<size_t>(b)] = 0.0 + cc[b];
}
}  // namespace detail

// out (N) = P rho from the lanes of nonzero_lanes() over PT (D x pt_stride(N), row-major,
// 16-byte aligned). PT must hold 16 readable doubles past its end (the last block of rows
// reads a full block; what it reads past row N is not written out).
inline void pivot_row(int N, const Lanes& l, double* out) {
  constexpr int B = 16;
  size_t i0 = 0;
  const size_t NN = static_cast<size_t>(N);
  for (; i0 + B <= NN; i0 += B) detail::row_block<B>(l, i0, B, out);
  if (i0 + B / 2 <= NN) {
    detail::row_block<B / 2>(l, i0, B / 2, out);
    i0 += B / 2;
  }
  if (i0 < NN) detail::row_block<B / 2>(l, i0, static_cast<int>(NN - i0), out);
}

// PT (D x pt_stride(N)) from P (N x D, row-major), by blocks of 8 rows of P.
inline void transpose(int N, int D, const double* P, double* PT) {
  const size_t NN = static_cast<size_t>(N), DD = static_cast<size_t>(D), S = static_cast<size_t>(pt_stride(N));
  size_t i0 = 0;
  for (; i0 + 8 <= NN; i0 += 8)
    for (size_t j = 0; j < DD; ++j) {
      double* t = PT + j * S + i0;
      const double* p = P + i0 * DD + j;
      for (size_t b = 0; b < 8; ++b) t[b] = p[b * DD];
    }
  for (; i0 < NN; ++i0)
    for (size_t j = 0; j < DD; ++j) PT[j * S + i0] = P[i0 * DD + j];
}

}  // namespace scfw::scenario_dual
