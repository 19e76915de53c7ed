// GLMO `max_l1`: x_{k+1} in argmin_{x in X} F(z_k + V_k (x - y_k), x)  (paper, Alg. 1 line 7) for
// F(u) = max_i u_i over the l1 ball ||x||_1 <= r (Task 1), exactly, on an LP of n + 1 rows whose
// basis is kept from one solve to the next. This file holds the formulation and its column
// access; the simplex is the LP engine's (plugins/lp: the dual driver while the kept basis is
// dual feasible, else the primal one, over a dense LU with an eta file; docs/design.md, "The LP
// engine").
//
// The LP. With g = z - V y and x = p - q (p, q >= 0):
//     min t   s.t.  t - V_i (p - q) - s_i = g_i   (i = 1..n),   sum_j (p_j + q_j) + s_0 = r,
//                   p, q, s, s_0 >= 0,  t free.
// The l1 ball's bounds p_j, q_j <= r are implied by the last row and left out. With y = (lambda,
// -mu) the simplex multipliers of a basis, the reduced costs are
//     p_j: mu + (V^T lambda)_j,   q_j: mu - (V^T lambda)_j,   s_i: lambda_i,   s_0: mu,
// so pricing every column is one pass of V^T lambda (n d multiply-adds), and the basis matrix is
// (n + 1) x (n + 1): t (kept basic: it is free), the basic p_j / q_j (-/+ V's column j over a 1)
// and the basic slacks (unit columns).
//
// setup() accepts the model every GLMO builds (plugins/lp/glmo_lp.hpp) only when it is exactly
// this LP: the objective one free variable t, n rows t - u_i >= 0, one row sum of 2 d variables
// with coefficient 1 <= r, x_j = p_j - q_j with p_j, q_j in [0, >= r]; anything else is declined
// with the first difference found. At a tie it may return another optimal vertex than
// dense_simplex (the same value to 1e-9), so it is chosen by a "glmo" block only.
//
// Allocation: solve() allocates nothing on its normal path (every buffer is sized in setup()).
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include "cold_clp.hpp"
#include "bounded_dual.hpp"
#include "verify.hpp"
#include "bounded_primal.hpp"
#include "factorization.hpp"
#include "glmo_lp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace lp = scfw::lp;
constexpr lp::Settings kSet = lp::kMaxL1Settings;  // tolerances and intervals

// What the model must be; the first difference found, "" when it is the max-over-l1 LP.
struct Shape {
  std::string problem;
  double radius = 0.0;
  std::vector<int> p_var, q_var;  // x_j = p_j - q_j
};

