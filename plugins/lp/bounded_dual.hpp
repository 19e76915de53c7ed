// The bounded dual simplex of scfw's LP engine: one driver for every dual simplex of the GLMOs
// (dense_simplex's, scenario_dual's), a template over the GLMO's column access and
// factorization, so that the hot loop calls them directly.
//
// The basis is seen through plain arrays: head[i] is the variable basic in position i; x, d, lo
// and up are per variable (values, reduced costs, the effective bounds: artificial ones
// included). A nonbasic variable sits at a bound (x == lo or x == up) or, free, anywhere (at 0).
// The basis is dual feasible when the driver is called; each pivot keeps it so:
//
//   * pricing of the leaving position: the basic variable farthest outside its bounds relative
//     to its dual steepest-edge weight ||e_i^T B^{-1}||^2 (infeasibility^2 / weight), or with
//     Bland's rule the smallest variable index among the infeasible ones;
//   * the ratio test over the pivot row alpha = e_r^T B^{-1} A: the candidates are the nonbasic
//     variables whose move in their allowed direction brings x_p towards its bound, at the ratio
//     max(0, d_j / |alpha_j|) (free ones |d_j / alpha_j|). Bound flipping: in increasing ratio
//     (ties by the variable index), a boxed candidate whose full move still leaves x_p outside its
//     bound is flipped to its other bound. Among the candidates left, Harris' pass takes the
//     largest |alpha_j| within the tolerance-relaxed smallest ratio (ties by the smaller index).
//     With Bland's rule: the smallest ratio, ties by the smallest index, no flips;
//   * Bland's rule after Settings::degenerate_run dual steps of at most degenerate_step in a row;
//   * the pivot entry is read from the row and from the column B^{-1} a_q (after the flips):
//     when they disagree beyond Settings::pivot_agreement the driver stops (kDisagree) before
//     the dual and primal steps.
//
// The driver stops at a primal feasible basis (kOptimal for the current effective bounds), when
// no candidate enters (kNoEntering: the row proves the LP infeasible, unless an artificial bound
// or an updated factorization is involved; the caller decides), at kDisagree, when the column
// access asks for a refactorization (kRefactor), or at the pivot limit (kIterLimit). What to do
// then (refactorize, verify, grow artificial bounds, fall back) is the caller's.
//
// The column access P provides (all called directly, no virtual call):
//   int movable_count() const, movable(int i) the variables to look at as candidates (any order)
//   Side side(int j) const;                   where nonbasic j sits (kSkip: basic)
//   double weight(int i);                     ||e_i^T B^{-1}||^2
//   const double* pivot_row(int r);           alpha_j = e_r^T B^{-1} a_j for every variable j
//   void column(int q, double* out);          out = B^{-1} a_q (by position)
//   void add_column(int j, double dx, double* w);   w += a_j dx (by row)
//   void ftran(const double* w, double* out); out = B^{-1} w
//   void moved(int j);                        nonbasic j went to its other bound
//   bool basis_change(int r, int p, int q, const double* col);  q replaced p at position r (head
//                                             and values already changed; col = B^{-1} a_q):
//                                             update the factorization; false asks for a
//                                             refactorization before the next pivot.
#pragma once

#include "settings.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace scfw::lp {

// Where a nonbasic variable sits, as the column access reports it (kSkip: basic).
enum class Side : signed char { kSkip = -1, kLower = 0, kUpper = 1, kFree = 2 };

// The side of nonbasic j read off its value.
inline Side side_by_value(double x, double lo, double up) {
  return x == lo ? Side::kLower : x == up ? Side::kUpper : Side::kFree;
}

struct DualBasisView {
  int m = 0;  // positions
  int* head = nullptr;
  double* x = nullptr;
  double* d = nullptr;
  const double* lo = nullptr;
  const double* up = nullptr;
};

class BoundedDual {
 public:
  enum class Exit { kOptimal, kNoEntering, kDisagree, kRefactor, kIterLimit };

  // Work arrays for m positions and n variables (allocates: call it in setup).
  void resize(int m, int n) {
    const size_t N = static_cast<size_t>(n), M = static_cast<size_t>(m);
    cand_.assign(N, 0);
    heap_.assign(N, 0);
    flips_.assign(N, 0);
    flipped_.assign(N, 0);
    cr_.assign(N, 0.0);
    ca_.assign(N, 0.0);
    col_.assign(M, 0.0);
    w_.assign(M, 0.0);
    out_.assign(M, 0.0);
  }
  // A new solve: Bland's rule off, the degenerate run forgotten.
  void start() {
    bland_ = false;
    degenerate_ = 0;
  }
  bool bland() const { return bland_; }
  // After kNoEntering / kDisagree: the leaving position, its variable, and the pivot row.
  int leaving_position() const { return r_; }
  int leaving_variable() const { return p_; }
  bool leaving_to_lower() const { return to_lower_; }
  const double* pivot_row() const { return arow_; }

