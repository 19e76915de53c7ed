// A small dense bounded primal simplex for the restricted master LP of `column_generation`.
// Part of the GLMO plugins' LP layer: it takes its tolerances from the dense simplex kernel
// (dense_kernel.hpp, which says why its inverse and update stay its own).
//
//   min  c^T v   s.t.  L_r <= a_r^T v <= U_r  (r = 1..m),   l_j <= v_j <= u_j
//
// Why a primal simplex of our own: in column generation the master changes between two solves
// only by new columns, and a new column leaves the optimal basis primal feasible, so the primal
// simplex continues from it, usually in a few pivots. The master of the nuclear-ball problems is
// tiny (m = 3n + 1 rows for an l1 outer, a few dozen to a few hundred columns), and Clp's fixed
// cost per re-solve (start-up, a fresh factorization, status checks: ~0.9M instructions on the
// paper's Task 3 master) is most of the time; here a pivot costs O(m^2 + m N) flops on dense
// arrays and nothing is allocated once the arrays have grown.
//
// Method. Every row gets a logical s_r = a_r^T v with the row's bounds, so the system is
// [A  -I] (v, s) = 0 with bounds on every variable. Variables are numbered logicals first (0..m-1),
// then structurals (m..m+N-1). A nonbasic variable may sit anywhere inside its bounds (a free
// variable at 0); it may enter in any direction its bounds allow. The basis inverse is explicit
// (m x m), updated in product form per pivot and rebuilt every kRefactorEvery pivots by a crash
// that pivots the wanted basic columns one at a time into an all-logical basis (a column that
// would make the basis singular stays out, its row's logical stays in: the basis is always
// regular). Pricing: Dantzig (largest |reduced cost|). Ratio test: Harris two-pass (tolerance
// kPrimalTol) choosing the largest pivot among the near-minimal ratios; bound flips of the entering
// variable. Phase 1 is the composite one: while some basic variable violates a bound, the cost
// is the gradient of the sum of violations (each violating variable blocks at the bound it
// crosses into feasibility). After kDegenerateRun consecutive degenerate pivots the solve
// switches to Bland's rule, which cannot cycle.
//
// Exactness: when no variable prices out, the answer is accepted only if the residuals of the
// equations themselves are at rounding level: every row of [A -I] x = 0 (1e-9 relative to the
// row's terms) and every basic reduced cost (kDualTol); this costs O(m (m + N)), not a
// refactorization. Otherwise the basis is refactorized (x_B recomputed) and the iterations go on.
// Status::failed (pivot limit, or still inaccurate after kMaxVerify refactorizations) lets the
// caller fall back to Clp.
#pragma once

#include "dense_kernel.hpp"

#include <Eigen/Dense>
#include <scfw/state.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace scfw_cg {

class DenseMaster {
 public:
  enum class Status { optimal, infeasible, unbounded, failed };

  static constexpr double kInf = std::numeric_limits<double>::infinity();
  // The tolerances of the dense simplex kernel (dense_kernel.hpp).
  static constexpr double kPrimalTol = scfw::glmo_lp::kPrimalTol;
  static constexpr double kDualTol = scfw::glmo_lp::kDualTol;
  static constexpr double kPivotTol = scfw::glmo_lp::kPivotTol;
  static constexpr int kRefactorEvery = 64;
  static constexpr int kDegenerateRun = 50;
  static constexpr int kMaxVerify = 4;