Shape recognize(const lp::GlmoModel& gm, int n, int d) {
  Shape s;
  const scfw::Model& m = gm.model;
  if (!m.cones().empty()) {
    s.problem = "the model has second-order cones";
    return s;
  }
  const auto& obj = gm.objective.terms();
  if (obj.size() != 1 || obj[0].second != 1.0 || gm.objective.constant() != 0.0) {
    s.problem = "the outer function's objective is not one variable t (F is not max_i u_i)";
    return s;
  }
  const int t = obj[0].first;
  if (m.lower(t) != -scfw::inf || m.upper(t) != scfw::inf) {
    s.problem = "the outer function's epigraph variable is bounded (F is not max_i u_i)";
    return s;
  }
  if (m.num_vars() != 2 * d + n + 1) {
    s.problem = "the model has " + std::to_string(m.num_vars()) + " variables, not 2 d + n + 1 = " +
                std::to_string(2 * d + n + 1) + " (F is not max_i u_i, or X is not the l1 ball)";
    return s;
  }
  std::vector<int> u_of(static_cast<size_t>(m.num_vars()), -1);
  for (int i = 0; i < n; ++i) u_of[static_cast<size_t>(gm.u_var[static_cast<size_t>(i)])] = i;
  // x_j = p_j - q_j, p_j and q_j used once, in [0, U] (U checked against r below).
  std::vector<char> used(static_cast<size_t>(m.num_vars()), 0);
  s.p_var.assign(static_cast<size_t>(d), -1);
  s.q_var.assign(static_cast<size_t>(d), -1);
  for (int j = 0; j < d; ++j) {
    scfw::Expr e = gm.xs[static_cast<size_t>(j)];
    e.normalize();
    const auto& tm = e.terms();
    int p = -1, q = -1;
    if (e.constant() == 0.0 && tm.size() == 2) {
      for (const auto& [v, c] : tm) {
        if (c == 1.0) p = v;
        else if (c == -1.0) q = v;
      }
    }
    if (p < 0 || q < 0 || used[static_cast<size_t>(p)] || used[static_cast<size_t>(q)] ||
        u_of[static_cast<size_t>(p)] >= 0 || u_of[static_cast<size_t>(q)] >= 0 || p == t || q == t ||
        m.lower(p) != 0.0 || m.lower(q) != 0.0) {
      s.problem = "x[" + std::to_string(j) + "] is not p - q of two variables of its own with lower bound 0 "
                  "(X is not the l1 ball)";
      return s;
    }
    used[static_cast<size_t>(p)] = used[static_cast<size_t>(q)] = 1;
    s.p_var[static_cast<size_t>(j)] = p;
    s.q_var[static_cast<size_t>(j)] = q;
  }
  // Rows: n rows t - u_i >= 0 and one row sum(p + q) <= r.
  std::vector<char> seen(static_cast<size_t>(n), 0);
  int ball_rows = 0;
  for (const scfw::Row& row : m.rows()) {
    const auto& tm = row.expr.terms();
    bool has_t = false;
    for (const auto& [v, c] : tm) has_t = has_t || v == t;
    if (has_t) {
      int i = -1;
      bool ok = tm.size() == 2 && row.lower == 0.0 && row.upper == scfw::inf;
      for (const auto& [v, c] : tm) {
        if (v == t) ok = ok && c == 1.0;
        else if (u_of[static_cast<size_t>(v)] >= 0 && c == -1.0) i = u_of[static_cast<size_t>(v)];
        else ok = false;
      }
      if (!ok || i < 0 || seen[static_cast<size_t>(i)]) {
        s.problem = "an outer row is not t >= u_i (F is not max_i u_i)";
        return s;
      }
      seen[static_cast<size_t>(i)] = 1;
      continue;
    }
    bool ok = static_cast<int>(tm.size()) == 2 * d && row.lower <= 0.0 && std::isfinite(row.upper) && row.upper > 0.0;
    for (const auto& [v, c] : tm) ok = ok && c == 1.0 && used[static_cast<size_t>(v)];
    if (!ok || ++ball_rows > 1) {
      s.problem = "a domain row is not sum_j (p_j + q_j) <= r (X is not the l1 ball)";
      return s;
    }
    s.radius = row.upper;
  }
  for (int i = 0; i < n; ++i)
    if (!seen[static_cast<size_t>(i)]) {
      s.problem = "u[" + std::to_string(i) + "] has no row t >= u_i (F is not max_i u_i)";
      return s;
    }
  if (ball_rows != 1) {
    s.problem = "the domain has no row sum_j (p_j + q_j) <= r (X is not the l1 ball)";
    return s;
  }
  for (int j = 0; j < d; ++j)
    if (m.upper(s.p_var[static_cast<size_t>(j)]) < s.radius || m.upper(s.q_var[static_cast<size_t>(j)]) < s.radius) {
      s.problem = "x[" + std::to_string(j) + "]'s variables have an upper bound below the radius (X is not the l1 ball)";
      return s;
    }
  return s;
}

class MaxL1Glmo final : public scfw::Glmo {
 public:
  MaxL1Glmo(const scfw::Params& p, const scfw::Context& ctx)
      : fb_("max_l1", p.get<bool>("cross_check")), memory_(ctx.memory) {
    max_outputs_ = p.get<int>("max_outputs");
  }

  bool supports(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d,
                std::string* why) const override {
    const std::string reason = decline_reason(outer, domain, n, d, nullptr);
    if (why) *why = reason;
    return reason.empty();
  }
  void setup(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d) override;
  scfw::GlmoResult solve(const scfw::Vec& z, const scfw::Jacobian& Vj, const scfw::Vec& y,
                         scfw::Vec& x) override;

  std::string describe() const override {
    std::string s = "max_l1 (revised simplex on max_i u_i over the l1 ball, kept basis; ";
    if (m_ == 0) return s + "not set up)";
    s += "LP " + std::to_string(m_) + " rows x " + std::to_string(nc_ - 1) + " columns and t";
    if (cold_ > 0) s += "; " + std::to_string(cold_) + " solve(s) restarted from the slack basis";
    return s + fb_.notes() + ")";
  }