  // Pivots until an exit; pivots counts them (the limit is on it).
  template <class P>
  Exit run(P& cols, const DualBasisView& b, const Settings& s, long max_pivots, long& pivots) {
    for (;;) {
      const int r = choose_leaving(cols, b, s);
      if (r < 0) return Exit::kOptimal;
      if (pivots >= max_pivots) return Exit::kIterLimit;
      const Exit e = pivot(cols, b, s, r);
      if (e != Exit::kOptimal) return e;
      ++pivots;
      if (!changed_ok_) return Exit::kRefactor;
    }
  }

 private:
  template <class P>
  int choose_leaving(P& cols, const DualBasisView& b, const Settings& s) {
    int r = -1;
    double best = 0.0;
    for (int i = 0; i < b.m; ++i) {
      const size_t j = static_cast<size_t>(b.head[i]);
      const double v = b.x[j], lo = b.lo[j], up = b.up[j];
      double inf;
      if (v < lo - s.primal_tol * std::max(1.0, std::abs(lo))) inf = lo - v;
      else if (v > up + s.primal_tol * std::max(1.0, std::abs(up))) inf = v - up;
      else continue;
      if (bland_) {
        if (r < 0 || b.head[i] < b.head[r]) r = i;
        continue;
      }
      const double score = inf * inf / std::max(cols.weight(i), 1e-300);
      if (score > best) {
        best = score;
        r = i;
      }
    }
    return r;
  }