  // Checkpoints: everything, the inverse included (its rank-one updates round differently from a
  // fresh factorization, so a refactorized copy would not continue bitwise).
  void save(scfw::StateWriter& w) const {
    w.put("m", m_);
    w.put("n", n_);
    w.put("lo", lo_);
    w.put("up", up_);
    w.put("cost", cost_);
    w.put("x", x_);
    w.put("cols", cols_);
    w.put("head", head_);
    w.put("pos", pos_);
    w.put("binv_rows", static_cast<int>(binv_.rows()));
    w.put("binv_cols", static_cast<int>(binv_.cols()));
    w.put("binv", binv_);
    for (const auto* v : {&alpha_, &rhs_, &cb_, &y_, &rowr_}) w.put("work", *v);
    w.put("factored", static_cast<int>(factored_));
    w.put("bland", static_cast<int>(bland_));
    w.put("degenerate", degenerate_);
    w.put("pivots", static_cast<std::int64_t>(pivots_));
  }
  void load(scfw::StateReader& r) {
    r.get("m", m_);
    r.get("n", n_);
    r.get("lo", lo_);
    r.get("up", up_);
    r.get("cost", cost_);
    r.get("x", x_);
    r.get("cols", cols_);
    r.get("head", head_);
    r.get("pos", pos_);
    int rows = 0, cols = 0;
    r.get("binv_rows", rows);
    r.get("binv_cols", cols);
    binv_.resize(rows, cols);
    r.get("binv", binv_);
    for (auto* v : {&alpha_, &rhs_, &cb_, &y_, &rowr_}) {
      std::vector<double> tmp;
      r.get("work", tmp);
      *v = Eigen::Map<const Eigen::VectorXd>(tmp.data(), static_cast<Eigen::Index>(tmp.size()));
    }
    int flag = 0;
    r.get("factored", flag);
    factored_ = flag != 0;
    r.get("bland", flag);
    bland_ = flag != 0;
    r.get("degenerate", degenerate_);
    std::int64_t p = 0;
    r.get("pivots", p);
    pivots_ = static_cast<long>(p);
  }

  // m rows with bounds (-inf, inf), no columns; the basis is all logicals.
  void reset(int m) {
    m_ = m;
    n_ = 0;
    lo_.assign(static_cast<size_t>(m), -kInf);
    up_.assign(static_cast<size_t>(m), kInf);
    cost_.assign(static_cast<size_t>(m), 0.0);
    x_.assign(static_cast<size_t>(m), 0.0);
    cols_.clear();
    head_.resize(static_cast<size_t>(m));
    pos_.assign(static_cast<size_t>(m), -1);
    for (int r = 0; r < m; ++r) {
      head_[static_cast<size_t>(r)] = r;
      pos_[static_cast<size_t>(r)] = r;
    }
    binv_ = -Eigen::MatrixXd::Identity(m, m);
    alpha_.resize(m);
    rhs_.resize(m);
    cb_.resize(m);
    y_.resize(m);
    rowr_.resize(m);
    factored_ = false;
  }

  int rows() const { return m_; }
  int columns() const { return n_; }

  void set_row_bounds(int r, double lo, double up) {
    lo_[static_cast<size_t>(r)] = lo;
    up_[static_cast<size_t>(r)] = up;
    factored_ = false;  // a nonbasic logical may sit outside its new bounds
  }

  // Appends structural column k = columns() (dense coefficients a[0..m-1]); it starts nonbasic at
  // the bound nearest 0 (at 0 when 0 is inside its bounds).
  void add_column(const double* a, double lo, double up, double cost) {
    cols_.insert(cols_.end(), a, a + m_);
    lo_.push_back(lo);
    up_.push_back(up);
    cost_.push_back(cost);
    x_.push_back(std::clamp(0.0, lo, up));
    pos_.push_back(-1);
    ++n_;
    if (x_.back() != 0.0) factored_ = false;  // x_B moves with it
  }

  // Replaces structural column k's coefficients and cost (the basis must be refactorized:
  // solve() does).
  void set_column(int k, const double* a, double cost) {
    std::copy(a, a + m_, cols_.begin() + static_cast<std::ptrdiff_t>(k) * m_);
    cost_[static_cast<size_t>(m_ + k)] = cost;
    factored_ = false;
  }

  bool is_basic(int k) const { return pos_[static_cast<size_t>(m_ + k)] >= 0; }
  double value(int k) const { return x_[static_cast<size_t>(m_ + k)]; }
  const double* duals() const { return y_.data(); }
  long pivots() const { return pivots_; }

  double objective() const {
    double v = 0.0;
    for (int j = m_; j < m_ + n_; ++j) v += cost_[static_cast<size_t>(j)] * x_[static_cast<size_t>(j)];
    return v;
  }