  // Checkpoints: the basis is the whole warm start (every value is recomputed per solve).
  scfw::Capabilities capabilities() const override { return scfw::Capability::SavedState; }
  void save_state(scfw::StateWriter& w) const override {
    w.put("head", head_);
    fb_.save(w);
    w.put("cold", static_cast<std::int64_t>(cold_));
  }
  void load_state(scfw::StateReader& r) override {
    std::vector<int> head;
    r.get("head", head);
    if (static_cast<int>(head.size()) != m_)
      r.refuse("head", "the saved basis does not fit this LP (" + std::to_string(head.size()) + " basic columns for " +
                           std::to_string(m_) + " rows)");
    std::vector<char> in(static_cast<size_t>(nc_), 0);
    bool has_t = false;
    for (int c : head) {
      if (c < 0 || c >= nc_ || in[static_cast<size_t>(c)])
        r.refuse("head", "the saved basis does not fit this LP (column " + std::to_string(c) + ")");
      in[static_cast<size_t>(c)] = 1;
      has_t = has_t || c == col_t_;
    }
    if (!has_t) r.refuse("head", "the saved basis does not fit this LP (t is not basic)");
    fb_.load(r);
    cold_ = fb_.load_count(r, "cold");
    set_head(head.data());
    fresh_ = false;
  }

 private:
  struct DualColumns;
  struct PrimalColumns;
  std::string decline_reason(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d,
                             Shape* out, lp::GlmoModel* model = nullptr) const;
  void set_head(const int* head);
  void cold_basis();
  // The LP's column c as a dense m-vector.
  void column(int c, double* a) const;
  bool factorize();
  void refactor();
  void compute_xb();
  void compute_duals(const double* cb);
  bool feasible(bool dual) const;
  const double* pivot_row(int r);
  bool update(int r, const double* col);
  bool solve_from_basis(long& pivots, long limit);

  lp::Fallback fb_;  // cross_check and the last-resort fallback
  int max_outputs_ = 100;
  scfw::Memory memory_;  // the run's account, charged in setup()
  int n_ = 0, d_ = 0, m_ = 0, nc_ = 0, col_t_ = 0;
  double radius_ = 0.0;
  long cold_ = 0;
  bool fresh_ = true;  // no solve yet: the first one starts from the slack basis

  // Per solve. x_, dj_ (reduced costs), lo_, up_, cost_ and alpha_ (the pivot row) per column;
  // cb_, yv_, col_ per basis position.
  const scfw::Mat* V_ = nullptr;
  scfw::Vec g_, lam_, w_, rvec_, rw_;
  std::vector<int> head_, pos_;
  std::vector<double> x_, dj_, lo_, up_, cost_, alpha_, cb_, yv_, col_, colmax_;
  // B's dense LU and the product-form updates since it (at most kSet.refactor_every).
  lp::DenseLU lu_;
  lp::BoundedDual dual_;
};

std::string MaxL1Glmo::decline_reason(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d,
                                      Shape* out, lp::GlmoModel* model) const {
  if (!domain.capabilities().has(scfw::Capability::LpModel)) return "max_l1: the domain has no LP model (X is not the l1 ball)";
  if (n > max_outputs_)
    return "max_l1: " + std::to_string(n) + " outputs, more than max_outputs = " + std::to_string(max_outputs_) +
           " (the basis matrix is (n + 1) x (n + 1), factorized at least once per solve)";
  lp::GlmoModel gm = lp::build_model("max_l1", outer, domain, n, d);
  Shape s = recognize(gm, n, d);
  if (!s.problem.empty()) return "max_l1: the GLMO LP is not max_i u_i over the l1 ball: " + s.problem;
  if (out) *out = std::move(s);
  if (model) *model = std::move(gm);
  return {};
}


