// The restricted master LP of `column_generation`, on scfw's LP engine: the bounded primal
// driver (bounded_primal.hpp) over DenseInverse (dense_kernel.hpp), at kDenseMasterSettings.
//
//   min  c^T v   s.t.  L_r <= a_r^T v <= U_r  (r = 1..m),   l_j <= v_j <= u_j
//
// The master changes between two solves by new columns, which leave the optimal basis primal
// feasible, so the primal simplex continues from it. Every row has a logical s_r = a_r^T v, so
// the system is [A -I] (v, s) = 0 with bounds on every variable; logicals are variables 0..m-1,
// structurals m..m+N-1. A nonbasic variable may sit anywhere inside its bounds. At a candidate
// end the residuals of [A -I] x = 0 and of the basic reduced costs are checked instead of a
// fresh factorization; PrimalExit::kFailed (pivot limit, or no verified end) lets the caller fall
// back to Clp.
#pragma once

#include "dense_kernel.hpp"
#include "bounded_primal.hpp"

#include <Eigen/Dense>
#include <scfw/state.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace scfw::lp {

class DenseMaster {
 public:

  static constexpr double kInf = std::numeric_limits<double>::infinity();
  // The tolerances of the dense simplex kernel (dense_kernel.hpp).
  static constexpr Settings kSet = kDenseMasterSettings;