  // Deletes structural columns (sorted ascending); a basic one leaves the basis (its row's
  // logical replaces it at the next refactorization).
  void delete_columns(const std::vector<int>& ks) {
    if (ks.empty()) return;
    std::vector<int> remap(static_cast<size_t>(m_ + n_));
    int next = m_;
    size_t d = 0;
    for (int j = 0; j < m_; ++j) remap[static_cast<size_t>(j)] = j;
    for (int k = 0; k < n_; ++k) {
      if (d < ks.size() && ks[d] == k) {
        remap[static_cast<size_t>(m_ + k)] = -1;
        ++d;
        continue;
      }
      const int from = m_ + k, to = next++;
      remap[static_cast<size_t>(from)] = to;
      if (to != from) {
        std::copy(cols_.begin() + static_cast<std::ptrdiff_t>(k) * m_, cols_.begin() + static_cast<std::ptrdiff_t>(k + 1) * m_,
                  cols_.begin() + static_cast<std::ptrdiff_t>(to - m_) * m_);
        lo_[static_cast<size_t>(to)] = lo_[static_cast<size_t>(from)];
        up_[static_cast<size_t>(to)] = up_[static_cast<size_t>(from)];
        cost_[static_cast<size_t>(to)] = cost_[static_cast<size_t>(from)];
        x_[static_cast<size_t>(to)] = x_[static_cast<size_t>(from)];
      }
    }
    bool lost_basic = false;
    for (int r = 0; r < m_; ++r) {
      const int h = remap[static_cast<size_t>(head_[static_cast<size_t>(r)])];
      if (h < 0) {
        head_[static_cast<size_t>(r)] = r;  // its row's logical (re-checked by the crash)
        lost_basic = true;
      } else {
        head_[static_cast<size_t>(r)] = h;
      }
    }
    n_ = next - m_;
    cols_.resize(static_cast<size_t>(n_) * static_cast<size_t>(m_));
    lo_.resize(static_cast<size_t>(m_ + n_));
    up_.resize(static_cast<size_t>(m_ + n_));
    cost_.resize(static_cast<size_t>(m_ + n_));
    x_.resize(static_cast<size_t>(m_ + n_));
    pos_.assign(static_cast<size_t>(m_ + n_), -1);
    if (lost_basic) {
      factored_ = false;  // head_ may name a logical twice: the crash sorts it out
    } else {
      for (int r = 0; r < m_; ++r) pos_[static_cast<size_t>(head_[static_cast<size_t>(r)])] = r;
    }
  }

  // Solves from the current basis. max_pivots bounds the work (Status::failed beyond it).
  Status solve(long max_pivots) {
    pivots_ = 0;
    bland_ = false;
    degenerate_ = 0;
    if (!factored_) refactor();
    int verified = 0;
    long since_refactor = 0;
    while (true) {
      if (pivots_ >= max_pivots) return Status::failed;
      if (since_refactor >= kRefactorEvery) {
        refactor();
        since_refactor = 0;
      }
      const bool phase1 = set_basic_costs();
      compute_duals();
      int q = -1;
      double dq = 0.0;
      choose_entering(phase1, q, dq);
      if (q < 0) {
        // Candidate end: accepted when the residuals of B x_B + N x_N = 0 and of the basic
        // reduced costs are at rounding level; otherwise refactorize and go on.
        if (accurate(phase1)) return phase1 ? Status::infeasible : Status::optimal;
        if (verified >= kMaxVerify) return Status::failed;
        ++verified;
        refactor();
        since_refactor = 0;
        continue;
      }
      const int r = ratio_and_update(q, dq);
      if (r == -2) {
        // No blocking variable: an unbounded ray, if the direction is not a rounding artefact of
        // an updated inverse; confirm on a fresh factorization first.
        if (since_refactor > 0 && verified < kMaxVerify) {
          ++verified;
          refactor();
          since_refactor = 0;
          continue;
        }
        if (!phase1) return Status::unbounded;
        return Status::failed;  // an unbounded phase-1 ray cannot happen with blocking violators
      }
      ++pivots_;
      if (r >= 0) ++since_refactor;
    }
  }

 private:
  const double* structural(int j) const { return cols_.data() + static_cast<size_t>(j - m_) * static_cast<size_t>(m_); }

  // The primal tolerance at a bound (0 at an infinite one, so that inf - ptol stays inf).
  static double ptol(double bound) { return std::isinf(bound) ? 0.0 : scfw::glmo_lp::primal_tol(bound); }

  // alpha = B^{-1} [A -I]_j
  void column_ftran(int j) {
    if (j < m_) {
      alpha_ = -binv_.col(j);
    } else {
      alpha_.noalias() = binv_ * Eigen::Map<const Eigen::VectorXd>(structural(j), m_);
    }
  }

