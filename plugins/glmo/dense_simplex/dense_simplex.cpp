// GLMO `dense_simplex`: x_{k+1} in argmin_{x in X} F(z_k + V_k (x - y_k), x)  (paper, Alg. 1
// line 7) as one small dense LP, solved exactly by a bounded dual simplex that keeps its basis
// from one solve to the next (docs/design.md, "The LP engine").
//
// Formulation: the model every GLMO builds (plugins/lp/glmo_lp.hpp) with the n free u
// substituted out, u_i = g_i + sum_v W_iv var_v (g = z - V (y - c), W = V A, x = c + A var): n
// rows and n columns fewer (the Task 1 LP, max over the l1 ball at n = 10, d = 100, is 11 rows x
// 201 columns). Only the rows (and the objective) that mentioned some u change with (z, V, y):
// each solve writes them from a stored static part plus B W (B their u coefficients) and shifts
// their bounds by B g. The rows and the cost are one dense row-major (m + 1) x ns array; row r
// has the logical s_r = a_r^T v with the row's bounds. build() reads V's rows contiguously over
// the x terms cut into strided runs (the l1 ball's p_j, q_j written as pairs, two columns per
// SSE2 step), and g runs four rows side by side, each its own sequential sum: every per-solve
// quantity has one fixed order of operations.
//
// Allocation: solve() allocates nothing on its normal path (every buffer is sized in setup());
// the Clp paths (cross_check, the last-resort fallback) do.
#include <scfw/scfw.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>  // build(): the l1 ball's column pairs, two lanes rounded as doubles
#endif

#include "cold_clp.hpp"
#include "bounded_dual.hpp"
#include "verify.hpp"
#include "dense_kernel.hpp"
#include "glmo_lp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace {

namespace lp = scfw::lp;
constexpr lp::Settings kSet = lp::kDenseSimplexSettings;  // tolerances and intervals

enum Status : signed char { kBasic = -1, kAtLower = 0, kAtUpper = 1, kAtZero = 2 };
static_assert(kBasic == static_cast<int>(lp::Side::kSkip) && kAtLower == static_cast<int>(lp::Side::kLower) &&
              kAtUpper == static_cast<int>(lp::Side::kUpper) && kAtZero == static_cast<int>(lp::Side::kFree));

class DenseSimplexGlmo final : public scfw::Glmo {
 public:
  DenseSimplexGlmo(const scfw::Params& p, const scfw::Context& ctx)
      : fb_("dense_simplex", p.get<bool>("cross_check")), memory_(ctx.memory) {
    max_rows_ = p.get<int>("max_rows");  // declared in [1, 2^20]
    max_columns_ = p.get<int>("max_columns");  // declared in [1, 2^30]
  }

  bool supports(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d,
                std::string* why) const override;
  void setup(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d) override;
  scfw::GlmoResult solve(const scfw::Vec& z, const scfw::Jacobian& Vj, const scfw::Vec& y,
                         scfw::Vec& x) override;

  std::string describe() const override {
    std::string s = "dense_simplex (bounded dual simplex, kept basis; ";
    if (m_ == 0 && ns_ == 0) return s + "not set up)";
    s += "LP " + std::to_string(m_) + " rows x " + std::to_string(ns_) + " columns";
    return s + fb_.notes() + ")";
  }

  // Checkpoints: the warm start is the basis (head_, stat_) and the values x_ the next solve's
  // repair of a singular basis reads; everything else is rebuilt by every solve. The counters
  // keep describe() equal.
  scfw::Capabilities capabilities() const override { return scfw::Capability::SavedState; }
  void save_state(scfw::StateWriter& w) const override {
    w.put("head", head_);
    w.put("status", stat_);
    w.put("x", x_);
    fb_.save(w);
  }
  // What is loaded is checked first (a damaged basis would index outside the LP): every status
  // one of the four, the basis m distinct variables each with the basic status and no other
  // variable basic, the values finite.
  void load_state(scfw::StateReader& r) override {
    std::vector<int> head(head_.size());
    std::vector<signed char> stat(stat_.size());
    std::vector<double> x(x_.size());
    r.get_same_size("head", head);
    r.check_range("head", head, 0, nt_ - 1);
    r.get_same_size("status", stat);
    r.check_range("status", stat, static_cast<signed char>(kBasic), static_cast<signed char>(kAtZero));
    std::vector<char> seen(stat.size(), 0);
    for (size_t i = 0; i < head.size(); ++i) {
      const auto j = static_cast<size_t>(head[i]);
      if (seen[j]) r.refuse("head", "variable " + std::to_string(j) + " is basic twice");
      if (stat[j] != kBasic)
        r.refuse("head", "variable " + std::to_string(j) + " is in the basis but its status is not basic");
      seen[j] = 1;
    }
    if (std::count(stat.begin(), stat.end(), static_cast<signed char>(kBasic)) != static_cast<long>(head.size()))
      r.refuse("status", "more variables are basic than the basis holds");
    r.get_same_size("x", x);
    r.check_finite("x", x);
    fb_.load(r);
    head_ = std::move(head);
    stat_ = std::move(stat);
    x_ = std::move(x);
  }