void MaxL1Glmo::setup(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d) {
  Shape s;
  lp::GlmoModel gm;
  const std::string why = decline_reason(outer, domain, n, d, &s, &gm);
  if (!why.empty()) throw scfw::CapabilityError(why);
  std::int64_t rows = 0;
  const std::uint64_t bytes = scfw::glmo_lp_bytes(domain, n, &rows);
  memory_.reserve(bytes, "max_l1's LP (" + std::to_string(rows) + " rows)");
  fb_.setup(gm);
  n_ = n;
  d_ = d;
  m_ = n + 1;
  radius_ = s.radius;
  // Columns: p_j (j < d), q_j (d + j), s_i (2 d + i), s_0 (2 d + n), t (2 d + n + 1); every one
  // in [0, inf) but t, free and of cost 1.
  nc_ = 2 * d + n + 2;
  col_t_ = nc_ - 1;
  const size_t m = static_cast<size_t>(m_), nc = static_cast<size_t>(nc_);
  g_.setZero(n);
  lam_.setZero(n);
  rvec_.setZero(n);
  w_.setZero(d);
  rw_.setZero(d);
  head_.assign(m, 0);
  pos_.assign(nc, -1);
  lu_.resize(m_, kSet.refactor_every);
  dual_.resize(m_, nc_);
  x_.assign(nc, 0.0);
  dj_.assign(nc, 0.0);
  alpha_.assign(nc, 0.0);
  lo_.assign(nc, 0.0);
  up_.assign(nc, scfw::inf);
  cost_.assign(nc, 0.0);
  lo_[static_cast<size_t>(col_t_)] = -scfw::inf;
  cost_[static_cast<size_t>(col_t_)] = 1.0;
  cb_.assign(m, 0.0);
  yv_.assign(m, 0.0);
  col_.assign(m, 0.0);
  colmax_.assign(m, 1.0);
  cold_basis();  // a valid basis until the first solve replaces it by the slack basis for its g
  fresh_ = true;
  cold_ = 0;
}

void MaxL1Glmo::set_head(const int* head) {
  std::fill(pos_.begin(), pos_.end(), -1);
  for (int r = 0; r < m_; ++r) {
    head_[static_cast<size_t>(r)] = head[r];
    pos_[static_cast<size_t>(head[r])] = r;
  }
}

// t on a row of the largest g_i (the first), the other rows' slacks and s_0 basic: t = max g,
// s_i = t - g_i >= 0, s_0 = r. Its matrix is a permuted triangle with unit diagonal.
void MaxL1Glmo::cold_basis() {
  int top = 0;
  for (int i = 1; i < n_; ++i)
    if (g_[i] > g_[top]) top = i;
  std::fill(pos_.begin(), pos_.end(), -1);
  for (int i = 0; i < n_; ++i) head_[static_cast<size_t>(i)] = i == top ? col_t_ : 2 * d_ + i;
  head_[static_cast<size_t>(n_)] = 2 * d_ + n_;
  for (int r = 0; r < m_; ++r) pos_[static_cast<size_t>(head_[static_cast<size_t>(r)])] = r;
}

void MaxL1Glmo::column(int c, double* a) const {
  std::fill(a, a + m_, 0.0);
  if (c < 2 * d_) {
    // V is row-major (scfw::Mat): column j is strided by d.
    const double* v = V_->data() + (c < d_ ? c : c - d_);
    const size_t stride = static_cast<size_t>(d_);
    if (c < d_) {
      for (int i = 0; i < n_; ++i) a[i] = -v[static_cast<size_t>(i) * stride];
    } else {
      for (int i = 0; i < n_; ++i) a[i] = v[static_cast<size_t>(i) * stride];
    }
    a[n_] = 1.0;
  } else if (c < 2 * d_ + n_) {
    a[c - 2 * d_] = -1.0;
  } else if (c == 2 * d_ + n_) {
    a[n_] = 1.0;
  } else {
    for (int i = 0; i < n_; ++i) a[i] = 1.0;
  }
}

// The basis matrix B written from the basic columns and factorized by the LP engine's dense LU
// (plugins/lp/factorization.hpp). False when a pivot is below kSet.singular_tol times the
// largest entry of its column of B (every column has an entry of magnitude 1, so that is at
// least 1).
bool MaxL1Glmo::factorize() {
  const size_t M = static_cast<size_t>(m_);
  double* a = lu_.clear_matrix(m_);
  for (int c = 0; c < m_; ++c) {
    column(head_[static_cast<size_t>(c)], col_.data());
    double big = 1.0;
    for (int i = 0; i < m_; ++i) {
      a[static_cast<size_t>(i) * M + static_cast<size_t>(c)] = col_[static_cast<size_t>(i)];
      big = std::max(big, std::abs(col_[static_cast<size_t>(i)]));
    }
    colmax_[static_cast<size_t>(c)] = big;
  }
  return lu_.factor([this](int k) { return kSet.singular_tol * colmax_[static_cast<size_t>(k)]; }) < 0;
}