  // Crash: B^{-1} of the wanted basis head_, skipping columns that would make it singular; then
  // x_B from the nonbasic values.
  void refactor() {
    std::vector<int> wanted(head_.begin(), head_.end());
    std::vector<char> is_wanted(static_cast<size_t>(m_ + n_), 0);
    for (int j : wanted) is_wanted[static_cast<size_t>(j)] = 1;
    binv_ = -Eigen::MatrixXd::Identity(m_, m_);
    for (int r = 0; r < m_; ++r) head_[static_cast<size_t>(r)] = r;
    std::fill(pos_.begin(), pos_.end(), -1);
    for (int r = 0; r < m_; ++r) pos_[static_cast<size_t>(r)] = r;
    std::vector<char> taken(static_cast<size_t>(m_), 0);  // the row's position holds a structural
    for (int j : wanted) {
      if (j < m_ || pos_[static_cast<size_t>(j)] >= 0) continue;
      column_ftran(j);
      // The largest pivot among positions still held by a logical, preferring logicals that are
      // not wanted basic themselves.
      int best = -1;
      double best_abs = 0.0;
      const double scale = std::max(1.0, alpha_.cwiseAbs().maxCoeff());
      for (int pass = 0; pass < 2 && best < 0; ++pass)
        for (int r = 0; r < m_; ++r) {
          if (taken[static_cast<size_t>(r)]) continue;
          const int h = head_[static_cast<size_t>(r)];
          if (pass == 0 && is_wanted[static_cast<size_t>(h)]) continue;
          const double a = std::abs(alpha_[r]);
          if (a > best_abs && a > 1e-9 * scale) {
            best_abs = a;
            best = r;
          }
        }
      if (best < 0) continue;  // dependent: j stays nonbasic
      const int leaving = head_[static_cast<size_t>(best)];
      pivot_inverse(best);
      pos_[static_cast<size_t>(leaving)] = -1;
      x_[static_cast<size_t>(leaving)] = nearest_bound(leaving);
      head_[static_cast<size_t>(best)] = j;
      pos_[static_cast<size_t>(j)] = best;
      taken[static_cast<size_t>(best)] = 1;
    }
    // Nonbasic variables keep their values, clamped into their bounds.
    for (int j = 0; j < m_ + n_; ++j)
      if (pos_[static_cast<size_t>(j)] < 0)
        x_[static_cast<size_t>(j)] = std::clamp(x_[static_cast<size_t>(j)], lo_[static_cast<size_t>(j)], up_[static_cast<size_t>(j)]);
    recompute_basics();
    factored_ = true;
  }

  double nearest_bound(int j) const {
    const double v = x_[static_cast<size_t>(j)], lo = lo_[static_cast<size_t>(j)], up = up_[static_cast<size_t>(j)];
    if (v >= lo && v <= up) return v;
    return v < lo ? lo : up;
  }

  // x_B = B^{-1} b, b = -sum_{nonbasic j} [A -I]_j x_j.
  void recompute_basics() {
    rhs_.setZero();
    for (int j = 0; j < m_; ++j)
      if (pos_[static_cast<size_t>(j)] < 0) rhs_[j] += x_[static_cast<size_t>(j)];
    for (int j = m_; j < m_ + n_; ++j) {
      const double v = x_[static_cast<size_t>(j)];
      if (pos_[static_cast<size_t>(j)] >= 0 || v == 0.0) continue;
      rhs_.noalias() -= v * Eigen::Map<const Eigen::VectorXd>(structural(j), m_);
    }
    alpha_.noalias() = binv_ * rhs_;
    for (int r = 0; r < m_; ++r) x_[static_cast<size_t>(head_[static_cast<size_t>(r)])] = alpha_[r];
  }

  // Product-form update as one rank-one update (column-major friendly): row r becomes row_r /
  // alpha_r, row i loses alpha_i times the new row r.
  void pivot_inverse(int r) {
    const double piv = alpha_[r];
    rowr_ = binv_.row(r).transpose() / piv;
    alpha_[r] -= 1.0;
    binv_.noalias() -= alpha_ * rowr_.transpose();
    alpha_[r] += 1.0;
  }