  // One pivot on leaving position r. Returns kOptimal when the pivot was made.
  template <class P>
  [[gnu::always_inline]] Exit pivot(P& cols, const DualBasisView& b, const Settings& s, int r) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const int p = b.head[r];
    const size_t pk = static_cast<size_t>(p);
    r_ = r;
    p_ = p;
    to_lower_ = b.x[pk] < b.lo[pk];
    const double bound = to_lower_ ? b.lo[pk] : b.up[pk];
    const double sgn = to_lower_ ? -1.0 : 1.0;
    arow_ = cols.pivot_row(r);
    const double* ar = arow_;
    // The candidates, with their ratio, |alpha| and Harris bound, and the first in the order
    // (ratio, index).
    int nc = 0, first = -1, jfirst = -1;
    double rfirst = kInf, th_all = kInf;
    const int nm = cols.movable_count();
    for (int i = 0; i < nm; ++i) {
      const int j = cols.movable(i);
      const size_t jk = static_cast<size_t>(j);
      const Side side = cols.side(j);
      if (side == Side::kSkip) continue;
      const double a = ar[jk];
      const double at = sgn * a;
      if (side == Side::kLower ? !(at > s.pivot_tol)
          : side == Side::kUpper ? !(at < -s.pivot_tol)
                                 : !(std::abs(at) > s.pivot_tol))
        continue;
      if (b.lo[jk] == b.up[jk]) continue;  // fixed
      const double dj = b.d[jk];
      // max(0, .): a reduced cost within the tolerance on the wrong side counts as 0.
      const double ratio = side == Side::kFree ? std::abs(dj / at) : std::max(0.0, dj / at);
      const size_t c = static_cast<size_t>(nc);
      const double abs_a = std::abs(a);
      cand_[c] = j;
      cr_[c] = ratio;
      ca_[c] = abs_a;
      th_all = std::min(th_all, (std::abs(dj) + s.dual_tol) / abs_a);  // Harris' bound
      if (ratio <= rfirst && (ratio < rfirst || j < jfirst || first < 0)) {
        first = nc;
        rfirst = ratio;
        jfirst = j;
      }
      ++nc;
    }
    if (nc == 0) return Exit::kNoEntering;
    int nflips = 0, q = -1;
    if (bland_) {
      q = jfirst;
    } else {
      // Bound flipping: the breakpoints of boxed candidates in increasing (ratio, index) while
      // the slope of the dual objective stays positive; past the first, the others come off a
      // heap (few are passed).
      double slope = std::abs(b.x[pk] - bound);
      const auto passes = [&](int c) {
        const size_t j = static_cast<size_t>(cand_[static_cast<size_t>(c)]);
        const double after = slope - ca_[static_cast<size_t>(c)] * (b.up[j] - b.lo[j]);
        if (!(after > 0.0)) return false;  // also for an infinite range
        slope = after;
        return true;
      };
      int stop = first;  // the candidate where the flips stop
      if (passes(first)) {
        const auto later = [this](int a, int c) {
          const double ra = cr_[static_cast<size_t>(a)], rc = cr_[static_cast<size_t>(c)];
          return ra > rc || (ra == rc && cand_[static_cast<size_t>(a)] > cand_[static_cast<size_t>(c)]);
        };
        int hn = 0;
        for (int c = 0; c < nc; ++c)
          if (c != first) heap_[static_cast<size_t>(hn++)] = c;
        std::make_heap(heap_.begin(), heap_.begin() + hn, later);
        flips_[static_cast<size_t>(nflips++)] = first;
        flipped_[static_cast<size_t>(first)] = 1;
        stop = -1;
        while (hn > 0) {
          const int c = heap_[0];
          std::pop_heap(heap_.begin(), heap_.begin() + hn, later);
          --hn;
          if (!passes(c)) {
            stop = c;
            break;
          }
          flips_[static_cast<size_t>(nflips++)] = c;
          flipped_[static_cast<size_t>(c)] = 1;
        }
        if (stop < 0) {
          clear_flipped(nflips);
          return Exit::kNoEntering;
        }
      }
      // Harris among the candidates not flipped: the largest |alpha| within the dual tolerance.
      double th = th_all, amax = 0.0;
      const auto pick = [&](int c) {
        const double at = ca_[static_cast<size_t>(c)];
        const int j = cand_[static_cast<size_t>(c)];
        if (at > amax || (at == amax && j < q)) {
          amax = at;
          q = j;
        }
      };
      if (nflips == 0) {
        for (int c = 0; c < nc; ++c)
          if (cr_[static_cast<size_t>(c)] <= th) pick(c);
      } else {
        th = kInf;
        for (int c = 0; c < nc; ++c)
          if (!flipped_[static_cast<size_t>(c)])
            th = std::min(th, (std::abs(b.d[static_cast<size_t>(cand_[static_cast<size_t>(c)])]) + s.dual_tol) /
                                  ca_[static_cast<size_t>(c)]);
        for (int c = 0; c < nc; ++c)
          if (!flipped_[static_cast<size_t>(c)] && cr_[static_cast<size_t>(c)] <= th) pick(c);
      }
      if (q < 0) q = cand_[static_cast<size_t>(stop)];
      clear_flipped(nflips);
    }
    // The flips move x_B.
    if (nflips > 0) {
      const int m = b.m;
      std::fill_n(w_.begin(), static_cast<size_t>(m), 0.0);
      for (int f = 0; f < nflips; ++f) {
        const int j = cand_[static_cast<size_t>(flips_[static_cast<size_t>(f)])];
        const size_t jk = static_cast<size_t>(j);
        const double nv = b.x[jk] == b.lo[jk] ? b.up[jk] : b.lo[jk];
        const double dv = nv - b.x[jk];
        b.x[jk] = nv;
        cols.moved(j);
        cols.add_column(j, dv, w_.data());
      }
      cols.ftran(w_.data(), out_.data());
      for (int i = 0; i < m; ++i) b.x[static_cast<size_t>(b.head[i])] -= out_[static_cast<size_t>(i)];
    }
    // alpha_q = B^{-1} a_q; its entry at r must agree with the row's.
    const size_t qk = static_cast<size_t>(q);
    cols.column(q, col_.data());
    const double arq = ar[qk], acq = col_[static_cast<size_t>(r)];
    if (std::abs(arq - acq) > s.pivot_agreement * std::max(1.0, std::abs(arq)) || std::abs(acq) <= s.pivot_tol)
      return Exit::kDisagree;
    // The dual step over every variable (a basic one's d is never read: set when it leaves).
    const double thd = b.d[qk] / acq;
    if (std::abs(thd) <= s.degenerate_step) {
      if (++degenerate_ >= s.degenerate_run) bland_ = true;
    } else {
      degenerate_ = 0;
    }
    const int n = nvars_of(cols);
    {
      double* __restrict d = b.d;
      for (size_t j = 0; j < static_cast<size_t>(n); ++j) d[j] -= thd * ar[j];
    }
    b.d[qk] = 0.0;
    b.d[pk] = -thd;
    // The primal step and the basis change.
    const double thp = (b.x[pk] - bound) / acq;
    for (int i = 0; i < b.m; ++i) b.x[static_cast<size_t>(b.head[i])] -= thp * col_[static_cast<size_t>(i)];
    b.x[qk] += thp;
    b.x[pk] = bound;
    b.head[r] = q;
    changed_ok_ = cols.basis_change(r, p, q, col_.data());
    return Exit::kOptimal;
  }

  template <class P>
  static int nvars_of(const P& cols) {
    return cols.vars();
  }

  void clear_flipped(int nflips) {
    for (int f = 0; f < nflips; ++f) flipped_[static_cast<size_t>(flips_[static_cast<size_t>(f)])] = 0;
  }

  std::vector<int> cand_, heap_, flips_;  // candidates (variables); heap and flips (candidates)
  std::vector<double> cr_, ca_;  // per candidate: ratio, |alpha|
  std::vector<unsigned char> flipped_;  // per candidate
  std::vector<double> col_, w_, out_;
  const double* arow_ = nullptr;
  int r_ = -1, p_ = -1;
  bool to_lower_ = false;
  bool bland_ = false, changed_ok_ = true;
  int degenerate_ = 0;
};

}  // namespace scfw::lp