  // Checkpoints: everything, the inverse included (its updates round differently from a fresh
  // factorization, so a refactorized copy would not continue bitwise). The inverse is written
  // column-major, as an Eigen matrix.
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
    w.put("binv_rows", m_);
    w.put("binv_cols", m_);
    Eigen::MatrixXd binv(m_, m_);
    for (int i = 0; i < m_; ++i)
      for (int c = 0; c < m_; ++c) binv(i, c) = inv_.at(i, c);
    w.put("binv", binv);
    const Eigen::VectorXd unused = Eigen::VectorXd::Zero(m_);
    for (const auto* v : {&alpha_, &rhs_, &cb_, &y_, &unused}) w.put("work", *v);
    w.put("factored", static_cast<int>(factored_));
    // The driver's Bland flag and degenerate run start afresh at every solve; these two fields
    // and the fifth "work" vector stay in the format as zeros.
    w.put("bland", 0);
    w.put("degenerate", 0);
    w.put("pivots", static_cast<std::int64_t>(pivots_));
  }
  /// Loads what save() wrote for a master of `rows` rows, checked before any of it is used: the
  /// sizes those of m rows and n columns, the basis m distinct variables whose positions agree,
  /// the values finite (bounds may be infinite, never NaN), the inverse m x m.
  void load(scfw::StateReader& r, int rows) {
    const auto whole = [&](const char* name, auto& v, std::size_t size) {
      r.get(name, v);
      r.check_count(name, v.size(), size);
    };
    int m = 0, n = 0;
    r.get("m", m);
    r.check_range("m", std::vector<int>{m}, rows, rows);
    r.get("n", n);
    r.check_range("n", std::vector<int>{n}, 0, std::numeric_limits<int>::max() - m);
    const auto vars = static_cast<std::size_t>(m) + static_cast<std::size_t>(n);
    std::vector<double> lo, up, cost, x, cols;
    std::vector<int> head, pos;
    whole("lo", lo, vars);
    r.check_range("lo", lo, -kInf, kInf);
    whole("up", up, vars);
    r.check_range("up", up, -kInf, kInf);
    whole("cost", cost, vars);
    r.check_finite("cost", cost);
    whole("x", x, vars);
    r.check_finite("x", x);
    r.get("cols", cols);
    if (cols.size() / static_cast<std::size_t>(std::max(m, 1)) != static_cast<std::size_t>(n) ||
        cols.size() % static_cast<std::size_t>(std::max(m, 1)) != 0)
      r.refuse("cols", std::to_string(cols.size()) + " values saved, " + std::to_string(m) + " x " + std::to_string(n) +
                           " expected");
    r.check_finite("cols", cols);
    whole("head", head, static_cast<std::size_t>(m));
    r.check_range("head", head, 0, static_cast<int>(vars) - 1);
    whole("pos", pos, vars);
    r.check_range("pos", pos, -1, m - 1);
    for (int i = 0; i < m; ++i)
      if (pos[static_cast<std::size_t>(head[static_cast<std::size_t>(i)])] != i)
        r.refuse("pos", "basis position " + std::to_string(i) + " holds variable " +
                            std::to_string(head[static_cast<std::size_t>(i)]) + ", whose position is not " +
                            std::to_string(i));
    if (std::count_if(pos.begin(), pos.end(), [](int p) { return p >= 0; }) != m)
      r.refuse("pos", "more variables have a basis position than the basis holds");
    int brows = 0, bcols = 0;
    r.get("binv_rows", brows);
    r.check_range("binv_rows", std::vector<int>{brows}, m, m);
    r.get("binv_cols", bcols);
    r.check_range("binv_cols", std::vector<int>{bcols}, m, m);
    Eigen::MatrixXd binv(m, m);
    r.get("binv", binv);
    r.check_finite("binv", binv);
    std::vector<double> work[5];
    for (auto& w : work) {
      whole("work", w, static_cast<std::size_t>(m));
      r.check_finite("work", w);
    }
    int flag = 0;
    r.get("factored", flag);
    r.check_range("factored", std::vector<int>{flag}, 0, 1);
    int unused = 0;
    r.get("bland", unused);
    r.get("degenerate", unused);
    std::int64_t p = 0;
    r.get("pivots", p);
    r.check_range("pivots", std::vector<std::int64_t>{p}, std::int64_t{0}, std::numeric_limits<std::int64_t>::max());
    m_ = m;
    n_ = n;
    lo_ = std::move(lo);
    up_ = std::move(up);
    cost_ = std::move(cost);
    x_ = std::move(x);
    cols_ = std::move(cols);
    head_ = std::move(head);
    pos_ = std::move(pos);
    inv_.resize(m);
    for (int i = 0; i < m; ++i)
      for (int c = 0; c < m; ++c) inv_.set(i, c, binv(i, c));
    Eigen::VectorXd* to[] = {&alpha_, &rhs_, &cb_, &y_};
    for (int i = 0; i < 4; ++i) *to[i] = Eigen::Map<const Eigen::VectorXd>(work[i].data(), m);
    factored_ = flag != 0;
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
    inv_.resize(m);
    alpha_.resize(m);
    rhs_.resize(m);
    cb_.resize(m);
    y_.resize(m);
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

  // Solves from the current basis by the engine's primal driver (bounded_primal.hpp).
  // max_pivots bounds the work (PrimalExit::kFailed beyond it).
  PrimalExit solve(long max_pivots) {
    pivots_ = 0;
    if (!factored_) refactor();
    Columns cols{*this};
    return primal_simplex(cols, alpha_.data(), kSet, max_pivots, pivots_);
  }

 private:
  // The column access of the primal driver: dense columns through the explicit inverse, a
  // candidate end accepted when the residuals are at rounding level (accurate()).
  struct Columns {
    DenseMaster& g;
    int since = 0;  // updates since the last refactorization
    bool phase1 = false;
    PrimalBasisView view() { return g.basis_view(); }
    int vars() const { return g.m_ + g.n_; }
    const int* pos() const { return g.pos_.data(); }
    bool price() {
      phase1 = g.set_basic_costs();
      g.compute_duals();
      return phase1;
    }
    double reduced_cost(int j) const { return g.reduced_cost(j, phase1); }
    void column(int q, double*) { g.column_ftran(q); }  // into alpha_, the driver's alpha
    bool basis_change(int r, int q) {
      const int p = g.head_[static_cast<size_t>(r)];
      g.inv_.update(g.alpha_.data(), r);
      g.pos_[static_cast<size_t>(p)] = -1;
      g.head_[static_cast<size_t>(r)] = q;
      g.pos_[static_cast<size_t>(q)] = r;
      return ++since < kSet.refactor_every;
    }
    void refactor() {
      g.refactor();
      since = 0;
    }
    bool fresh() const { return since == 0; }
    bool verify(bool p1) const { return g.accurate(p1); }
  };

  const double* structural(int j) const { return cols_.data() + static_cast<size_t>(j - m_) * static_cast<size_t>(m_); }


  // alpha = B^{-1} [A -I]_j
  void column_ftran(int j) {
    if (j < m_)
      inv_.ftran_logical(j, alpha_.data());
    else
      inv_.ftran(structural(j), 1, alpha_.data());
  }

  // B^{-1} of the wanted basis head_ (DenseInverse::factor_basis): a variable named twice keeps
  // its first position, and a position left without a pivot takes the logical of a row left
  // uncovered (an all-logical basis if that fails too); then x_B from the nonbasic values.
  void refactor() {
    const size_t M = static_cast<size_t>(m_);
    std::fill(pos_.begin(), pos_.end(), -1);
    for (int k = 0; k < m_; ++k) {
      int& p = pos_[static_cast<size_t>(head_[static_cast<size_t>(k)])];
      if (p < 0) p = k;
    }
    // A position whose variable is basic elsewhere writes no column: it is rejected.
    const auto logical_row = [&](int k) {
      const int j = head_[static_cast<size_t>(k)];
      return j < m_ && pos_[static_cast<size_t>(j)] == k ? j : -1;
    };
    const auto column = [&](double* B, int k) {
      const int j = head_[static_cast<size_t>(k)];
      if (pos_[static_cast<size_t>(j)] != k) return;
      const double* a = structural(j);
      for (size_t r = 0; r < M; ++r) B[r * M + static_cast<size_t>(k)] = a[r];
    };
    const auto replace = [&](int k, int r) {
      int& p = pos_[static_cast<size_t>(head_[static_cast<size_t>(k)])];
      if (p == k) p = -1;
      head_[static_cast<size_t>(k)] = r;
      pos_[static_cast<size_t>(r)] = k;
    };
    if (inv_.factor_basis(logical_row, column, replace) < 0) {
      std::fill(pos_.begin(), pos_.end(), -1);
      for (int k = 0; k < m_; ++k) {
        head_[static_cast<size_t>(k)] = k;
        pos_[static_cast<size_t>(k)] = k;
      }
      inv_.factor_basis(logical_row, column, replace);  // all logicals: regular
    }
    // Nonbasic variables keep their values, clamped into their bounds.
    for (int j = 0; j < m_ + n_; ++j)
      if (pos_[static_cast<size_t>(j)] < 0)
        x_[static_cast<size_t>(j)] = std::clamp(x_[static_cast<size_t>(j)], lo_[static_cast<size_t>(j)], up_[static_cast<size_t>(j)]);
    recompute_basics();
    factored_ = true;
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
    inv_.ftran(rhs_.data(), 1, alpha_.data());
    for (int r = 0; r < m_; ++r) x_[static_cast<size_t>(head_[static_cast<size_t>(r)])] = alpha_[r];
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
      if (!(std::abs(res) <= kSet.primal_tol * std::max(1.0, scale))) return false;
    }
    for (int r = 0; r < m_; ++r) {
      const int j = head_[static_cast<size_t>(r)];
      const double c = phase1 ? cb_[r] : cost_[static_cast<size_t>(j)];
      const double d = c - (j < m_ ? -y_[j] : Eigen::Map<const Eigen::VectorXd>(structural(j), m_).dot(y_));
      if (!(std::abs(d) <= kSet.dual_tol * std::max(1.0, std::abs(c)))) return false;
    }
    return true;
  }

  // c_B: the composite phase-1 costs or the true ones (bounded_primal.hpp). Returns whether phase 1.
  bool set_basic_costs() {
    return composite_basic_costs(basis_view(), cost_.data(), cb_.data());
  }
  PrimalBasisView basis_view() { return {m_, head_.data(), x_.data(), lo_.data(), up_.data()}; }

  void compute_duals() {
    y_ = cb_;
    inv_.btran(y_.data());
  }

  double reduced_cost(int j, bool phase1) const {
    const double c = phase1 ? 0.0 : cost_[static_cast<size_t>(j)];
    if (j < m_) return c + y_[j];
    return c - Eigen::Map<const Eigen::VectorXd>(structural(j), m_).dot(y_);
  }

  int m_ = 0, n_ = 0;
  std::vector<double> lo_, up_, cost_, x_;  // per variable: logicals 0..m-1, then structurals
  std::vector<double> cols_;                // structural columns, dense, column-major (m each)
  std::vector<int> head_;                   // head_[r]: the variable basic in position r
  std::vector<int> pos_;                    // pos_[j]: j's basis position, -1 if nonbasic
  DenseInverse inv_;
  Eigen::VectorXd alpha_, rhs_, cb_, y_;
  bool factored_ = false;
  long pivots_ = 0;
};

}  // namespace scfw::lp