 private:
  // --- the LP -------------------------------------------------------------------------------
  void build_xterms(const lp::UElimination& elim);
  void build_static(const lp::UElimination& elim);
  void init_bounds(const lp::UElimination& elim);
  void size_work();
  void build(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y);
  void compute_g(const scfw::Vec& z, const scfw::Mat& V);
  double* row(int r) { return A_.data() + static_cast<size_t>(r) * static_cast<size_t>(ns_); }
  const double* row(int r) const {
    return A_.data() + static_cast<size_t>(r) * static_cast<size_t>(ns_);
  }
  bool is_logical(int j) const { return j >= ns_; }

  // --- the simplex ----------------------------------------------------------------------------
  bool factorize();  // fresh inverse of the basis; false if the basis had to be repaired
  inline void place_nonbasic(int j);
  void compute_xb();
  void compute_duals();
  int make_dual_feasible();
  void column(int j, double* out) const;  // out = Binv * a_j
  struct DualColumns;
  void compute_pivot_row(int r);
  void add_rows(const double* coef, double* out);
  bool unbounded_ray(int q);
  void reset_basis();
  bool run_rounds(long& pivots);

  lp::Fallback fb_;  // cross_check and the last-resort fallback
  int max_rows_ = 100;
  scfw::Memory memory_;  // the run's account, charged in setup()
  int max_columns_ = 1500;

  int n_ = 0, d_ = 0;
  int m_ = 0, ns_ = 0, nt_ = 0;  // rows, structural columns, structural + logical

  // Static LP data.
  std::vector<double> S_;  // (m + 1) x ns static coefficients; row m is the cost
  std::vector<double> A_;  // (m + 1) x ns current coefficients
  using UTerm = lp::UElimination::UTerm;  // row m: the objective
  std::vector<UTerm> uterms_;
  std::vector<int> dyn_rows_;  // rows (and m for the cost) that mention some u
  struct XTerm {
    int j;    // coordinate x_j
    int col;  // structural column
    double a;
  };
  std::vector<XTerm> xterms_;  // x_j = c_j + sum a * v_col, sorted by j
  // The same terms cut into runs: term s of a run is x_{j0 + s} += a_s v_{k0 + s * stride}
  // (the l1 ball: one run for the p's, one for the q's), so that build() reads V's row and the
  // coefficients contiguously.
  struct XRun {
    int k0, stride, j0, len, off;  // off: first coefficient in xrun_a_
  };
  std::vector<XRun> xruns_;
  std::vector<double> xrun_a_;
  // Two runs of stride 2 over the same x_j's in adjacent columns (the l1 ball's p_j, q_j) are
  // written together, two columns at a time: coefficients interleaved in xpair_a_.
  struct XPair {
    int k0, j0, len, off;  // columns k0 + 2s, k0 + 2s + 1 <- x_{j0 + s}; off: into xpair_a_
  };
  std::vector<XPair> xpairs_;
  std::vector<double> xpair_a_;
  std::vector<double> upair_;  // per u term t: t.coef * xpair_a_, the products build() would form
  std::vector<double> ymc_;  // y - c, per solve
  std::vector<double> g_;    // g = z - V (y - c), per solve
  std::vector<double> row_lo0_, row_up0_;  // row bounds with the static constants moved over
  double obj_const0_ = 0.0;
  double obj_const_ = 0.0;
  double bound_scale_ = 1.0;  // max(1, largest finite bound): the scale of the artificial bounds

  // Bounds: real (lo_, up_) and effective (elo_, eup_, with artificial bounds), values, duals.
  std::vector<double> lo_, up_, elo_, eup_, x_, dj_;
  lp::ArtificialBounds art_;
  std::vector<signed char> stat_;
  std::vector<int> head_;  // basis: head_[i] is the variable of basis position i

  // Factorization and work arrays (sized in setup()).
  lp::DenseInverse inv_;
  std::vector<double> rho_, alpha_, col_, w_, ydual_;
  lp::BoundedDual dual_;  // the engine's dual driver and its work arrays
  std::vector<int> nz_;  // rows with a nonzero multiplier (pivot row, reduced costs)
  int updates_ = 0;
  double min_pivot_ratio_ = 1.0;  // smallest |alpha_rq| / max_i |alpha_iq| since the factorization

  // The model with its u variables explicit (for Clp), the x-map.
  lp::SparseLp lp_;
  std::unique_ptr<lp::XMap> xmap_;
};