  // Whether the current x and y solve their equations to rounding level: every row of
  // [A -I] x = 0 and every basic reduced cost (with the costs of this phase).
  bool accurate(bool phase1) const {
    for (int r = 0; r < m_; ++r) {
      double res = -x_[static_cast<size_t>(r)], scale = std::abs(x_[static_cast<size_t>(r)]);
      for (int j = m_; j < m_ + n_; ++j) {
        const double t = cols_[static_cast<size_t>(j - m_) * static_cast<size_t>(m_) + static_cast<size_t>(r)] * x_[static_cast<size_t>(j)];
        res += t;
        scale += std::abs(t);
      }
      if (!(std::abs(res) <= 1e-9 * std::max(1.0, scale))) return false;
    }
    for (int r = 0; r < m_; ++r) {
      const int j = head_[static_cast<size_t>(r)];
      const double c = phase1 ? cb_[r] : cost_[static_cast<size_t>(j)];
      const double d = c - (j < m_ ? -y_[j] : Eigen::Map<const Eigen::VectorXd>(structural(j), m_).dot(y_));
      if (!(std::abs(d) <= kDualTol * std::max(1.0, std::abs(c)))) return false;
    }
    return true;
  }

  // c_B: phase 1 (gradient of the sum of bound violations) when some basic variable violates a
  // bound, else the true costs. Returns whether phase 1.
  bool set_basic_costs() {
    bool phase1 = false;
    for (int r = 0; r < m_; ++r) {
      const int j = head_[static_cast<size_t>(r)];
      const double v = x_[static_cast<size_t>(j)], lo = lo_[static_cast<size_t>(j)], up = up_[static_cast<size_t>(j)];
      double c = 0.0;
      if (v < lo - ptol(lo)) c = -1.0;
      else if (v > up + ptol(up)) c = 1.0;
      cb_[r] = c;
      if (c != 0.0) phase1 = true;
    }
    if (!phase1)
      for (int r = 0; r < m_; ++r) cb_[r] = cost_[static_cast<size_t>(head_[static_cast<size_t>(r)])];
    return phase1;
  }

  void compute_duals() { y_.noalias() = binv_.transpose() * cb_; }

  double reduced_cost(int j, bool phase1) const {
    const double c = phase1 ? 0.0 : cost_[static_cast<size_t>(j)];
    if (j < m_) return c + y_[j];
    return c - Eigen::Map<const Eigen::VectorXd>(structural(j), m_).dot(y_);
  }

  void choose_entering(bool phase1, int& q, double& dq) const {
    q = -1;
    dq = 0.0;
    double best = 0.0;
    for (int j = 0; j < m_ + n_; ++j) {
      if (pos_[static_cast<size_t>(j)] >= 0) continue;
      const double lo = lo_[static_cast<size_t>(j)], up = up_[static_cast<size_t>(j)];
      if (lo == up) continue;
      const double d = reduced_cost(j, phase1), v = x_[static_cast<size_t>(j)];
      const bool can_up = v < up - ptol(up), can_down = v > lo + ptol(lo);
      const double gain = (d < -kDualTol && can_up) ? -d : (d > kDualTol && can_down) ? d : 0.0;
      if (gain <= 0.0) continue;
      if (bland_) {  // smallest index
        q = j;
        dq = d;
        return;
      }
      if (gain > best) {
        best = gain;
        q = j;
        dq = d;
      }
    }
  }