// A fresh factorization of the basis (a singular one is replaced by the slack basis, always
// regular) and the values from it.
void MaxL1Glmo::refactor() {
  if (!factorize()) {
    cold_basis();
    factorize();
  }
  compute_xb();
}

// x_B = B^{-1} (g, r); every nonbasic column sits at 0.
void MaxL1Glmo::compute_xb() {
  for (int i = 0; i < n_; ++i) yv_[static_cast<size_t>(i)] = g_[i];
  yv_[static_cast<size_t>(n_)] = radius_;
  lu_.ftran(yv_.data());
  std::fill(x_.begin(), x_.end(), 0.0);
  for (int r = 0; r < m_; ++r) x_[static_cast<size_t>(head_[static_cast<size_t>(r)])] = yv_[static_cast<size_t>(r)];
}

// y = B^{-T} c_B (cb by position), lambda = y_0..n-1, mu = -y_n, and every reduced cost: p_j:
// mu + (V^T lambda)_j, q_j: mu - (V^T lambda)_j, s_i: lambda_i, s_0: mu (0 for the basic ones).
void MaxL1Glmo::compute_duals(const double* cb) {
  std::copy_n(cb, static_cast<size_t>(m_), yv_.begin());
  lu_.btran(yv_.data());
  for (int i = 0; i < n_; ++i) lam_[i] = yv_[static_cast<size_t>(i)];
  const double mu = -yv_[static_cast<size_t>(n_)];
  w_.noalias() = V_->transpose() * lam_;
  double* dp = dj_.data();
  double* dq = dj_.data() + d_;
  const double* w = w_.data();
  for (int j = 0; j < d_; ++j) {
    dp[j] = mu + w[j];
    dq[j] = mu - w[j];
  }
  for (int i = 0; i < n_; ++i) dj_[static_cast<size_t>(2 * d_ + i)] = lam_[i];
  dj_[static_cast<size_t>(2 * d_ + n_)] = mu;
  for (int r = 0; r < m_; ++r) dj_[static_cast<size_t>(head_[static_cast<size_t>(r)])] = 0.0;
}

// Every basic value within its bounds (dual: every reduced cost >= -kSet.dual_tol; t is basic).
bool MaxL1Glmo::feasible(bool dual) const {
  if (dual) return std::none_of(dj_.begin(), dj_.end() - 1, [](double v) { return v < -kSet.dual_tol; });
  for (int r = 0; r < m_; ++r) {
    const int c = head_[static_cast<size_t>(r)];
    if (c != col_t_ && x_[static_cast<size_t>(c)] < -kSet.primal_tol) return false;
  }
  return true;
}

// The pivot row alpha_c = e_r^T B^{-1} a_c of every column, by one pass of V^T rho.
const double* MaxL1Glmo::pivot_row(int r) {
  std::fill(yv_.begin(), yv_.end(), 0.0);
  yv_[static_cast<size_t>(r)] = 1.0;
  lu_.btran(yv_.data());
  for (int i = 0; i < n_; ++i) rvec_[i] = yv_[static_cast<size_t>(i)];
  const double rn = yv_[static_cast<size_t>(n_)];
  rw_.noalias() = V_->transpose() * rvec_;
  double* ap = alpha_.data();
  double* aq = alpha_.data() + d_;
  for (int j = 0; j < d_; ++j) {
    ap[j] = rn - rw_[j];
    aq[j] = rn + rw_[j];
  }
  for (int i = 0; i < n_; ++i) alpha_[static_cast<size_t>(2 * d_ + i)] = -yv_[static_cast<size_t>(i)];
  alpha_[static_cast<size_t>(2 * d_ + n_)] = rn;
  alpha_[static_cast<size_t>(col_t_)] = rvec_.sum();
  return alpha_.data();
}

// The entering column col = B^{-1} a_q took position r (head_ already says so): its product-form
// update, kept when its pivot is not small against the column; false asks for a refactorization.
bool MaxL1Glmo::update(int r, const double* col) {
  double amax = 0.0;
  for (int i = 0; i < m_; ++i) amax = std::max(amax, std::abs(col[i]));
  return std::abs(col[r]) >= kSet.update_pivot_ratio * amax && lu_.update(col, r);
}