// The LP setup() would build, sized without building it: declined when the domain has no model,
// the model has cones, or it is larger than max_rows x max_columns (the u variables are
// substituted out, so the columns are the other variables). The reasons are setup()'s words.
bool DenseSimplexGlmo::supports(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int,
                                std::string* why) const {
  auto decline = [why](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  if (!domain.capabilities().has(scfw::Capability::LpModel))
    return decline("dense_simplex: the domain has no LP model (it is known only through its LMO); the "
                   "dense_simplex GLMO needs the domain's model");
  scfw::Model m;
  const std::vector<scfw::Expr> xs = domain.model(m);
  std::vector<scfw::Expr> u;
  for (int i = 0; i < n; ++i) u.emplace_back(m.add_var(-scfw::inf, scfw::inf, "u[" + std::to_string(i) + "]"));
  outer.model(m, u, xs);
  if (!m.cones().empty())
    return decline("dense_simplex: the model has second-order cones, which this LP solver does not handle; "
                   "use the clp GLMO");
  const int rows = static_cast<int>(m.rows().size());
  if (rows > max_rows_)
    return decline("dense_simplex: the GLMO LP has " + std::to_string(rows) + " rows, more than max_rows = " +
                   std::to_string(max_rows_));
  const int columns = m.num_vars() - n;
  if (columns > max_columns_)
    return decline("dense_simplex: the GLMO LP has " + std::to_string(columns) + " columns, more than max_columns = " +
                   std::to_string(max_columns_));
  return true;
}

void DenseSimplexGlmo::setup(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n,
                             int d) {
  lp::GlmoModel g = lp::build_model("dense_simplex", outer, domain, n, d);
  std::int64_t rows = 0;
  const std::uint64_t bytes = scfw::glmo_lp_bytes(domain, n, &rows);
  memory_.reserve(scfw::add_bytes(bytes, scfw::bytes_of({rows, rows, 8})),
                  "dense_simplex's LP and basis inverse (" + std::to_string(rows) + " x " + std::to_string(rows) + ")");
  n_ = n;
  d_ = d;
  if (!g.model.cones().empty())
    throw scfw::CapabilityError(
        "dense_simplex: the model has second-order cones, which this LP solver does not handle; "
        "use the clp GLMO");
  lp_ = lp::SparseLp::from_model(g.model, g.objective);
  const lp::UElimination elim(lp_, g.u_var, {});
  ns_ = elim.columns;
  m_ = elim.rows;
  if (m_ > max_rows_)
    throw scfw::CapabilityError("dense_simplex: the GLMO LP has " + std::to_string(m_) +
                                " rows, more than max_rows = " + std::to_string(max_rows_));
  // Every pivot prices every column densely; past a few thousand columns Clp's sparse pricing
  // wins (docs/performance.md, scaling: d = 10000 is 1.4-2x slower here), so decline and let the
  // host fall back to clp.
  if (ns_ > max_columns_)
    throw scfw::CapabilityError("dense_simplex: the GLMO LP has " + std::to_string(ns_) +
                                " columns, more than max_columns = " + std::to_string(max_columns_));
  nt_ = ns_ + m_;
  fb_.setup(g);
  xmap_ = std::make_unique<lp::XMap>(std::move(g.xs));
  build_xterms(elim);
  build_static(elim);
  init_bounds(elim);
  size_work();
  reset_basis();
}

// x_j = c_j + sum a v over the structural columns, and the same terms cut into strided runs.
void DenseSimplexGlmo::build_xterms(const lp::UElimination& elim) {
  xterms_.clear();
  for (int j = 0; j < d_; ++j)
    for (const auto& [v, a] : xmap_->xs[static_cast<size_t>(j)].terms()) {
      const int col = elim.col_of[static_cast<size_t>(v)];
      if (col < 0) throw scfw::Error("dense_simplex: the domain's x refers to a u variable");
      xterms_.push_back({j, col, a});
    }
  ymc_.assign(static_cast<size_t>(d_), 0.0);
  g_.assign(static_cast<size_t>(n_), 0.0);
  xruns_.clear();
  xrun_a_.clear();
  // Lane l holds the l-th term of every x_j; each lane is cut into runs.
  std::vector<std::vector<XTerm>> lanes;
  for (size_t t = 0; t < xterms_.size();) {
    const int j = xterms_[t].j;
    for (size_t l = 0; t < xterms_.size() && xterms_[t].j == j; ++l, ++t) {
      if (lanes.size() <= l) lanes.emplace_back();
      lanes[l].push_back(xterms_[t]);
    }
  }
  for (const std::vector<XTerm>& lane : lanes)
    for (size_t t = 0; t < lane.size();) {
      XRun run{lane[t].col, 1, lane[t].j, 1, static_cast<int>(xrun_a_.size())};
      xrun_a_.push_back(lane[t].a);
      if (t + 1 < lane.size() && lane[t + 1].j == run.j0 + 1 && lane[t + 1].col != run.k0)
        run.stride = lane[t + 1].col - run.k0;
      size_t u = t + 1;
      for (; u < lane.size() && lane[u].j == run.j0 + run.len &&
             lane[u].col == run.k0 + run.len * run.stride;
           ++u, ++run.len)
        xrun_a_.push_back(lane[u].a);
      xruns_.push_back(run);
      t = u;
    }
  // Pair runs of stride 2 that cover the columns k0 + 2s and k0 + 1 + 2s for the same x_j's.
  xpairs_.clear();
  xpair_a_.clear();
  std::vector<XRun> single;
  std::vector<char> used(xruns_.size(), 0);
  for (size_t r = 0; r < xruns_.size(); ++r) {
    if (used[r]) continue;
    const XRun& a = xruns_[r];
    size_t mate = xruns_.size();
    if (a.stride == 2)
      for (size_t o = r + 1; o < xruns_.size(); ++o) {
        const XRun& b = xruns_[o];
        if (!used[o] && b.stride == 2 && b.j0 == a.j0 && b.len == a.len && b.k0 == a.k0 + 1) {
          mate = o;
          break;
        }
      }
    if (mate == xruns_.size()) {
      single.push_back(a);
      continue;
    }
    used[r] = used[mate] = 1;
    const XRun& b = xruns_[mate];
    xpairs_.push_back({a.k0, a.j0, a.len, static_cast<int>(xpair_a_.size())});
    for (int k = 0; k < a.len; ++k) {
      xpair_a_.push_back(xrun_a_[static_cast<size_t>(a.off + k)]);
      xpair_a_.push_back(xrun_a_[static_cast<size_t>(b.off + k)]);
    }
  }
  xruns_ = std::move(single);
}

// Static coefficients S (the rows and the cost without their u terms), the u terms, row bounds.
void DenseSimplexGlmo::build_static(const lp::UElimination& elim) {
  S_.assign(static_cast<size_t>(m_ + 1) * static_cast<size_t>(ns_), 0.0);
  for (int v = 0; v < lp_.num_vars; ++v) {
    const int col = elim.col_of[static_cast<size_t>(v)];
    if (col < 0) continue;
    for (const auto& [r, a] : lp_.cols[static_cast<size_t>(v)])
      S_[static_cast<size_t>(r) * static_cast<size_t>(ns_) + static_cast<size_t>(col)] += a;
    S_[static_cast<size_t>(m_) * static_cast<size_t>(ns_) + static_cast<size_t>(col)] += lp_.cost[static_cast<size_t>(v)];
  }
  uterms_ = elim.uterms;
  const size_t np = xpair_a_.size();
  upair_.assign(uterms_.size() * np, 0.0);
  for (size_t u = 0; u < uterms_.size(); ++u)
    for (size_t e = 0; e < np; ++e) upair_[u * np + e] = uterms_[u].coef * xpair_a_[e];
  dyn_rows_ = elim.dynamic_rows();
  row_lo0_ = lp_.row_lo;
  row_up0_ = lp_.row_up;
  obj_const0_ = lp_.objective_constant;
  A_ = S_;
}

// Bounds of the structurals and logicals, and the scale of the artificial bounds.
void DenseSimplexGlmo::init_bounds(const lp::UElimination& elim) {
  lo_.assign(static_cast<size_t>(nt_), 0.0);
  up_.assign(static_cast<size_t>(nt_), 0.0);
  bound_scale_ = 1.0;
  for (int v = 0; v < lp_.num_vars; ++v) {
    const int col = elim.col_of[static_cast<size_t>(v)];
    if (col < 0) continue;
    lo_[static_cast<size_t>(col)] = lp_.col_lo[static_cast<size_t>(v)];
    up_[static_cast<size_t>(col)] = lp_.col_up[static_cast<size_t>(v)];
  }
  for (int r = 0; r < m_; ++r) {
    lo_[static_cast<size_t>(ns_ + r)] = row_lo0_[static_cast<size_t>(r)];
    up_[static_cast<size_t>(ns_ + r)] = row_up0_[static_cast<size_t>(r)];
  }
  for (int j = 0; j < nt_; ++j)
    for (double b : {lo_[static_cast<size_t>(j)], up_[static_cast<size_t>(j)]})
      if (std::isfinite(b)) bound_scale_ = std::max(bound_scale_, std::abs(b));
  elo_ = lo_;
  eup_ = up_;
}

// Every buffer of solve(), sized once.
void DenseSimplexGlmo::size_work() {
  x_.assign(static_cast<size_t>(nt_), 0.0);
  dj_.assign(static_cast<size_t>(nt_), 0.0);
  art_.attach(nt_, lo_.data(), up_.data(), elo_.data(), eup_.data());
  stat_.assign(static_cast<size_t>(nt_), kAtLower);
  head_.assign(static_cast<size_t>(m_), 0);
  inv_.resize(m_);
  rho_.assign(static_cast<size_t>(m_), 0.0);
  col_.assign(static_cast<size_t>(m_), 0.0);
  w_.assign(static_cast<size_t>(m_), 0.0);
  ydual_.assign(static_cast<size_t>(m_), 0.0);
  alpha_.assign(static_cast<size_t>(nt_), 0.0);
  dual_.resize(m_, nt_);
  nz_.assign(static_cast<size_t>(m_), 0);
}

// The slack basis: every logical basic, every structural at a finite bound (or 0 when free).
void DenseSimplexGlmo::reset_basis() {
  for (int j = 0; j < nt_; ++j) {
    elo_[static_cast<size_t>(j)] = lo_[static_cast<size_t>(j)];
    eup_[static_cast<size_t>(j)] = up_[static_cast<size_t>(j)];
    stat_[static_cast<size_t>(j)] = kAtLower;
  }
  art_.start(0.0);
  for (int r = 0; r < m_; ++r) {
    head_[static_cast<size_t>(r)] = ns_ + r;
    stat_[static_cast<size_t>(ns_ + r)] = kBasic;
  }
}

// g_i = z_i - V_i (y - c) for every i, four rows at a time: each row's sum is the one sequential
// chain (g -= V_ij (y - c)_j, j ascending), so the bits do not depend on the grouping; the four
// chains are independent, so they overlap instead of waiting on each other's additions.
void DenseSimplexGlmo::compute_g(const scfw::Vec& z, const scfw::Mat& V) {
  const double* ymc = ymc_.data();
  const size_t d = static_cast<size_t>(d_);
  int i = 0;
  for (; i + 4 <= n_; i += 4) {
    const double* v0 = V.data() + static_cast<size_t>(i) * d;  // row-major
    const double *v1 = v0 + d, *v2 = v1 + d, *v3 = v2 + d;
    double g0 = z[i], g1 = z[i + 1], g2 = z[i + 2], g3 = z[i + 3];
    for (size_t j = 0; j < d; ++j) {
      const double w = ymc[j];
      g0 -= v0[j] * w;
      g1 -= v1[j] * w;
      g2 -= v2[j] * w;
      g3 -= v3[j] * w;
    }
    g_[static_cast<size_t>(i)] = g0;
    g_[static_cast<size_t>(i) + 1] = g1;
    g_[static_cast<size_t>(i) + 2] = g2;
    g_[static_cast<size_t>(i) + 3] = g3;
  }
  for (; i < n_; ++i) {
    const double* vi = V.data() + static_cast<size_t>(i) * d;
    double g = z[i];
    for (size_t j = 0; j < d; ++j) g -= vi[j] * ymc[j];
    g_[static_cast<size_t>(i)] = g;
  }
}

// Rows and cost that mention u: S + B W; their bounds and the objective constant: shifted by B g.
void DenseSimplexGlmo::build(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y) {
  const size_t ns = static_cast<size_t>(ns_);
  for (int r : dyn_rows_)
    std::copy_n(S_.data() + static_cast<size_t>(r) * ns, ns, A_.data() + static_cast<size_t>(r) * ns);
  for (int r = 0; r < m_; ++r) {
    lo_[static_cast<size_t>(ns_ + r)] = row_lo0_[static_cast<size_t>(r)];
    up_[static_cast<size_t>(ns_ + r)] = row_up0_[static_cast<size_t>(r)];
  }
  obj_const_ = obj_const0_;
  double* ymc = ymc_.data();
  const double* c = xmap_->c.data();
  for (int j = 0; j < d_; ++j) ymc[j] = y[j] - c[j];
  compute_g(z, V);
  for (size_t u = 0; u < uterms_.size(); ++u) {
    const UTerm& t = uterms_[u];
    const double* vi = V.data() + static_cast<size_t>(t.i) * static_cast<size_t>(d_);  // row-major
    const double g = g_[static_cast<size_t>(t.i)];
    double* a = A_.data() + static_cast<size_t>(t.row) * ns;
    const double b = t.coef;
    // Pairs, two columns per step: a_k += (b a_k') v_j with the products b a_k' formed in setup(),
    // rounded as the scalar runs below.
    for (const XPair& pr : xpairs_) {
      double* ak = a + pr.k0;
      const double* ca = upair_.data() + u * xpair_a_.size() + static_cast<size_t>(pr.off);
      const double* vk = vi + pr.j0;
      const double* const vend = vk + pr.len;
#if defined(__SSE2__)
      for (const double* const vend4 = vk + (pr.len & ~3); vk != vend4; vk += 4, ca += 8, ak += 8) {
        const __m128d v = _mm_loadu_pd(vk), w = _mm_loadu_pd(vk + 2);
        const __m128d v0 = _mm_unpacklo_pd(v, v), v1 = _mm_unpackhi_pd(v, v);
        const __m128d w0 = _mm_unpacklo_pd(w, w), w1 = _mm_unpackhi_pd(w, w);
        _mm_storeu_pd(ak, _mm_add_pd(_mm_loadu_pd(ak), _mm_mul_pd(_mm_loadu_pd(ca), v0)));
        _mm_storeu_pd(ak + 2, _mm_add_pd(_mm_loadu_pd(ak + 2), _mm_mul_pd(_mm_loadu_pd(ca + 2), v1)));
        _mm_storeu_pd(ak + 4, _mm_add_pd(_mm_loadu_pd(ak + 4), _mm_mul_pd(_mm_loadu_pd(ca + 4), w0)));
        _mm_storeu_pd(ak + 6, _mm_add_pd(_mm_loadu_pd(ak + 6), _mm_mul_pd(_mm_loadu_pd(ca + 6), w1)));
      }
#endif
      for (; vk != vend; ++vk, ca += 2, ak += 2) {
        ak[0] += ca[0] * vk[0];
        ak[1] += ca[1] * vk[0];
      }
    }
    for (const XRun& run : xruns_) {
      double* ak = a + run.k0;
      const double* ra = xrun_a_.data() + run.off;
      const double* vk = vi + run.j0;
      const int st = run.stride;
      if (st == 1)
        for (int k = 0; k < run.len; ++k) ak[k] += b * ra[k] * vk[k];
      else
        for (int k = 0; k < run.len; ++k) ak[k * st] += b * ra[k] * vk[k];
    }
    if (t.row == m_) {
      obj_const_ += b * g;
    } else {
      // row: ... + b (g + W v) in [lo, up]  ->  S v + b W v in [lo - b g, up - b g]
      lo_[static_cast<size_t>(ns_ + t.row)] -= b * g;
      up_[static_cast<size_t>(ns_ + t.row)] -= b * g;
    }
  }
}

// Sets x_j from its status, fixing statuses that point at an infinite bound.
inline void DenseSimplexGlmo::place_nonbasic(int j) {
  const size_t k = static_cast<size_t>(j);
  signed char& s = stat_[k];
  if (s == kAtLower && std::isfinite(elo_[k])) {  // the common case
    x_[k] = elo_[k];
    return;
  }
  if (s == kAtLower && !std::isfinite(elo_[k])) s = std::isfinite(eup_[k]) ? kAtUpper : kAtZero;
  if (s == kAtUpper && !std::isfinite(eup_[k])) s = std::isfinite(elo_[k]) ? kAtLower : kAtZero;
  if (s == kAtZero && std::isfinite(elo_[k])) s = kAtLower;
  if (s == kAtZero && std::isfinite(eup_[k])) s = kAtUpper;
  x_[k] = s == kAtLower ? elo_[k] : s == kAtUpper ? eup_[k] : 0.0;
}

// Explicit inverse of the basis by Gauss-Jordan with partial pivoting (DenseInverse::
// factor_basis). Columns without an acceptable pivot (a singular basis) are replaced by the
// logicals of the rows left uncovered, and the inverse is computed again; returns false in that
// case.
bool DenseSimplexGlmo::factorize() {
  const size_t M = static_cast<size_t>(m_);
  const int done = inv_.factor_basis(
      [&](int k) {
        const int j = head_[static_cast<size_t>(k)];
        return is_logical(j) ? j - ns_ : -1;
      },
      [&](double* B, int k) {
        const int j = head_[static_cast<size_t>(k)];
        for (int r = 0; r < m_; ++r) B[static_cast<size_t>(r) * M + static_cast<size_t>(k)] = row(r)[j];
      },
      [&](int k, int r) {
        const size_t o = static_cast<size_t>(head_[static_cast<size_t>(k)]);
        const int in = ns_ + r;
        stat_[o] = kAtLower;
        if (std::isfinite(elo_[o]) && std::isfinite(eup_[o]) && std::abs(x_[o] - eup_[o]) < std::abs(x_[o] - elo_[o]))
          stat_[o] = kAtUpper;
        place_nonbasic(static_cast<int>(o));
        head_[static_cast<size_t>(k)] = in;
        stat_[static_cast<size_t>(in)] = kBasic;
      });
  if (done < 0) throw scfw::Error("dense_simplex: could not repair a singular basis");
  updates_ = 0;
  min_pivot_ratio_ = 1.0;
  return done == 0;
}

// out = Binv a_j.
void DenseSimplexGlmo::column(int j, double* out) const {
  if (is_logical(j))
    inv_.ftran_logical(j - ns_, out);
  else
    inv_.ftran(A_.data() + j, static_cast<size_t>(ns_), out);
}

// x_B = Binv (-sum_{nonbasic structural} a_j x_j + sum_{nonbasic logical} x_{s_r} e_r).
void DenseSimplexGlmo::compute_xb() {
  const size_t M = static_cast<size_t>(m_);
  std::fill(w_.begin(), w_.end(), 0.0);
  // Only nonbasic variables away from 0 contribute (most sit at a zero lower bound).
  const double* xv = x_.data();
  const signed char* st = stat_.data();
  const double* A = A_.data();
  double* w = w_.data();
  const size_t ns = static_cast<size_t>(ns_);
  for (size_t j = 0; j < ns; ++j) {
    const double xj = xv[j];
    if (xj == 0.0 || st[j] == kBasic) continue;
    for (size_t r = 0; r < M; ++r) w[r] -= A[r * ns + j] * xj;
  }
  for (size_t r = 0; r < M; ++r)
    if (stat_[static_cast<size_t>(ns_) + r] != kBasic) w_[r] += x_[static_cast<size_t>(ns_) + r];
  for (size_t i = 0; i < M; ++i) {
    const double* bi = inv_.row(static_cast<int>(i));
    double s = 0.0;
    for (size_t r = 0; r < M; ++r) s += bi[r] * w_[r];
    x_[static_cast<size_t>(head_[i])] = s;
  }
}

// y^T = c_B^T Binv; d_j = c_j - y^T a_j (structural), d_{s_r} = y_r (logical).
void DenseSimplexGlmo::compute_duals() {
  const size_t M = static_cast<size_t>(m_);
  const double* c = row(m_);
  std::fill(ydual_.begin(), ydual_.end(), 0.0);
  for (size_t i = 0; i < M; ++i) {
    const int h = head_[i];
    const double cb = is_logical(h) ? 0.0 : c[h];
    if (cb == 0.0) continue;
    const double* bi = inv_.row(static_cast<int>(i));
    for (size_t r = 0; r < M; ++r) ydual_[r] += cb * bi[r];
  }
  double* dj = dj_.data();
  std::copy_n(c, static_cast<size_t>(ns_), dj);
  // d_j -= y_r a_rj, as d_j + (-y_r) a_rj (the same bits).
  for (int r = 0; r < m_; ++r) rho_[static_cast<size_t>(r)] = -ydual_[static_cast<size_t>(r)];
  add_rows(rho_.data(), dj);
  for (int r = 0; r < m_; ++r) dj[ns_ + r] = ydual_[static_cast<size_t>(r)];
  for (size_t i = 0; i < M; ++i) dj[head_[i]] = 0.0;
}

// Moves each nonbasic variable to the bound its reduced cost asks for (boxed: a flip), or gives
// it an artificial bound there. Returns the number of nonbasic values changed.
int DenseSimplexGlmo::make_dual_feasible() {
  int changed = 0;
  const signed char* st = stat_.data();
  const double* dj = dj_.data();
  for (int j = 0; j < nt_; ++j) {
    const size_t k = static_cast<size_t>(j);
    // The common case first: basic, or at the bound d asks for (d_j within the tolerance of the
    // right sign); only the rest read the bounds.
    const signed char sk = st[k];
    const double dk = dj[k];
    if (sk == kBasic || (sk == kAtLower ? dk >= -kSet.dual_tol : sk == kAtUpper ? dk <= kSet.dual_tol
                                                                          : std::abs(dk) <= kSet.dual_tol))
      continue;
    if (lo_[k] == up_[k]) continue;  // fixed: any reduced cost is dual feasible
    const double old = x_[k];
    const double d = dj_[k];
    if (d > kSet.dual_tol && stat_[k] != kAtLower) {
      if (!std::isfinite(elo_[k])) art_.set(j, true);
      stat_[k] = kAtLower;
    } else if (d < -kSet.dual_tol && stat_[k] != kAtUpper) {
      if (!std::isfinite(eup_[k])) art_.set(j, false);
      stat_[k] = kAtUpper;
    } else {
      continue;
    }
    place_nonbasic(j);
    if (x_[k] != old) ++changed;
  }
  return changed;
}

// Nonbasic q sits at an artificial bound with a reduced cost asking to go further: if no basic variable
// with a real bound in its way moves, the current (feasible) point plus that direction is a ray
// along which the objective decreases without bound.
bool DenseSimplexGlmo::unbounded_ray(int q) {
  const size_t k = static_cast<size_t>(q);
  const double dir = stat_[k] == kAtUpper ? 1.0 : -1.0;
  if (dir * dj_[k] >= -kSet.dual_tol) return false;
  column(q, col_.data());
  for (int i = 0; i < m_; ++i) {
    const double dx = -col_[static_cast<size_t>(i)] * dir;
    if (std::abs(dx) <= kSet.pivot_tol) continue;
    const size_t h = static_cast<size_t>(head_[static_cast<size_t>(i)]);
    if (dx > 0.0 && std::isfinite(up_[h])) return false;
    if (dx < 0.0 && std::isfinite(lo_[h])) return false;
  }
  return true;
}

// The column access of the LP engine's dual driver (plugins/lp/bounded_dual.hpp): the dense rows,
// the explicit inverse, and the statuses kept beside the values.
struct DenseSimplexGlmo::DualColumns {
  DenseSimplexGlmo& g;
  // The verification policy's part (plugins/lp/verify.hpp). On a trusted inverse the reduced
  // costs are the ones the pivots updated (each d_j moved by an exact multiple of its pivot-row
  // entry, checked against the column); a fresh one recomputes them.
  bool refactor() {
    g.factorize();
    for (int j = 0; j < g.nt_; ++j)
      if (g.stat_[static_cast<size_t>(j)] != kBasic) g.place_nonbasic(j);
    return true;
  }
  int updates() const { return g.updates_; }
  bool well_conditioned() const { return g.min_pivot_ratio_ >= kSet.update_pivot_ratio; }
  int recompute(bool fresh) {
    if (fresh) g.compute_duals();
    const int moved = g.make_dual_feasible();
    g.compute_xb();
    return moved;
  }
  bool basic(int j) const { return g.stat_[static_cast<size_t>(j)] == kBasic; }
  int vars() const { return g.nt_; }
  int movable_count() const { return g.nt_; }
  int movable(int i) const { return i; }
  // The statuses are numbered as lp::Side (kBasic is kSkip).
  lp::Side side(int j) const { return static_cast<lp::Side>(g.stat_[static_cast<size_t>(j)]); }
  // The squared norm of row i of the explicit inverse.
  double weight(int i) const {
    const double* bi = g.inv_.row(i);
    double w = 0.0;
    for (int c = 0; c < g.m_; ++c) w += bi[c] * bi[c];
    return w;
  }
  const double* pivot_row(int r) {
    g.compute_pivot_row(r);
    return g.alpha_.data();
  }
  void column(int q, double* out) const { g.column(q, out); }
  void add_column(int j, double dx, double* w) const {
    if (g.is_logical(j))
      w[j - g.ns_] -= dx;
    else
      for (int i = 0; i < g.m_; ++i) w[i] += g.row(i)[j] * dx;
  }
  void ftran(const double* w, double* out) const { g.inv_.ftran(w, 1, out); }
  void moved(int j) const {
    signed char& st = g.stat_[static_cast<size_t>(j)];
    st = st == kAtLower ? kAtUpper : kAtLower;
  }
  bool basis_change(int r, int p, int q, const double* col) {
    const size_t pk = static_cast<size_t>(p);
    g.stat_[pk] = g.x_[pk] == g.elo_[pk] ? kAtLower : kAtUpper;
    g.stat_[static_cast<size_t>(q)] = kBasic;
    double cmax = 0.0;
    for (int i = 0; i < g.m_; ++i) cmax = std::max(cmax, std::abs(col[i]));
    g.min_pivot_ratio_ = std::min(g.min_pivot_ratio_, std::abs(col[r]) / cmax);
    g.inv_.update(col, r);
    return ++g.updates_ < kSet.refactor_every;
  }
};

// out_j += sum_i coef_i a_ij (structural j) over the rows with coef_i != 0 in order, two rows
// per pass: each out_j one fixed order of operations.
void DenseSimplexGlmo::add_rows(const double* coef, double* out) {
  int nz = 0;
  for (int i = 0; i < m_; ++i)
    if (coef[i] != 0.0) nz_[static_cast<size_t>(nz++)] = i;
  int e = 0;
  for (; e + 2 <= nz; e += 2) {
    const int i0 = nz_[static_cast<size_t>(e)], i1 = nz_[static_cast<size_t>(e) + 1];
    const double c0 = coef[i0], c1 = coef[i1];
    const double *a0 = row(i0), *a1 = row(i1);
    for (int j = 0; j < ns_; ++j) out[j] = (out[j] + c0 * a0[j]) + c1 * a1[j];
  }
  if (e < nz) {
    const int i = nz_[static_cast<size_t>(e)];
    const double ci = coef[i];
    const double* a = row(i);
    for (int j = 0; j < ns_; ++j) out[j] += ci * a[j];
  }
}

// The pivot row: alpha_j = rho^T a_j, rho = row r of Binv.
void DenseSimplexGlmo::compute_pivot_row(int r) {
  std::copy_n(inv_.row(r), static_cast<size_t>(m_), rho_.data());
  double* alpha = alpha_.data();
  std::fill_n(alpha, static_cast<size_t>(ns_), 0.0);
  add_rows(rho_.data(), alpha);
  for (int i = 0; i < m_; ++i) alpha[ns_ + i] = -rho_[static_cast<size_t>(i)];
}

scfw::GlmoResult DenseSimplexGlmo::solve(const scfw::Vec& z, const scfw::Jacobian& Vj,
                                         const scfw::Vec& y, scfw::Vec& x) {
  // A small LP's dense solver: a sparse V is densified by the host (it does not declare Capability::SparseV).
  const scfw::Mat& V = Vj.dense();
  if (m_ == 0 && ns_ == 0) throw scfw::Error("dense_simplex: solve() called before setup()");
  fb_.begin_solve(z, V, y, n_, d_);
  build(z, V, y);
  // Artificial bounds start from scratch at every solve: the basis is kept, they are not.
  std::copy(lo_.begin(), lo_.end(), elo_.begin());
  std::copy(up_.begin(), up_.end(), eup_.begin());
  art_.start(kSet.artificial_bound * bound_scale_);

  long pivots = 0;
  if (!run_rounds(pivots)) {  // the last resort; the kept basis restarts from the slack basis
    reset_basis();
    return fb_.solve(z, V, y, x, pivots);
  }

  scfw::GlmoResult result;
  if (x.size() != d_) x.resize(d_);
  for (int j = 0; j < d_; ++j) x[j] = xmap_->c[static_cast<size_t>(j)];
  for (const XTerm& t : xterms_) x[t.j] += t.a * x_[static_cast<size_t>(t.col)];
  double value = obj_const_;
  const double* c = row(m_);
  for (int j = 0; j < ns_; ++j) value += c[j] * x_[static_cast<size_t>(j)];
  result.value = value;
  result.lower_bound = value;
  result.iterations = pivots;
  fb_.accept(value, z, V, y);
  return result;
}

// The engine's dual driver under its verification policy (plugins/lp/verify.hpp) until a
// verified optimum: true; false when the solve must fall back to Clp (pivot limit, artificial
// bounds that keep binding, no verified optimum). An artificial bound that binds, or that a row
// without an entering variable involves, grows x100 and the driver starts again from a fresh
// factorization. Throws when the LP is infeasible or unbounded.
bool DenseSimplexGlmo::run_rounds(long& pivots) {
  const long max_pivots = 50L * (m_ + nt_) + 1000;
  DualColumns cols{*this};
  const lp::DualBasisView view{m_, head_.data(), x_.data(), dj_.data(), elo_.data(), eup_.data()};
  for (;;) {
    switch (lp::verified_dual(dual_, cols, view, kSet, max_pivots, pivots, &art_)) {
      case lp::Verified::kOptimal:
        return true;
      case lp::Verified::kNoEntering:
        throw scfw::Error(lp::infeasible_lp_message("dense_simplex", "the GLMO LP"));
      case lp::Verified::kArtificialRow:
        break;
      case lp::Verified::kBinding:
        // A nonbasic variable at an artificial bound whose direction no real bound blocks: the
        // LP is unbounded.
        for (int j = 0; j < nt_; ++j) {
          const size_t k = static_cast<size_t>(j);
          if ((stat_[k] == kAtLower && art_.lower(j)) || (stat_[k] == kAtUpper && art_.upper(j)))
            if (unbounded_ray(j)) throw scfw::Error("dense_simplex: the GLMO LP is unbounded");
        }
        break;
      default:
        return false;
    }
    if (!art_.escalate(kSet)) return false;
  }
}

void register_components(scfw::Registrar& r) {
  r.add<DenseSimplexGlmo>(
      "dense_simplex",
      "x = argmin_{x in X} F(z + V (x - y), x) as one small dense LP (the u variables "
      "substituted out), solved exactly by a bounded dual simplex that keeps its basis from one "
      "solve to the next (Alg. 1 line 7)",
      {scfw::ParamSpec::integer("max_rows",
                                "refuse LPs with more rows than this (the dense basis inverse "
                                "costs m^2 per pivot and m^3 per solve)")
           .range(1, 1 << 20)
           .def(std::int64_t{100}),
       scfw::ParamSpec::integer("max_columns",
                                "refuse LPs with more columns than this (dense pricing touches every "
                                "column at every pivot; Clp is faster on wide LPs)")
           .range(1, 1 << 30)
           .def(std::int64_t{1500}),
       scfw::ParamSpec::boolean("cross_check",
                                "also solve every LP with Clp and stop at the first disagreement above 1e-9 of the "
                                "size of the terms its value sums (debugging; slow)")
           .def(false)},
      scfw::Preference{.rank = 30,
                       .reason = "the GLMO LP is small enough for the dense simplex that keeps its basis "
                                 "between iterations"});
}

}  // namespace

SCFW_PLUGIN("dense_simplex", SCFW_PLUGIN_VERSION, register_components)