  // Moves entering q; returns the leaving row position, -1 for a bound flip, -2 if unbounded.
  int ratio_and_update(int q, double dq) {
    column_ftran(q);
    const double dir = dq < 0.0 ? 1.0 : -1.0;
    const double xq = x_[static_cast<size_t>(q)];
    const double range = dir > 0 ? up_[static_cast<size_t>(q)] - xq : xq - lo_[static_cast<size_t>(q)];
    // Basic variable at position i moves by rate_i * t, rate_i = -dir * alpha_i.
    // Pass 1 (Harris): the largest step with every bound relaxed by its tolerance.
    double tmax = range;
    const bool harris = !bland_;
    for (int i = 0; i < m_; ++i) {
      const double rate = -dir * alpha_[i];
      if (std::abs(rate) <= kPivotTol) continue;
      const double t = limit(i, rate, harris);
      if (t < tmax) tmax = t;
    }
    if (tmax == kInf) return -2;
    // Pass 2: among the positions whose exact ratio is <= tmax, the largest |alpha|.
    int leave = -1;
    double best_abs = 0.0, t_leave = 0.0;
    for (int i = 0; i < m_; ++i) {
      const double rate = -dir * alpha_[i];
      if (std::abs(rate) <= kPivotTol) continue;
      const double t = limit(i, rate, false);
      if (t > tmax) continue;
      const double a = std::abs(alpha_[i]);
      bool better = a > best_abs;
      if (bland_) {  // smallest ratio, ties by the smallest variable index
        better = leave < 0 || t < t_leave ||
                 (t == t_leave && head_[static_cast<size_t>(i)] < head_[static_cast<size_t>(leave)]);
      }
      if (better) {
        best_abs = a;
        leave = i;
        t_leave = t;
      }
    }
    double t;
    if (leave < 0 || range <= t_leave) {  // bound flip of the entering variable
      if (range == kInf) return -2;
      t = range;
      leave = -1;
    } else {
      t = std::max(0.0, t_leave);
    }
    degenerate_ = t <= 1e-12 ? degenerate_ + 1 : 0;
    if (degenerate_ > kDegenerateRun) bland_ = true;
    // The bound the leaving variable reaches (classified before the values move).
    const double leave_bound = leave >= 0 ? target_bound(leave, -dir * alpha_[leave]) : 0.0;
    // Update the values.
    x_[static_cast<size_t>(q)] = leave < 0 ? (dir > 0 ? up_[static_cast<size_t>(q)] : lo_[static_cast<size_t>(q)]) : xq + dir * t;
    if (t != 0.0)
      for (int i = 0; i < m_; ++i) x_[static_cast<size_t>(head_[static_cast<size_t>(i)])] -= dir * alpha_[i] * t;
    if (leave < 0) return -1;
    // The leaving variable sits exactly at the bound it reached.
    const int p = head_[static_cast<size_t>(leave)];
    x_[static_cast<size_t>(p)] = leave_bound;
    pivot_inverse(leave);
    pos_[static_cast<size_t>(p)] = -1;
    head_[static_cast<size_t>(leave)] = q;
    pos_[static_cast<size_t>(q)] = leave;
    return leave;
  }

  // The bound basic position i runs into when moving at rate (rate < 0: down), or NaN if none.
  double target_bound(int i, double rate) const {
    const int j = head_[static_cast<size_t>(i)];
    const double v = x_[static_cast<size_t>(j)], lo = lo_[static_cast<size_t>(j)], up = up_[static_cast<size_t>(j)];
    if (rate < 0.0) {
      if (v > up + ptol(up)) return up;  // above its upper bound: blocks on entering feasibility
      if (v >= lo - ptol(lo)) return lo;
      return std::numeric_limits<double>::quiet_NaN();  // below lo and falling: no block
    }
    if (v < lo - ptol(lo)) return lo;
    if (v <= up + ptol(up)) return up;
    return std::numeric_limits<double>::quiet_NaN();
  }

  // The step at which basic position i reaches its blocking bound (relaxed by the tolerance for
  // Harris' first pass); +inf when it does not block.
  double limit(int i, double rate, bool relaxed) const {
    const double b = target_bound(i, rate);
    if (std::isnan(b) || std::isinf(b)) return kInf;
    const double v = x_[static_cast<size_t>(head_[static_cast<size_t>(i)])];
    const double slack = relaxed ? ptol(b) : 0.0;
    const double t = rate < 0.0 ? (v - b + slack) / -rate : (b - v + slack) / rate;
    return std::max(0.0, t);
  }

  int m_ = 0, n_ = 0;
  std::vector<double> lo_, up_, cost_, x_;  // per variable: logicals 0..m-1, then structurals
  std::vector<double> cols_;                // structural columns, dense, column-major (m each)
  std::vector<int> head_;                   // head_[r]: the variable basic in position r
  std::vector<int> pos_;                    // pos_[j]: j's basis position, -1 if nonbasic
  Eigen::MatrixXd binv_;
  Eigen::VectorXd alpha_, rhs_, cb_, y_, rowr_;
  bool factored_ = false, bland_ = false;
  int degenerate_ = 0;
  long pivots_ = 0;
};

}  // namespace scfw_cg