// The column access of the engine's dual driver (plugins/lp/bounded_dual.hpp): no column has a
// finite upper bound, so nothing flips; the leaving row is the most infeasible one.
struct MaxL1Glmo::DualColumns {
  MaxL1Glmo& g;
  // The verification policy's part (plugins/lp/verify.hpp): a singular basis is replaced by the
  // slack basis; no column needs an artificial bound, so the reduced costs are checked, not
  // repaired. A primal feasible basis goes to the primal driver, which prices it once and ends
  // at once when it is optimal.
  bool refactor() {
    if (!g.factorize()) {
      g.cold_basis();
      g.factorize();
    }
    return true;
  }
  int updates() const { return g.lu_.etas(); }
  int recompute(bool) {
    g.compute_xb();
    if (g.feasible(false)) return -1;
    for (int r = 0; r < g.m_; ++r) g.cb_[static_cast<size_t>(r)] = g.cost_[static_cast<size_t>(g.head_[static_cast<size_t>(r)])];
    g.compute_duals(g.cb_.data());
    return g.feasible(true) ? 0 : -1;
  }
  bool basic(int j) const { return g.pos_[static_cast<size_t>(j)] >= 0; }
  int vars() const { return g.nc_; }
  int movable_count() const { return g.nc_; }
  int movable(int i) const { return i; }
  lp::Side side(int j) const {
    return g.pos_[static_cast<size_t>(j)] >= 0 ? lp::Side::kSkip : j == g.col_t_ ? lp::Side::kFree : lp::Side::kLower;
  }
  double weight(int) const { return 1.0; }
  const double* pivot_row(int r) { return g.pivot_row(r); }
  void column(int q, double* out) const {
    g.column(q, out);
    g.lu_.ftran(out);
  }
  void add_column(int j, double dx, double* w) const {
    g.column(j, g.col_.data());
    for (int i = 0; i < g.m_; ++i) w[i] += g.col_[static_cast<size_t>(i)] * dx;
  }
  void ftran(const double* w, double* out) const {
    std::copy_n(w, static_cast<size_t>(g.m_), out);
    g.lu_.ftran(out);
  }
  void moved(int) const {}
  bool basis_change(int r, int p, int q, const double* col) {
    g.pos_[static_cast<size_t>(p)] = -1;
    g.pos_[static_cast<size_t>(q)] = r;
    return g.update(r, col);
  }
};

// The column access of the engine's primal driver (plugins/lp/bounded_primal.hpp): the
// composite phase 1 from any basis; a candidate end is accepted when x_B recomputed from the
// factorization agrees with the phase.
struct MaxL1Glmo::PrimalColumns {
  MaxL1Glmo& g;
  lp::PrimalBasisView view() { return {g.m_, g.head_.data(), g.x_.data(), g.lo_.data(), g.up_.data()}; }
  int vars() const { return g.nc_; }
  const int* pos() const { return g.pos_.data(); }
  bool price() {
    const bool phase1 = lp::composite_basic_costs(view(), g.cost_.data(), g.cb_.data());
    g.compute_duals(g.cb_.data());
    return phase1;
  }
  double reduced_cost(int j) const { return g.dj_[static_cast<size_t>(j)]; }
  // Every nonbasic column but t sits at 0 with no upper bound, so Dantzig's choice is the most
  // negative reduced cost (the first on ties; Bland: the first below -dual_tol).
  int entering(bool bland, double& dq) const {
    if (g.pos_[static_cast<size_t>(g.col_t_)] < 0)
      return lp::dantzig_entering(g.nc_, g.pos_.data(), {g.m_, g.head_.data(), g.x_.data(), g.lo_.data(), g.up_.data()},
                                  [this](int j) { return g.dj_[static_cast<size_t>(j)]; }, bland, kSet, dq);
    int q = -1;
    dq = -kSet.dual_tol;
    const double* d = g.dj_.data();
    for (int c = 0; c < g.col_t_; ++c)
      if (d[c] < dq) {
        dq = d[c];
        q = c;
        if (bland) break;
      }
    if (q < 0) dq = 0.0;
    return q;
  }
  void column(int q, double* alpha) const {
    g.column(q, alpha);
    g.lu_.ftran(alpha);
  }
  bool basis_change(int r, int q) {
    g.pos_[static_cast<size_t>(g.head_[static_cast<size_t>(r)])] = -1;
    g.head_[static_cast<size_t>(r)] = q;
    g.pos_[static_cast<size_t>(q)] = r;
    return g.update(r, g.col_.data());
  }
  void refactor() { g.refactor(); }
  bool fresh() const { return g.lu_.etas() == 0; }
  bool verify(bool phase1) {
    g.compute_xb();
    return g.feasible(false) == !phase1;
  }
};

// From the kept basis to a verified optimum (true): the engine's dual driver under its
// verification policy while the basis is primal infeasible and dual feasible (after z drifts),
// then the primal driver, whose composite phase 1 starts from any basis. False at the pivot
// limit or in numerical trouble (the LP is feasible and bounded).
bool MaxL1Glmo::solve_from_basis(long& pivots, long limit) {
  DualColumns dual_cols{*this};
  const lp::DualBasisView view{m_, head_.data(), x_.data(), dj_.data(), lo_.data(), up_.data()};
  switch (lp::verified_dual(dual_, dual_cols, view, kSet, limit, pivots)) {
    case lp::Verified::kOptimal:
      return true;
    case lp::Verified::kToPrimal:
      break;
    default:  // no entering column (numerical: the LP is feasible), the pivot limit, no verified end
      return false;
  }
  PrimalColumns primal_cols{*this};
  return lp::primal_simplex(primal_cols, col_.data(), kSet, limit, pivots) == lp::PrimalExit::kOptimal;
}

scfw::GlmoResult MaxL1Glmo::solve(const scfw::Vec& z, const scfw::Jacobian& Vj, const scfw::Vec& y, scfw::Vec& x) {
  if (m_ == 0) throw scfw::Error("max_l1: solve() called before setup()");
  const scfw::Mat& V = Vj.dense();
  fb_.begin_solve(z, V, y, n_, d_);
  V_ = &V;
  g_ = z;
  g_.noalias() -= V * y;

  long pivots = 0;
  const long limit = 50 + 10L * m_;
  if (fresh_) cold_basis();
  bool solved = solve_from_basis(pivots, limit);
  if (!solved) {
    if (!fresh_) ++cold_;
    cold_basis();
    solved = solve_from_basis(pivots, pivots + 4 * limit);
  }
  fresh_ = false;
  if (!solved) {
    // The last resort: the LP solved cold by Clp; the next solve starts from this g's slack
    // basis (kept in head_, so a checkpoint taken now resumes the same way).
    cold_basis();
    return fb_.solve(z, V, y, x, pivots);
  }
  if (x.size() != d_) x.resize(d_);
  x.setZero();
  for (int r = 0; r < m_; ++r) {
    const int c = head_[static_cast<size_t>(r)];
    const double v = std::max(0.0, x_[static_cast<size_t>(c)]);
    if (c < d_) x[c] += v;
    else if (c < 2 * d_) x[c - d_] -= v;
  }
  // F at the returned x: max_i (g_i + V_i x) over the basic coordinates.
  for (int i = 0; i < n_; ++i) lam_[i] = g_[i];
  for (int r = 0; r < m_; ++r) {
    const int c = head_[static_cast<size_t>(r)];
    if (c >= 2 * d_) continue;
    const int j = c < d_ ? c : c - d_;
    if (c >= d_ && pos_[static_cast<size_t>(j)] >= 0) continue;  // both p_j and q_j basic: once
    const double xj = x[j];
    if (xj != 0.0) lam_ += xj * V.col(j);
  }
  scfw::GlmoResult result;
  result.value = lam_.maxCoeff();
  result.iterations = pivots;
  fb_.accept(result.value, z, V, y);
  return result;
}

void register_components(scfw::Registrar& r) {
  r.add<MaxL1Glmo>(
      "max_l1",
      "x = argmin_{x in X} F(z + V (x - y), x) for F(u) = max_i u_i over the l1 ball, exactly: a revised simplex "
      "on the (n + 1)-row LP that keeps its basis (the active coordinates and their signs) from one solve to the "
      "next and prices the 2 d columns by one pass of V^T lambda (Alg. 1 line 7)",
      {scfw::ParamSpec::integer("max_outputs",
                                "refuse problems with more outputs n than this (the dense (n + 1) x (n + 1) basis "
                                "matrix is factorized at least once per solve)")
           .range(1, 4096)
           .def(std::int64_t{100}),
       scfw::ParamSpec::boolean("cross_check",
                                "also solve every LP with Clp and stop at the first disagreement above 1e-9 of the "
                                "size of the terms its value sums (debugging; slow)")
           .def(false)});
}

}  // namespace

SCFW_PLUGIN("max_l1", SCFW_PLUGIN_VERSION, register_components)
