// GLMO `scenario_dual`: x_{k+1} in argmin_{x in X} F(z_k + V_k (x - y_k), x)  (paper, Alg. 1
// line 7) for the many-row LPs of scenario outer functions (Rockafellar-Uryasev CVaR, penalties,
// DRO over many outputs): N rows, one per scenario, against D structural columns, solved exactly
// through the LP's dual and kept warm across solves (docs/design.md, "The LP engine").
//
// The primal: the model every GLMO builds (plugins/lp/glmo_lp.hpp) with u substituted out,
//     min c^T v + c0   s.t.  L_r <= a_r^T v <= U_r  (r = 1..N),   l <= v <= u.
// A column outside x that appears in one row only with one finite bound is a *singleton* (CVaR's
// s_g >= u_g - y0, s_g >= 0) and becomes a bound on its row's multiplier; x's variables are the D
// structural columns. The dual (a minimization, the sign flipped):
//     min  -( sum_t b_t lambda_t + sum_q (l_q rho+_q + u_q rho-_q) )
//     s.t. sum_t a_{r(t), q} lambda_t + rho+_q + rho-_q = c_q        (q = 1..D)
// with one multiplier lambda_t per row side (>= 0 for a lower bound, <= 0 for an upper one, free
// for an equality), b_t its bound tightened by the row's singletons, and two unit columns per
// structural column, rho+_q >= 0 and rho-_q <= 0, fixed at 0 where that bound is infinite: D rows,
// N + 2 D columns (Task 2 at 200 groups: 51 x 303 against the primal's 201 x 251). v = -pi at the
// dual's optimum and the optimal values are equal, so value and x are exact.
//
// The basis [I_S | D] is mostly unit columns; only D_R (k x k, k the structural columns strictly
// inside their bounds) is factorized, B^{-1} = [[I, -D_S D_R^{-1}], [0, D_R^{-1}]].
//
// Allocation: solve() allocates nothing on its normal path (every buffer is sized in setup()).
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <Eigen/Core>
#include <immintrin.h>

#include "cold_clp.hpp"
#include "bounded_dual.hpp"
#include "factorization.hpp"
#include "glmo_lp.hpp"
#include "pivot_row.hpp"
#include "bounded_primal.hpp"
#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace {

namespace lp = scfw::lp;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr lp::Settings kSet = lp::kScenarioDualSettings;  // tolerances and intervals

// The dense kernels of the dual simplex, in two builds: the baseline one (SSE2), the default, and
// one for CPUs with AVX2 and FMA, used only with "kernels": "native" when __builtin_cpu_supports
// says so. The AVX2 build fuses the multiply-adds, so the last bits of B^{-1}, and of x at a tie,
// depend on the CPU: the optimal values agree to the tolerances either way, but a trace would no
// longer be bitwise the same on every machine, nor every rank of an MPI run over different CPUs
// the same GLMO answer. Hence portable by default.
namespace kern {
// y += f x, element by element (the same bits however it is vectorized or unrolled). Inlined
// where it is called on the portable path: a call through the function pointer below costs more
// than a short update.
inline void axpy_inline(size_t n, double f, const double* __restrict x, double* __restrict y) {
#pragma GCC unroll 4
  for (size_t i = 0; i < n; ++i) y[i] += f * x[i];
}
// w = sum_t X_t * X_t (element by element, t in increasing order, from +0), by chunks of w held
// in SSE2 registers (x86-64's baseline; each lane is one IEEE multiply and one add: the bits of
// the element-by-element sum).
template <int P>  // P packets of two doubles
inline void squares_chunk(size_t i0, int m, const double* const* X, double* w) {
  __m128d acc[P];
  for (int b = 0; b < P; ++b) acc[b] = _mm_setzero_pd();
  for (int t = 0; t < m; ++t) {
    const double* x = X[t] + i0;
    for (int b = 0; b < P; ++b) {
      const __m128d v = _mm_loadu_pd(x + 2 * b);
      acc[b] = _mm_add_pd(acc[b], _mm_mul_pd(v, v));
    }
  }
  for (int b = 0; b < P; ++b) _mm_storeu_pd(w + i0 + 2 * static_cast<size_t>(b), acc[b]);
}
// y = sum_t f_t X_t (element by element, t in increasing order, from +0: the bits of m axpys into
// a zeroed y), by chunks of y held in SSE2 registers.
template <int P>
inline void combine_chunk(size_t i0, int m, const double* f, const double* const* X, double* y) {
  __m128d acc[P];
  for (int b = 0; b < P; ++b) acc[b] = _mm_setzero_pd();
  for (int t = 0; t < m; ++t) {
    const double* x = X[t] + i0;
    const __m128d ft = _mm_set1_pd(f[t]);
    for (int b = 0; b < P; ++b) acc[b] = _mm_add_pd(acc[b], _mm_mul_pd(ft, _mm_loadu_pd(x + 2 * b)));
  }
  for (int b = 0; b < P; ++b) _mm_storeu_pd(y + i0 + 2 * static_cast<size_t>(b), acc[b]);
}
inline void combine(size_t n, int m, const double* f, const double* const* X, double* y) {
  size_t i0 = 0;
  for (; i0 + 16 <= n; i0 += 16) combine_chunk<8>(i0, m, f, X, y);
  if (i0 + 8 <= n) {
    combine_chunk<4>(i0, m, f, X, y);
    i0 += 8;
  }
  if (i0 + 4 <= n) {
    combine_chunk<2>(i0, m, f, X, y);
    i0 += 4;
  }
  if (i0 + 2 <= n) {
    combine_chunk<1>(i0, m, f, X, y);
    i0 += 2;
  }
  for (; i0 < n; ++i0) {
    double a = 0.0;
    for (int t = 0; t < m; ++t) a += f[t] * X[t][i0];
    y[i0] = a;
  }
}
inline void sum_squares(size_t n, int m, const double* const* X, double* w) {
  size_t i0 = 0;
  for (; i0 + 16 <= n; i0 += 16) squares_chunk<8>(i0, m, X, w);
  if (i0 + 8 <= n) {
    squares_chunk<4>(i0, m, X, w);
    i0 += 8;
  }
  if (i0 + 4 <= n) {
    squares_chunk<2>(i0, m, X, w);
    i0 += 4;
  }
  if (i0 + 2 <= n) {
    squares_chunk<1>(i0, m, X, w);
    i0 += 2;
  }
  for (; i0 < n; ++i0) {
    double a = 0.0;
    for (int t = 0; t < m; ++t) a += X[t][i0] * X[t][i0];
    w[i0] = a;
  }
}
void axpy_base(size_t n, double f, const double* __restrict x, double* __restrict y) { axpy_inline(n, f, x, y); }
__attribute__((target("avx2,fma"))) void axpy_avx2(size_t n, double f, const double* __restrict x,
                                                   double* __restrict y) {
  for (size_t i = 0; i < n; ++i) y[i] += f * x[i];
}
// out = A x, A rows x cols row-major.
void gemv_base(int rows, int cols, const double* A, const double* x, double* out) {
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> M(A, rows, cols);
  const Eigen::Map<const Eigen::VectorXd> v(x, cols);
  Eigen::Map<Eigen::VectorXd> o(out, rows);
  o.noalias() = M * v;
}
__attribute__((target("avx2,fma"))) void gemv_avx2(int rows, int cols, const double* A, const double* x, double* out) {
  const size_t C = static_cast<size_t>(cols);
  const long rem = static_cast<long>(C % 4);  // the last C % 4 entries, by a masked load
  const __m256i tail = _mm256_set_epi64x(rem > 3 ? -1 : 0, rem > 2 ? -1 : 0, rem > 1 ? -1 : 0, rem > 0 ? -1 : 0);
  for (int i = 0; i < rows; ++i) {
    const double* a = A + static_cast<size_t>(i) * C;
    __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
    size_t j = 0;
    for (; j + 8 <= C; j += 8) {
      s0 = _mm256_fmadd_pd(_mm256_loadu_pd(a + j), _mm256_loadu_pd(x + j), s0);
      s1 = _mm256_fmadd_pd(_mm256_loadu_pd(a + j + 4), _mm256_loadu_pd(x + j + 4), s1);
    }
    if (j + 4 <= C) {
      s0 = _mm256_fmadd_pd(_mm256_loadu_pd(a + j), _mm256_loadu_pd(x + j), s0);
      j += 4;
    }
    if (j < C) s1 = _mm256_fmadd_pd(_mm256_maskload_pd(a + j, tail), _mm256_maskload_pd(x + j, tail), s1);
    s0 = _mm256_add_pd(s0, s1);
    const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s0), _mm256_extractf128_pd(s0, 1));
    out[i] = _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
  }
}
struct Kernels {
  void (*axpy)(size_t, double, const double*, double*) = axpy_base;
  void (*gemv)(int, int, const double*, const double*, double*) = gemv_base;
  bool fused = false;  // the AVX2 + FMA build
};
Kernels pick(bool native) {
  Kernels k;
  if (!native) return k;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    k.axpy = axpy_avx2;
    k.gemv = gemv_avx2;
    k.fused = true;
  }
  return k;
}
}  // namespace kern

using lp::bound_tol;

// The dual's structure, read off the GLMO model: what supports() asks and setup() builds from.
struct DualShape {
  int rows = 0;           // N: primal rows kept (all of them)
  int structural = 0;     // D: the dual's rows
  int multipliers = 0;    // lambda columns
  int singletons = 0;
  std::string problem;    // non-empty: why the dual cannot be built
  std::vector<int> q_of;  // primal column (elimination numbering) -> dual row, -1: singleton
  // Per lambda column: its primal row, which bound it prices (0: L, 1: U), static bounds and the
  // singleton terms folded into its cost.
  std::vector<int> lam_row;
  std::vector<signed char> lam_side;
  std::vector<double> lam_lo, lam_up, lam_adj;
  double constant = 0.0;  // sum of l c_s over the singletons
};

DualShape analyze(const lp::SparseLp& lp, const lp::UElimination& elim, const std::vector<int>& u_var,
                  const lp::XByVariable& xvar) {
  DualShape s;
  s.rows = elim.rows;
  if (!elim.u_free) {
    s.problem = "the u variables are bounded";
    return s;
  }
  std::vector<char> in_x(static_cast<size_t>(lp.num_vars), 0);
  for (int v : xvar.var) in_x[static_cast<size_t>(v)] = 1;
  for (int v : u_var) in_x[static_cast<size_t>(v)] = 2;  // not a column of the eliminated LP
  // Row sides: each row's lambda columns.
  std::vector<int> first_lam(static_cast<size_t>(lp.num_rows), -1), nlam(static_cast<size_t>(lp.num_rows), 0);
  for (int r = 0; r < lp.num_rows; ++r) {
    const double L = lp.row_lo[static_cast<size_t>(r)], U = lp.row_up[static_cast<size_t>(r)];
    first_lam[static_cast<size_t>(r)] = static_cast<int>(s.lam_row.size());
    auto add = [&](signed char side, double lo, double up) {
      s.lam_row.push_back(r);
      s.lam_side.push_back(side);
      s.lam_lo.push_back(lo);
      s.lam_up.push_back(up);
      s.lam_adj.push_back(0.0);
      ++nlam[static_cast<size_t>(r)];
    };
    if (std::isfinite(L) && L == U) {
      add(0, -kInf, kInf);
    } else {
      if (std::isfinite(L)) add(0, 0.0, kInf);
      if (std::isfinite(U)) add(1, -kInf, 0.0);
    }
  }
  s.q_of.assign(static_cast<size_t>(elim.columns), -1);
  for (int v = 0; v < lp.num_vars; ++v) {
    const int col = elim.col_of[static_cast<size_t>(v)];
    if (col < 0) continue;
    const auto& entries = lp.cols[static_cast<size_t>(v)];
    const double l = lp.col_lo[static_cast<size_t>(v)], u = lp.col_up[static_cast<size_t>(v)];
    const bool one_bound = std::isfinite(l) != std::isfinite(u);
    if (!in_x[static_cast<size_t>(v)] && entries.size() == 1 && one_bound && entries[0].second != 0.0 &&
        nlam[static_cast<size_t>(entries[0].first)] == 1) {
      // A singleton: a lambda + rho = c_s with rho >= 0 (l finite) or rho <= 0 (u finite).
      const int t = first_lam[static_cast<size_t>(entries[0].first)];
      const double a = entries[0].second, cs = lp.cost[static_cast<size_t>(v)];
      const double bound = std::isfinite(l) ? l : u;
      const bool le = std::isfinite(l);  // a lambda <= c_s, else a lambda >= c_s
      const double lim = cs / a;
      if ((a > 0.0) == le)
        s.lam_up[static_cast<size_t>(t)] = std::min(s.lam_up[static_cast<size_t>(t)], lim);
      else
        s.lam_lo[static_cast<size_t>(t)] = std::max(s.lam_lo[static_cast<size_t>(t)], lim);
      s.lam_adj[static_cast<size_t>(t)] -= bound * a;
      s.constant += bound * cs;
      ++s.singletons;
      continue;
    }
    s.q_of[static_cast<size_t>(col)] = s.structural++;
  }
  s.multipliers = static_cast<int>(s.lam_row.size());
  for (int t = 0; t < s.multipliers; ++t)
    if (s.lam_lo[static_cast<size_t>(t)] > s.lam_up[static_cast<size_t>(t)]) {
      s.problem = "the dual LP is infeasible (the GLMO LP is unbounded or infeasible for every z, V)";
      return s;
    }
  return s;
}

class ScenarioDualGlmo final : public scfw::Glmo {
 public:
  ScenarioDualGlmo(const scfw::Params& p, const scfw::Context& ctx)
      : fb_("scenario_dual", p.get<bool>("cross_check")), memory_(ctx.memory) {
    max_structural_ = p.get<int>("max_structural");
    min_row_ratio_ = p.get<double>("min_row_ratio");
    primal_only_ = p.get<std::string>("algorithm") == "primal";
    native_kernels_ = p.get<std::string>("kernels") == "native";
  }

  bool supports(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d,
                std::string* why) const override;
  void setup(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d) override;
  scfw::GlmoResult solve(const scfw::Vec& z, const scfw::Jacobian& Vj, const scfw::Vec& y, scfw::Vec& x) override;

  // The warm state (checkpoints): the basis (the unit column of each dual row, the basic
  // multipliers in their order, which fixes the pivoting of D_R) and the values of the nonbasic
  // columns; everything else is rebuilt by the next solve, so a resumed run is bitwise the same.
  scfw::Capabilities capabilities() const override { return scfw::Capability::SavedState; }
  void save_state(scfw::StateWriter& w) const override {
    w.put("unit_at", unit_at_);
    w.put("dense", std::vector<int>(dense_.begin(), dense_.begin() + k_));
    w.put("values", xv_);
    fb_.save(w);
    w.put("primal_finished", static_cast<std::int64_t>(primal_finished_));
  }
  void load_state(scfw::StateReader& r) override {
    r.get_same_size("unit_at", unit_at_);
    std::vector<int> dense;
    r.get("dense", dense);
    // The same checks a basis from the simplex passes: every dual row covered once.
    int uncovered = 0;
    for (int q = 0; q < D_; ++q) {
      const int j = unit_at_[static_cast<size_t>(q)];
      if (j < -1 || j >= 2 * D_ || (j >= 0 && unit_row(j) != q))
        r.refuse("unit_at", "the saved basis does not fit this LP (unit column of dual row " + std::to_string(q) + ")");
      if (j < 0) ++uncovered;
    }
    if (static_cast<int>(dense.size()) != uncovered)
      r.refuse("dense", "the saved basis does not fit this LP (" + std::to_string(dense.size()) +
                            " basic multipliers for " + std::to_string(uncovered) + " uncovered dual rows)");
    std::fill(pos_.begin(), pos_.end(), -1);
    for (int q = 0; q < D_; ++q)
      if (unit_at_[static_cast<size_t>(q)] >= 0) pos_[static_cast<size_t>(unit_at_[static_cast<size_t>(q)])] = q;
    k_ = uncovered;
    for (int t = 0; t < k_; ++t) {
      const int j = dense[static_cast<size_t>(t)];
      if (j < 2 * D_ || j >= nv_ || pos_[static_cast<size_t>(j)] >= 0)
        r.refuse("dense", "the saved basis does not fit this LP (basic multiplier " + std::to_string(j) + ")");
      dense_[static_cast<size_t>(t)] = j;
      pos_[static_cast<size_t>(j)] = 0;  // its slot is set by the next factorization
    }
    r.get_same_size("values", xv_);
    r.check_finite("values", xv_);
    fb_.load(r);
    primal_finished_ = fb_.load_count(r, "primal_finished");
  }

  std::string describe() const override {
    std::string s = primal_only_ ? "scenario_dual (primal simplex on the dual LP, kept basis; "
                                 : "scenario_dual (dual simplex on the dual LP with bound flipping, kept basis, explicit inverse; ";
    if (D_ == 0) return s + "not set up)";
    s += "dual LP " + std::to_string(D_) + " rows x " + std::to_string(nv_) + " columns for a primal of " +
         std::to_string(N_) + " rows";
    if (kern_.fused) s += "; AVX2 + FMA kernels";
    const bool by_primal = primal_finished_ > 0 && !primal_only_;
    return s + fb_.notes(by_primal ? "; " + std::to_string(primal_finished_) + " of " + std::to_string(fb_.solves()) +
                                         " solve(s) finished by the primal simplex"
                                   : "") + ")";
  }

 private:
  // Why not, or "" (the same words for supports() and setup()).
  std::string decline_reason(const DualShape& s) const;
  void build(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y);
  // The simplex on the dual.
  // y += f x: the AVX2 kernel when picked, else the portable loop inlined.
  void axpy(size_t n, double f, const double* x, double* y) const {
    if (kern_.fused)
      kern_.axpy(n, f, x, y);
    else
      kern::axpy_inline(n, f, x, y);
  }
  bool is_unit(int j) const { return j < 2 * D_; }
  int unit_row(int j) const { return j < D_ ? j : j - D_; }
  const double* lam_col(int j) const {
    return P_.data() + static_cast<size_t>(lam_row_[static_cast<size_t>(j - 2 * D_)]) * static_cast<size_t>(D_);
  }
  void assign_slots();
  void factor();
  void ftran(int j);          // alpha_ = B^{-1} M_j, by slot (= dual row)
  void btran(const double* cb);  // pi_ from the basic costs by slot
  void basic_rhs();
  void recompute_basics();
  bool set_basic_costs();
  void price(bool phase1);
  lp::PrimalBasisView basis_view() { return {D_, head_.data(), xv_.data(), lo_.data(), up_.data()}; }
  void pivot(int leave_slot, int q);
  bool primal_feasible() const;
  double dual_value() const;
  enum class Outcome { kOptimal, kInfeasible, kUnbounded, kFailed };
  Outcome run(long& pivots);
  struct PrimalColumns;
  // The dual simplex on the dual LP (scenario_dual_dual.inc): the explicit inverse of the whole
  // basis, rank-one updates, dual steepest-edge pricing, bound-flipping ratio test.
  bool refactor();
  bool build_binv();
  void price_binv();
  void ftran_binv(const double* a, double* out) const;
  void dse_weights();
  void recompute_xb();
  int place_nonbasics();
  bool drop_artificial_bounds();
  Outcome run_dual(long& pivots);
  struct DualColumns;

  lp::Fallback fb_;  // cross_check and the last-resort fallback
  int max_structural_ = 256;
  scfw::Memory memory_;  // the run's account, charged in setup()
  double min_row_ratio_ = 2.0;
  bool native_kernels_ = false;  // "kernels": "native": AVX2 + FMA when the CPU has them
  bool primal_only_ = false;  // "algorithm": "primal": the fallback's primal simplex for every solve

  int n_ = 0, d_ = 0;
  int N_ = 0, D_ = 0, nl_ = 0, nv_ = 0;  // primal rows, dual rows, multipliers, dual columns

  // Static data.
  std::vector<double> S_;          // N x D static coefficients of the primal rows on the structural columns
  std::vector<double> cost0_;      // D: static primal costs of the structural columns
  std::vector<double> row_lo0_, row_up0_;
  std::vector<int> lam_row_;
  std::vector<signed char> lam_side_;
  std::vector<double> lo_, up_;    // dual column bounds
  std::vector<double> lam_adj_;
  std::vector<double> unit_cost_;  // 2D: -l_q, -u_q (0 where infinite)
  double constant0_ = 0.0;         // objective constant + singleton constants
  struct XTerm {
    int q;     // dual row (structural column)
    int j;     // coordinate of x
    double a;  // x_j += a v_q
  };
  std::vector<XTerm> xterms_;
  std::vector<double> xc_;         // x_j constants
  using UTerm = lp::UElimination::UTerm;
  std::vector<UTerm> uterms_;      // row N: the objective

  // Per solve data.
  bool x_identity_ = false;        // x_j = v_j (structural column j) for every j: W_i = V_i
  bool lam_identity_ = false;      // multiplier t prices primal row t, for every t (one per row)
  Eigen::VectorXd ymc_, g_, W_;    // y - c, g, one row of W over the structural columns
  std::vector<double> P_;          // N x D current coefficients
  std::vector<double> PT_;         // D x pt_stride(N) (+ 16): P transposed, for the pivot row (portable)
  std::vector<const double*> lane_col_;  // D: the columns of PT with rho_j != 0 (pivot_row.hpp)
  std::vector<double> lane_x_;           // D: those rho_j
  std::vector<double> dse_w_;            // D: ||e_s^T B^{-1}||^2 by slot (dse_weights())
  std::vector<const double*> binv_cols_;  // D: the columns of B^{-1}
  mutable std::vector<double> ftran_f_;   // D: ftran_binv()'s terms
  mutable std::vector<const double*> ftran_x_;
  std::vector<double> shift_;      // N: row bounds move by -shift
  std::vector<double> b_;          // D: the dual's right-hand side (primal costs)
  std::vector<double> cost_;       // nv: the dual's costs
  double constant_ = 0.0;

  // Simplex state: the basis is the set of basic variables; slots are the dual rows.
  std::vector<double> xv_;         // nv values
  std::vector<int> pos_;           // nv: slot if basic, -1
  std::vector<int> head_;          // D: variable in slot
  std::vector<int> unit_at_;       // D: basic unit column of row q, -1
  std::vector<int> dense_;         // basic multipliers (k of them)
  std::vector<int> rrows_;         // rows not covered by a unit (k of them), ascending
  int k_ = 0;
  lp::UnitBlockLU unit_lu_;        // the primal simplex's factorization: LU of D_R
  std::vector<double> lu_;         // k x k, row-major: the dual simplex's D_R^{-1}
  std::vector<int> perm_;
  std::vector<double> wk_;         // k
  std::vector<double> alpha_, pi_, cb_, rhs_;  // D
  Eigen::VectorXd lam_price_;      // N: P pi
  std::vector<double> dj_;         // nv reduced costs (nonbasic)
  std::vector<double> vals_;       // model variable values (x map)
  // The dual simplex's buffers.
  std::vector<double> binv_;       // D x D: B^{-1} by column (column q: dual row q, entries by slot)
  kern::Kernels kern_;
  std::vector<double> arow_;       // nv: the pivot row e_r^T B^{-1} M_j
  Eigen::VectorXd lam_alpha_;      // N: P rho
  lp::BoundedDual dual_;           // the engine's dual driver and its work arrays
  long dual_finished_ = 0, primal_finished_ = 0;
  std::vector<double> static_lo_, static_up_;  // nv: the dual column bounds (lo_, up_ carry artificial ones)
  lp::ArtificialBounds art_;       // on lo_, up_ (static_lo_, static_up_ the real bounds)
  std::vector<int> nb_, nb_pos_;    // the nonbasic columns that are not fixed, and where each is in nb_
  int nnb_ = 0;

  // The model's LP and x map (setup).
  lp::SparseLp lp_;
  std::unique_ptr<lp::XMap> xmap_;
};

std::string ScenarioDualGlmo::decline_reason(const DualShape& s) const {
  if (!s.problem.empty()) return "scenario_dual: " + s.problem;
  if (static_cast<double>(s.rows) < min_row_ratio_ * static_cast<double>(s.structural))
    return "scenario_dual: the GLMO LP has " + std::to_string(s.rows) + " rows for " + std::to_string(s.structural) +
           " structural columns, fewer than min_row_ratio = " + scfw::format_number(min_row_ratio_) +
           " times as many (its dual would not be smaller)";
  if (s.structural > max_structural_)
    return "scenario_dual: the dual LP has " + std::to_string(s.structural) + " rows, more than max_structural = " +
           std::to_string(max_structural_);
  return {};
}

bool ScenarioDualGlmo::supports(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d,
                                std::string* why) const {
  auto decline = [why](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  if (!domain.capabilities().has(scfw::Capability::LpModel))
    return decline("scenario_dual: the domain has no LP model (it is known only through its LMO); the "
                   "scenario_dual GLMO needs the domain's model");
  lp::GlmoModel g = lp::build_model("scenario_dual", outer, domain, n, d);
  if (!g.model.cones().empty())
    return decline("scenario_dual: the model has second-order cones, which this LP solver does not handle; "
                   "use the clp GLMO");
  const lp::SparseLp sl = lp::SparseLp::from_model(g.model, g.objective);
  const lp::UElimination elim(sl, g.u_var, {});
  const lp::XMap xmap(g.xs);
  const lp::XByVariable xvar(xmap, sl.num_vars);
  const std::string reason = decline_reason(analyze(sl, elim, g.u_var, xvar));
  if (!reason.empty()) return decline(reason);
  return true;
}

void ScenarioDualGlmo::setup(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d) {
  lp::GlmoModel g = lp::build_model("scenario_dual", outer, domain, n, d);
  if (!g.model.cones().empty())
    throw scfw::CapabilityError(
        "scenario_dual: the model has second-order cones, which this LP solver does not handle; use the clp GLMO");
  std::int64_t rows = 0;
  const std::uint64_t bytes = scfw::glmo_lp_bytes(domain, n, &rows);
  memory_.reserve(bytes, "scenario_dual's LP (" + std::to_string(rows) + " rows)");
  n_ = n;
  d_ = d;
  lp_ = lp::SparseLp::from_model(g.model, g.objective);
  const lp::UElimination elim(lp_, g.u_var, {});
  fb_.setup(g);
  xmap_ = std::make_unique<lp::XMap>(std::move(g.xs));
  const lp::XByVariable xvar(*xmap_, lp_.num_vars);
  DualShape s = analyze(lp_, elim, g.u_var, xvar);
  const std::string reason = decline_reason(s);
  if (!reason.empty()) throw scfw::CapabilityError(reason);

  N_ = s.rows;
  D_ = s.structural;
  nl_ = s.multipliers;
  nv_ = 2 * D_ + nl_;
  // Static rows and costs over the structural columns.
  S_.assign(static_cast<size_t>(N_) * static_cast<size_t>(D_), 0.0);
  cost0_.assign(static_cast<size_t>(D_), 0.0);
  lo_.assign(static_cast<size_t>(nv_), 0.0);
  up_.assign(static_cast<size_t>(nv_), 0.0);
  unit_cost_.assign(static_cast<size_t>(2 * D_), 0.0);
  std::vector<int> q_of_var(static_cast<size_t>(lp_.num_vars), -1);
  for (int v = 0; v < lp_.num_vars; ++v) {
    const int col = elim.col_of[static_cast<size_t>(v)];
    if (col < 0) continue;
    const int q = s.q_of[static_cast<size_t>(col)];
    if (q < 0) continue;
    q_of_var[static_cast<size_t>(v)] = q;
    for (const auto& [r, a] : lp_.cols[static_cast<size_t>(v)])
      S_[static_cast<size_t>(r) * static_cast<size_t>(D_) + static_cast<size_t>(q)] += a;
    cost0_[static_cast<size_t>(q)] = lp_.cost[static_cast<size_t>(v)];
    const double l = lp_.col_lo[static_cast<size_t>(v)], u = lp_.col_up[static_cast<size_t>(v)];
    if (std::isfinite(l)) {
      up_[static_cast<size_t>(q)] = kInf;  // rho+ >= 0
      unit_cost_[static_cast<size_t>(q)] = -l;
    }
    if (std::isfinite(u)) {
      lo_[static_cast<size_t>(D_ + q)] = -kInf;  // rho- <= 0
      unit_cost_[static_cast<size_t>(D_ + q)] = -u;
    }
  }
  lam_row_ = s.lam_row;
  lam_side_ = s.lam_side;
  lam_adj_ = s.lam_adj;
  for (int t = 0; t < nl_; ++t) {
    lo_[static_cast<size_t>(2 * D_ + t)] = s.lam_lo[static_cast<size_t>(t)];
    up_[static_cast<size_t>(2 * D_ + t)] = s.lam_up[static_cast<size_t>(t)];
  }
  row_lo0_ = lp_.row_lo;
  row_up0_ = lp_.row_up;
  constant0_ = lp_.objective_constant + s.constant;
  uterms_ = elim.uterms;
  // The x map over the structural columns.
  xterms_.clear();
  xc_ = xmap_->c;
  for (int j = 0; j < d_; ++j)
    for (const auto& [v, a] : xmap_->xs[static_cast<size_t>(j)].terms()) {
      const int q = q_of_var[static_cast<size_t>(v)];
      if (q < 0) throw scfw::Error("scenario_dual: the domain's x refers to a u variable");
      xterms_.push_back({q, j, a});
    }
  // Work buffers.
  x_identity_ = D_ == d_ && static_cast<int>(xterms_.size()) == d_;
  for (size_t i = 0; x_identity_ && i < xterms_.size(); ++i)
    x_identity_ = xterms_[i].q == static_cast<int>(i) && xterms_[i].j == static_cast<int>(i) && xterms_[i].a == 1.0;
  lam_identity_ = nl_ == N_;
  for (int t = 0; lam_identity_ && t < nl_; ++t) lam_identity_ = lam_row_[static_cast<size_t>(t)] == t;
  ymc_.resize(d_);
  g_.resize(n_);
  W_.resize(D_);
  P_ = S_;
  PT_.assign(static_cast<size_t>(scfw::scenario_dual::pt_stride(N_)) * static_cast<size_t>(D_) + 16, 0.0);
  lane_col_.assign(static_cast<size_t>(D_), nullptr);
  lane_x_.assign(static_cast<size_t>(D_), 0.0);
  dse_w_.assign(static_cast<size_t>(D_), 0.0);
  binv_cols_.assign(static_cast<size_t>(D_), nullptr);
  ftran_f_.assign(static_cast<size_t>(D_), 0.0);
  ftran_x_.assign(static_cast<size_t>(D_), nullptr);
  shift_.assign(static_cast<size_t>(N_), 0.0);
  b_.assign(static_cast<size_t>(D_), 0.0);
  cost_.assign(static_cast<size_t>(nv_), 0.0);
  xv_.assign(static_cast<size_t>(nv_), 0.0);
  pos_.assign(static_cast<size_t>(nv_), -1);
  head_.assign(static_cast<size_t>(D_), -1);
  unit_at_.assign(static_cast<size_t>(D_), -1);
  dense_.assign(static_cast<size_t>(D_), -1);
  rrows_.assign(static_cast<size_t>(D_), -1);
  lu_.assign(static_cast<size_t>(D_) * static_cast<size_t>(D_), 0.0);
  perm_.assign(static_cast<size_t>(D_), 0);
  wk_.assign(static_cast<size_t>(D_), 0.0);
  unit_lu_.resize(D_);
  alpha_.assign(static_cast<size_t>(D_), 0.0);
  pi_.assign(static_cast<size_t>(D_), 0.0);
  cb_.assign(static_cast<size_t>(D_), 0.0);
  rhs_.assign(static_cast<size_t>(D_), 0.0);
  lam_price_.resize(N_);
  binv_.assign(static_cast<size_t>(D_) * static_cast<size_t>(D_), 0.0);
  for (int q = 0; q < D_; ++q) binv_cols_[static_cast<size_t>(q)] = binv_.data() + static_cast<size_t>(q) * static_cast<size_t>(D_);
  kern_ = kern::pick(native_kernels_);
  arow_.assign(static_cast<size_t>(nv_), 0.0);
  lam_alpha_.resize(N_);
  dual_.resize(D_, nv_);
  dual_finished_ = 0;
  primal_finished_ = 0;
  static_lo_ = lo_;
  static_up_ = up_;
  art_.attach(nv_, static_lo_.data(), static_up_.data(), lo_.data(), up_.data());
  nb_.assign(static_cast<size_t>(nv_), 0);
  nb_pos_.assign(static_cast<size_t>(nv_), -1);
  dj_.assign(static_cast<size_t>(nv_), 0.0);
  vals_.assign(static_cast<size_t>(lp_.num_vars), 0.0);
  // The slack basis: in each row the unit column that is not fixed (rho+ when both are free to
  // move), every multiplier at the bound nearest 0.
  k_ = 0;
  for (int q = 0; q < D_; ++q) {
    const int j = (lo_[static_cast<size_t>(q)] == up_[static_cast<size_t>(q)] &&
                   lo_[static_cast<size_t>(D_ + q)] != up_[static_cast<size_t>(D_ + q)])
                      ? D_ + q
                      : q;
    unit_at_[static_cast<size_t>(q)] = j;
  }
  for (int t = 0; t < nl_; ++t) xv_[static_cast<size_t>(2 * D_ + t)] = std::clamp(0.0, lo_[static_cast<size_t>(2 * D_ + t)], up_[static_cast<size_t>(2 * D_ + t)]);
}

// P, the dual's costs and right-hand side for (z, V, y).
void ScenarioDualGlmo::build(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y) {
  static_assert(scfw::Mat::IsRowMajor, "the rows of V are read in place");
  for (int j = 0; j < d_; ++j) ymc_[j] = y[j] - xc_[static_cast<size_t>(j)];
  g_.noalias() = V * ymc_;
  g_ = z - g_;
  std::copy(cost0_.begin(), cost0_.end(), b_.begin());
  std::fill(shift_.begin(), shift_.end(), 0.0);
  constant_ = constant0_;
  int last_row = -1;
  double* prow = nullptr;
  for (const UTerm& t : uterms_) {
    if (t.row != last_row) {
      last_row = t.row;
      if (t.row < N_) {
        prow = P_.data() + static_cast<size_t>(t.row) * static_cast<size_t>(D_);
        const double* srow = S_.data() + static_cast<size_t>(t.row) * static_cast<size_t>(D_);
        std::copy(srow, srow + D_, prow);
      } else {
        prow = b_.data();
      }
    }
    // W_i over the structural columns, added with the term's coefficient.
    const double* vrow = V.data() + static_cast<size_t>(t.i) * static_cast<size_t>(d_);
    if (x_identity_)
      axpy(static_cast<size_t>(d_), t.coef, vrow, prow);
    else
      for (const XTerm& x : xterms_) prow[x.q] += t.coef * x.a * vrow[x.j];
    if (t.row < N_)
      shift_[static_cast<size_t>(t.row)] += t.coef * g_[t.i];
    else
      constant_ += t.coef * g_[t.i];
  }
  // The dual's costs (minimization: the negated dual objective).
  for (int j = 0; j < 2 * D_; ++j) cost_[static_cast<size_t>(j)] = unit_cost_[static_cast<size_t>(j)];
  for (int t = 0; t < nl_; ++t) {
    const int r = lam_row_[static_cast<size_t>(t)];
    const double bound = (lam_side_[static_cast<size_t>(t)] == 0 ? row_lo0_[static_cast<size_t>(r)]
                                                                  : row_up0_[static_cast<size_t>(r)]) -
                         shift_[static_cast<size_t>(r)];
    cost_[static_cast<size_t>(2 * D_ + t)] = -(bound + lam_adj_[static_cast<size_t>(t)]);
  }
  if (!kern_.fused && N_ >= 2) scfw::scenario_dual::transpose(N_, D_, P_.data(), PT_.data());
}

// Slots: the unit columns in their rows, the basic multipliers in the uncovered rows; the LU of
// D_R. A dependent multiplier leaves the basis for the unit column of an uncovered row.
void ScenarioDualGlmo::assign_slots() {
  k_ = 0;
  for (int q = 0; q < D_; ++q) {
    const int j = unit_at_[static_cast<size_t>(q)];
    if (j >= 0) {
      head_[static_cast<size_t>(q)] = j;
      pos_[static_cast<size_t>(j)] = q;
    } else {
      rrows_[static_cast<size_t>(k_++)] = q;
    }
  }
  // dense_ holds the basic multipliers (the first k_ of them are expected).
  for (int t = 0; t < k_; ++t) {
    const int j = dense_[static_cast<size_t>(t)];
    head_[static_cast<size_t>(rrows_[static_cast<size_t>(t)])] = j;
    pos_[static_cast<size_t>(j)] = rrows_[static_cast<size_t>(t)];
  }
}

// The LU of D_R (lp::UnitBlockLU); a multiplier dependent on the earlier ones over the rows of
// R leaves the basis, and the row left without a pivot gets a unit column.
void ScenarioDualGlmo::factor() {
  while (true) {
    assign_slots();
    const int bad = unit_lu_.factor([this](int q) { return unit_at_[static_cast<size_t>(q)] >= 0; },
                                    [this](int t) { return lam_col(dense_[static_cast<size_t>(t)]); }, kSet.singular_tol);
    if (bad < 0) return;
    const int j = dense_[static_cast<size_t>(bad)];
    pos_[static_cast<size_t>(j)] = -1;
    xv_[static_cast<size_t>(j)] = std::clamp(xv_[static_cast<size_t>(j)], lo_[static_cast<size_t>(j)], up_[static_cast<size_t>(j)]);
    for (int t = bad; t + 1 < k_; ++t) dense_[static_cast<size_t>(t)] = dense_[static_cast<size_t>(t) + 1];
    const int row = unit_lu_.uncovered_row();
    const int u = (lo_[static_cast<size_t>(row)] == up_[static_cast<size_t>(row)] &&
                   lo_[static_cast<size_t>(D_ + row)] != up_[static_cast<size_t>(D_ + row)])
                      ? D_ + row
                      : row;
    unit_at_[static_cast<size_t>(row)] = u;
    xv_[static_cast<size_t>(u)] = 0.0;
  }
}

// alpha = B^{-1} M_j by slot.
void ScenarioDualGlmo::ftran(int j) {
  std::fill(alpha_.begin(), alpha_.end(), 0.0);
  if (is_unit(j)) {
    const int q = unit_row(j);
    alpha_[static_cast<size_t>(q)] = 1.0;
    if (unit_at_[static_cast<size_t>(q)] >= 0) return;  // basic in its own row
  } else {
    std::copy_n(lam_col(j), static_cast<size_t>(D_), alpha_.begin());
  }
  unit_lu_.ftran(alpha_.data());
}

// pi = B^{-T} c_B.
void ScenarioDualGlmo::btran(const double* cb) {
  std::copy_n(cb, static_cast<size_t>(D_), pi_.begin());
  unit_lu_.btran(pi_.data());
}

// rhs_ = b - N x_N, by row.
void ScenarioDualGlmo::basic_rhs() {
  for (int q = 0; q < D_; ++q) rhs_[static_cast<size_t>(q)] = b_[static_cast<size_t>(q)];
  for (int j = 0; j < 2 * D_; ++j)
    if (pos_[static_cast<size_t>(j)] < 0) rhs_[static_cast<size_t>(unit_row(j))] -= xv_[static_cast<size_t>(j)];
  for (int j = 2 * D_; j < nv_; ++j) {
    const double v = xv_[static_cast<size_t>(j)];
    if (pos_[static_cast<size_t>(j)] >= 0 || v == 0.0) continue;
    const double* col = lam_col(j);
    for (int q = 0; q < D_; ++q) rhs_[static_cast<size_t>(q)] -= col[q] * v;
  }
}

// x_B = B^{-1} (b - N x_N), through the LU of D_R.
void ScenarioDualGlmo::recompute_basics() {
  basic_rhs();
  unit_lu_.ftran(rhs_.data());
  for (int q = 0; q < D_; ++q) xv_[static_cast<size_t>(head_[static_cast<size_t>(q)])] = rhs_[static_cast<size_t>(q)];
}

// Basic costs by slot: the composite phase-1 costs or the dual's (bounded_primal.hpp).
bool ScenarioDualGlmo::set_basic_costs() {
  return lp::composite_basic_costs(basis_view(), cost_.data(), cb_.data());
}

// Reduced costs of every nonbasic variable (pi from the current basic costs).
void ScenarioDualGlmo::price(bool phase1) {
  btran(cb_.data());
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> P(P_.data(), N_, D_);
  const Eigen::Map<const Eigen::VectorXd> pi(pi_.data(), D_);
  lam_price_.noalias() = P * pi;
  for (int j = 0; j < 2 * D_; ++j)
    dj_[static_cast<size_t>(j)] = (phase1 ? 0.0 : cost_[static_cast<size_t>(j)]) - pi_[static_cast<size_t>(unit_row(j))];
  for (int t = 0; t < nl_; ++t)
    dj_[static_cast<size_t>(2 * D_ + t)] =
        (phase1 ? 0.0 : cost_[static_cast<size_t>(2 * D_ + t)]) - lam_price_[lam_row_[static_cast<size_t>(t)]];
}

// The basis change: q in, the variable of slot `leave` out; refactorized.
void ScenarioDualGlmo::pivot(int leave, int q) {
  const int p = head_[static_cast<size_t>(leave)];
  pos_[static_cast<size_t>(p)] = -1;
  if (is_unit(p)) {
    unit_at_[static_cast<size_t>(unit_row(p))] = -1;
  } else {
    int t = 0;
    while (dense_[static_cast<size_t>(t)] != p) ++t;
    for (; t + 1 < k_; ++t) dense_[static_cast<size_t>(t)] = dense_[static_cast<size_t>(t) + 1];
    --k_;
  }
  if (is_unit(q)) {
    unit_at_[static_cast<size_t>(unit_row(q))] = q;
  } else {
    dense_[static_cast<size_t>(k_++)] = q;
  }
  pos_[static_cast<size_t>(q)] = 0;  // set by factor()
  factor();
}

bool ScenarioDualGlmo::primal_feasible() const {
  for (int q = 0; q < D_; ++q) {
    const int j = head_[static_cast<size_t>(q)];
    const double v = xv_[static_cast<size_t>(j)], lo = lo_[static_cast<size_t>(j)], up = up_[static_cast<size_t>(j)];
    if (v < lo - bound_tol(lo) || v > up + bound_tol(up)) return false;
  }
  return true;
}

// The primal optimum: minus the dual's (minimized) objective, plus the constants.
double ScenarioDualGlmo::dual_value() const {
  double s = 0.0;
  for (int j = 0; j < nv_; ++j) {
    const double v = xv_[static_cast<size_t>(j)];
    if (v != 0.0) s += cost_[static_cast<size_t>(j)] * v;
  }
  return constant_ - s;
}

// The column access of the engine's primal driver (bounded_primal.hpp): columns through the LU
// of D_R, refactorized at every basis change; a candidate end is accepted when x_B recomputed
// from scratch agrees with the phase.
struct ScenarioDualGlmo::PrimalColumns {
  ScenarioDualGlmo& g;
  lp::PrimalBasisView view() { return g.basis_view(); }
  int vars() const { return g.nv_; }
  const int* pos() const { return g.pos_.data(); }
  bool price() {
    const bool phase1 = g.set_basic_costs();
    g.price(phase1);
    return phase1;
  }
  double reduced_cost(int j) const { return g.dj_[static_cast<size_t>(j)]; }
  void column(int q, double*) { g.ftran(q); }  // into alpha_, the driver's alpha
  bool basis_change(int r, int q) {
    g.pivot(r, q);
    return true;
  }
  void refactor() {
    g.factor();
    g.recompute_basics();
  }
  bool fresh() const { return true; }
  bool verify(bool phase1) {
    g.recompute_basics();
    return g.primal_feasible() == !phase1;
  }
};

ScenarioDualGlmo::Outcome ScenarioDualGlmo::run(long& pivots) {
  PrimalColumns cols{*this};
  cols.refactor();
  switch (lp::primal_simplex(cols, alpha_.data(), kSet, 20L * (nv_ + D_) + 100, pivots)) {
    case lp::PrimalExit::kOptimal:
      return Outcome::kOptimal;
    case lp::PrimalExit::kInfeasible:
      return Outcome::kInfeasible;
    case lp::PrimalExit::kUnbounded:
      return Outcome::kUnbounded;
    case lp::PrimalExit::kFailed:
      break;
  }
  return Outcome::kFailed;
}

// ---- The dual simplex on the dual LP --------------------------------------------------------
//
// Nonbasic boxed multipliers sit at the bound their reduced cost asks for, so after z and V move
// the kept basis is dual feasible as soon as every one-sided or free nonbasic column is (the
// structural columns strictly inside their bounds stay inside); only the basic variables (D of
// them) can be out of bounds, and a dual simplex removes that. B^{-1} is kept explicitly (D x D,
// rows by slot), built from the LU of D_R at the start of a solve and updated by one rank-one
// product per pivot (D^2), so a pivot costs the pivot row (one N x D product), an ftran and the
// update. The leaving row is the one with the largest infeasibility^2 / ||e_r^T B^{-1}||^2 (dual
// steepest edge, the norms read off the explicit inverse); the ratio test passes the breakpoints
// of boxed multipliers while the dual objective still improves (bound flipping), then takes
// among the breakpoints within the dual tolerance the largest |alpha| (Harris).

// Slots by convention (the unit columns in their rows, the basic multipliers in the uncovered
// rows R), then B^{-1}. A singular D_R is repaired by factor() first.
bool ScenarioDualGlmo::refactor() {
  assign_slots();
  if (!build_binv()) {
    factor();  // takes the dependent multipliers out
    if (!build_binv()) return false;
  }
  // The nonbasic columns that can move.
  nnb_ = 0;
  for (int j = 0; j < nv_; ++j) {
    nb_pos_[static_cast<size_t>(j)] = -1;
    if (pos_[static_cast<size_t>(j)] >= 0 || static_lo_[static_cast<size_t>(j)] == static_up_[static_cast<size_t>(j)]) continue;
    nb_pos_[static_cast<size_t>(j)] = nnb_;
    nb_[static_cast<size_t>(nnb_++)] = j;
  }
  dse_weights();
  return true;
}

// B = [I_S | D] by slot: B^{-1} = [[I, -D_S D_R^{-1}], [0, D_R^{-1}]], stored by column.
// D_R^{-1} by Gauss-Jordan in place with partial pivoting (k^3, row operations over contiguous
// rows), then -D_S D_R^{-1} ((D - k) k^2). Returns false when D_R is singular (a pivot <=
// kSet.singular_tol relative to its largest entry).
bool ScenarioDualGlmo::build_binv() {
  const int k = k_;
  const size_t K = static_cast<size_t>(k), DD = static_cast<size_t>(D_);
  // lu_ (k x k, row a = dual row rrows_a, column t = multiplier dense_t) becomes D_R^{-1} with
  // rows and columns exchanged by the pivoting: perm_ records the row exchanges.
  double scale = 0.0;
  for (int t = 0; t < k; ++t) {
    const double* pc = lam_col(dense_[static_cast<size_t>(t)]);
    for (int a = 0; a < k; ++a) {
      const double v = pc[rrows_[static_cast<size_t>(a)]];
      lu_[static_cast<size_t>(a) * K + static_cast<size_t>(t)] = v;
      scale = std::max(scale, std::abs(v));
    }
  }
  for (int c = 0; c < k; ++c) {
    double best = 0.0;
    const int p = lp::partial_pivot(lu_.data(), K, c, k, best);
    if (!(best > kSet.singular_tol * std::max(1.0, scale))) return false;
    perm_[static_cast<size_t>(c)] = p;
    double* rc = lu_.data() + static_cast<size_t>(c) * K;
    if (p != c) std::swap_ranges(rc, rc + K, lu_.data() + static_cast<size_t>(p) * K);
    const double inv = 1.0 / rc[c];
    rc[c] = 1.0;
    for (size_t b = 0; b < K; ++b) rc[b] *= inv;
    for (int a = 0; a < k; ++a) {
      if (a == c) continue;
      double* ra = lu_.data() + static_cast<size_t>(a) * K;
      const double f = ra[c];
      if (f == 0.0) continue;
      ra[c] = 0.0;
      axpy(K, -f, rc, ra);
    }
  }
  // The row exchanges of the pivoting are column exchanges of the inverse, in reverse order.
  for (int c = k - 1; c >= 0; --c) {
    const int p = perm_[static_cast<size_t>(c)];
    if (p == c) continue;
    for (int a = 0; a < k; ++a)
      std::swap(lu_[static_cast<size_t>(a) * K + static_cast<size_t>(c)], lu_[static_cast<size_t>(a) * K + static_cast<size_t>(p)]);
  }
  // Now lu_[t][a] = (D_R^{-1})_{t a}. Column rrows_a of B^{-1}: D_R^{-1}[., a] in the slots of
  // R, -(D_S D_R^{-1})[., a] in the slots of S.
  std::fill(binv_.begin(), binv_.end(), 0.0);
  for (int t = 0; t < k; ++t) {
    const double* di = lu_.data() + static_cast<size_t>(t) * K;
    const size_t slot = static_cast<size_t>(rrows_[static_cast<size_t>(t)]);
    for (int a = 0; a < k; ++a) binv_[static_cast<size_t>(rrows_[static_cast<size_t>(a)]) * DD + slot] = di[a];
  }
  for (int q = 0; q < D_; ++q) {
    if (unit_at_[static_cast<size_t>(q)] < 0) continue;
    binv_[static_cast<size_t>(q) * DD + static_cast<size_t>(q)] = 1.0;
    // wk_[a] = -(D_S[q, .] D_R^{-1})[a]: one axpy of -f per row of D_R^{-1} with f != 0, into a
    // zeroed wk_ (portable: by chunks of wk_ in registers, the same bits).
    int m = 0;
    for (int t = 0; t < k; ++t) {
      const double f = lam_col(dense_[static_cast<size_t>(t)])[q];
      if (f == 0.0) continue;
      ftran_f_[static_cast<size_t>(m)] = -f;
      ftran_x_[static_cast<size_t>(m++)] = lu_.data() + static_cast<size_t>(t) * K;
    }
    if (kern_.fused) {
      std::fill(wk_.begin(), wk_.begin() + k, 0.0);
      for (int t = 0; t < m; ++t) kern_.axpy(K, ftran_f_[static_cast<size_t>(t)], ftran_x_[static_cast<size_t>(t)], wk_.data());
    } else {
      kern::combine(K, m, ftran_f_.data(), ftran_x_.data(), wk_.data());
    }
    for (int a = 0; a < k; ++a) binv_[static_cast<size_t>(rrows_[static_cast<size_t>(a)]) * DD + static_cast<size_t>(q)] = wk_[static_cast<size_t>(a)];
  }
  return true;
}

// pi = B^{-T} c_B and the reduced costs of every nonbasic column.
void ScenarioDualGlmo::price_binv() {
  const size_t DD = static_cast<size_t>(D_);
  for (int s = 0; s < D_; ++s) cb_[static_cast<size_t>(s)] = cost_[static_cast<size_t>(head_[static_cast<size_t>(s)])];
  for (int q = 0; q < D_; ++q) {
    const double* col = binv_.data() + static_cast<size_t>(q) * DD;
    double v = 0.0;
    for (size_t s = 0; s < DD; ++s) v += col[s] * cb_[s];
    pi_[static_cast<size_t>(q)] = v;
  }
  kern_.gemv(N_, D_, P_.data(), pi_.data(), lam_price_.data());
  for (int j = 0; j < 2 * D_; ++j)
    dj_[static_cast<size_t>(j)] = cost_[static_cast<size_t>(j)] - pi_[static_cast<size_t>(unit_row(j))];
  for (int t = 0; t < nl_; ++t)
    dj_[static_cast<size_t>(2 * D_ + t)] = cost_[static_cast<size_t>(2 * D_ + t)] - lam_price_[lam_row_[static_cast<size_t>(t)]];
}

// out (by slot) = B^{-1} a.
// out = sum over the dual rows q with a_q != 0, in increasing order, of a_q times column q of
// B^{-1}: the bits of one axpy per such q into a zeroed out. The AVX2 build keeps its axpys; the
// portable one sums by chunks of out in registers (kern::combine). (The column of a dual row
// covered by a basic unit column is exactly the unit vector of that column's slot: its term is
// summed like the others rather than added once beside axpys for the rest.)
void ScenarioDualGlmo::ftran_binv(const double* a, double* out) const {
  const size_t DD = static_cast<size_t>(D_);
  if (kern_.fused) {
    std::fill(out, out + D_, 0.0);
    for (int q = 0; q < D_; ++q) {
      const double f = a[q];
      if (f == 0.0) continue;
      kern_.axpy(DD, f, binv_.data() + static_cast<size_t>(q) * DD, out);
    }
    return;
  }
  int m = 0;
  for (int q = 0; q < D_; ++q) {
    const double f = a[q];
    if (f == 0.0) continue;
    ftran_f_[static_cast<size_t>(m)] = f;
    ftran_x_[static_cast<size_t>(m++)] = binv_cols_[static_cast<size_t>(q)];
  }
  kern::combine(DD, m, ftran_f_.data(), ftran_x_.data(), out);
}

// The dual steepest-edge weights, dse_w_[s] = ||e_s^T B^{-1}||^2 = sum over the dual rows q in
// increasing order of B^{-1}[q][s]^2, for every slot at once along the columns of B^{-1}
// (contiguous; a chunk of 16 slots in registers), after every change of B^{-1}: the same sums,
// term for term, as the leaving-row choice used to compute per infeasible slot across the
// columns (the covered rows' exact unit columns included, as in that sum).
void ScenarioDualGlmo::dse_weights() {
  kern::sum_squares(static_cast<size_t>(D_), D_, binv_cols_.data(), dse_w_.data());
}

// x_B = B^{-1} (b - N x_N), through the explicit inverse.
void ScenarioDualGlmo::recompute_xb() {
  basic_rhs();
  ftran_binv(rhs_.data(), wk_.data());
  for (int s = 0; s < D_; ++s) xv_[static_cast<size_t>(head_[static_cast<size_t>(s)])] = wk_[static_cast<size_t>(s)];
}

// Every nonbasic column at the bound its reduced cost asks for. Returns the number of columns
// moved. A column that cannot move to another bound (one-sided, free) and is dual infeasible
// gets an artificial bound (art_, taken back by drop_artificial_bounds()), which makes it boxed,
// and is put there.
int ScenarioDualGlmo::place_nonbasics() {
  int moved = 0;
  for (int j = 0; j < nv_; ++j) {
    if (pos_[static_cast<size_t>(j)] >= 0) continue;
    double &lo = lo_[static_cast<size_t>(j)], &up = up_[static_cast<size_t>(j)];
    if (lo == up) continue;
    double& v = xv_[static_cast<size_t>(j)];
    const double d = dj_[static_cast<size_t>(j)];
    const bool flo = std::isfinite(lo), fup = std::isfinite(up);
    if (!(flo && fup) && ((flo && d < -kSet.dual_tol) || (fup && d > kSet.dual_tol) || (!flo && !fup && std::abs(d) > kSet.dual_tol))) {
      if (!flo) art_.set(j, true);
      if (!fup) art_.set(j, false);
    }
    double want = v;
    if (std::isfinite(lo) && std::isfinite(up))
      want = d < -kSet.dual_tol ? up : d > kSet.dual_tol ? lo : (v == up ? up : lo);
    else if (std::isfinite(lo))
      want = lo;
    else if (std::isfinite(up))
      want = up;
    if (v != want) {
      v = want;
      ++moved;
    }
  }
  return moved;
}

// Takes back the artificial bounds of place_nonbasics(). Returns whether a nonbasic column was
// at one of them (it is put back at its real bound: the basis is then no longer optimal).
bool ScenarioDualGlmo::drop_artificial_bounds() {
  bool off = false;
  art_.drop([&](int j) {
    if (pos_[static_cast<size_t>(j)] >= 0) return;
    const double lo = lo_[static_cast<size_t>(j)], up = up_[static_cast<size_t>(j)];
    double& v = xv_[static_cast<size_t>(j)];
    if (v != lo && v != up) {
      off = true;
      v = std::isfinite(lo) ? lo : std::isfinite(up) ? up : 0.0;
    }
  });
  return off;
}

// The column access of the LP engine's dual driver (plugins/lp/bounded_dual.hpp): the pivot row
// from P and the explicit inverse, columns through B^{-1}, and the basis change as a rank-one
// update of B^{-1} with the unit-block bookkeeping.
struct ScenarioDualGlmo::DualColumns {
  ScenarioDualGlmo& g;
  int since = 0;  // pivots since B^{-1} was built from scratch

  // The verification policy's part (plugins/lp/verify.hpp).
  bool refactor() {
    since = 0;
    return g.refactor();
  }
  int updates() const { return since; }
  int recompute(bool) {
    g.price_binv();
    const int moved = g.place_nonbasics();
    g.recompute_xb();
    return moved;
  }
  bool basic(int j) const { return g.pos_[static_cast<size_t>(j)] >= 0; }

  int vars() const { return g.nv_; }
  int movable_count() const { return g.nnb_; }
  int movable(int i) const { return g.nb_[static_cast<size_t>(i)]; }
  lp::Side side(int j) const {
    return lp::side_by_value(g.xv_[static_cast<size_t>(j)], g.lo_[static_cast<size_t>(j)], g.up_[static_cast<size_t>(j)]);
  }
  double weight(int s) const { return g.dse_w_[static_cast<size_t>(s)]; }
  // alpha_j for every column: the unit columns' from rho (row r of B^{-1}), the multipliers'
  // from P rho, written in place when multiplier t prices row t. Not inlined: the driver's pivot
  // loop compiles to fewer instructions around a call.
  [[gnu::noinline]] const double* pivot_row(int r) {
    const size_t DD = static_cast<size_t>(g.D_);
    for (int q = 0; q < g.D_; ++q) g.rhs_[static_cast<size_t>(q)] = g.binv_[static_cast<size_t>(q) * DD + static_cast<size_t>(r)];
    const double* rho = g.rhs_.data();
    double* lam_out = g.lam_identity_ ? g.arow_.data() + 2 * g.D_ : g.lam_alpha_.data();
    if (g.kern_.fused || g.N_ < 2) {  // one row: Eigen's product is a dot product (another order)
      g.kern_.gemv(g.N_, g.D_, g.P_.data(), rho, lam_out);
    } else {
      // The same bits as kern_.gemv, over the nonzeros of rho only (pivot_row.hpp).
      scfw::scenario_dual::Lanes lanes{g.lane_col_.data(), g.lane_x_.data()};
      scfw::scenario_dual::nonzero_lanes(g.N_, g.D_, g.PT_.data(), rho, lanes);
      scfw::scenario_dual::pivot_row(g.N_, lanes, lam_out);
    }
    if (!g.lam_identity_)
      for (int t = 0; t < g.nl_; ++t) g.arow_[static_cast<size_t>(2 * g.D_ + t)] = g.lam_alpha_[g.lam_row_[static_cast<size_t>(t)]];
    std::copy(rho, rho + g.D_, g.arow_.begin());
    std::copy(rho, rho + g.D_, g.arow_.begin() + g.D_);
    return g.arow_.data();
  }
  void column(int q, double* out) const {
    if (g.is_unit(q)) {
      const double* col = g.binv_.data() + static_cast<size_t>(g.unit_row(q)) * static_cast<size_t>(g.D_);
      std::copy(col, col + g.D_, out);
    } else {
      g.ftran_binv(g.lam_col(q), out);
    }
  }
  void add_column(int j, double dx, double* w) const {
    if (g.is_unit(j)) {
      w[g.unit_row(j)] += dx;
    } else {
      const double* col = g.lam_col(j);
      for (int k = 0; k < g.D_; ++k) w[k] += col[k] * dx;
    }
  }
  void ftran(const double* w, double* out) const { g.ftran_binv(w, out); }
  void moved(int) const {}
  // B^{-1} updated by one rank-one product, the unit-block lists, the weights and the list of
  // movable nonbasic columns.
  bool basis_change(int r, int p, int q, const double* col) {
    const size_t DD = static_cast<size_t>(g.D_);
    const double acq = col[r];
    for (int c = 0; c < g.D_; ++c) {
      double* bc = g.binv_.data() + static_cast<size_t>(c) * DD;
      const double v = bc[r] / acq;
      if (v == 0.0) continue;
      g.axpy(DD, -v, col, bc);
      bc[r] = v;
    }
    g.pos_[static_cast<size_t>(p)] = -1;
    if (g.is_unit(p)) {
      g.unit_at_[static_cast<size_t>(g.unit_row(p))] = -1;
    } else {
      int t = 0;
      while (g.dense_[static_cast<size_t>(t)] != p) ++t;
      for (; t + 1 < g.k_; ++t) g.dense_[static_cast<size_t>(t)] = g.dense_[static_cast<size_t>(t) + 1];
      --g.k_;
    }
    if (g.is_unit(q)) g.unit_at_[static_cast<size_t>(g.unit_row(q))] = q;
    else g.dense_[static_cast<size_t>(g.k_++)] = q;
    g.pos_[static_cast<size_t>(q)] = r;
    g.dse_weights();
    const int i = g.nb_pos_[static_cast<size_t>(q)], last = g.nb_[static_cast<size_t>(--g.nnb_)];
    g.nb_[static_cast<size_t>(i)] = last;
    g.nb_pos_[static_cast<size_t>(last)] = i;
    g.nb_pos_[static_cast<size_t>(q)] = -1;
    if (g.static_lo_[static_cast<size_t>(p)] != g.static_up_[static_cast<size_t>(p)]) {
      g.nb_pos_[static_cast<size_t>(p)] = g.nnb_;
      g.nb_[static_cast<size_t>(g.nnb_++)] = p;
    }
    return ++since < kSet.refactor_every;
  }
};

// The engine's dual driver under its verification policy (plugins/lp/verify.hpp). Anything but
// a verified optimum (a column left at an artificial bound included) is finished by the primal
// simplex.
ScenarioDualGlmo::Outcome ScenarioDualGlmo::run_dual(long& pivots) {
  DualColumns cols{*this};
  const lp::DualBasisView view{D_, head_.data(), xv_.data(), dj_.data(), lo_.data(), up_.data()};
  const lp::Verified v = lp::verified_dual(dual_, cols, view, kSet, 4L * (nv_ + D_) + 50, pivots, &art_);
  return v == lp::Verified::kOptimal ? Outcome::kOptimal : Outcome::kFailed;
}

scfw::GlmoResult ScenarioDualGlmo::solve(const scfw::Vec& z, const scfw::Jacobian& Vj, const scfw::Vec& y, scfw::Vec& x) {
  const scfw::Mat& V = Vj.dense();
  if (D_ == 0) throw scfw::Error("scenario_dual: solve() called before setup()");
  fb_.begin_solve(z, V, y, n_, d_);
  build(z, V, y);
  long pivots = 0;
  double bscale = 1.0;
  for (int q = 0; q < D_; ++q) bscale = std::max(bscale, std::abs(b_[static_cast<size_t>(q)]));
  art_.start(kSet.artificial_bound * bscale);
  Outcome out = primal_only_ ? Outcome::kFailed : run_dual(pivots);
  const bool off = drop_artificial_bounds();
  if (out == Outcome::kFailed || off) {
    // The dual simplex gave up, or ended with a column at an artificial bound: the primal
    // simplex continues from its basis.
    ++primal_finished_;
    out = run(pivots);
  } else {
    ++dual_finished_;
  }
  scfw::GlmoResult r;
  if (out == Outcome::kOptimal) {
    r.value = dual_value();
    r.iterations = pivots;
    // v = -pi (pi from the optimal basis' costs, as priced last).
    if (x.size() != d_) x.resize(d_);
    for (int j = 0; j < d_; ++j) x[j] = xc_[static_cast<size_t>(j)];
    for (const XTerm& t : xterms_) x[t.j] -= t.a * pi_[static_cast<size_t>(t.q)];
  } else if (out == Outcome::kInfeasible) {
    throw scfw::Error("scenario_dual: the GLMO LP is unbounded (its dual is infeasible)");
  } else if (out == Outcome::kUnbounded) {
    throw scfw::Error("scenario_dual: the GLMO LP is infeasible (its dual is unbounded)");
  } else {
    // Last resort: Clp, cold; the basis starts over from the slack basis next time.
    r = fb_.solve(z, V, y, x, pivots);
    std::fill(pos_.begin(), pos_.end(), -1);
    k_ = 0;
    for (int q = 0; q < D_; ++q)
      unit_at_[static_cast<size_t>(q)] = (lo_[static_cast<size_t>(q)] == up_[static_cast<size_t>(q)] &&
                                          lo_[static_cast<size_t>(D_ + q)] != up_[static_cast<size_t>(D_ + q)])
                                             ? D_ + q
                                             : q;
    for (int j = 0; j < nv_; ++j)
      xv_[static_cast<size_t>(j)] = std::clamp(0.0, lo_[static_cast<size_t>(j)], up_[static_cast<size_t>(j)]);
    return r;
  }
  fb_.accept(r.value, z, V, y);
  return r;
}

void register_components(scfw::Registrar& r) {
  r.add<ScenarioDualGlmo>(
      "scenario_dual",
      "x = argmin_{x in X} F(z + V (x - y), x) for LPs with many rows (one per scenario or output) against few "
      "structural columns: the dual LP solved exactly by a dual simplex with bound flipping that keeps its basis "
      "from one solve to the next (Alg. 1 line 7)",
      {scfw::ParamSpec::integer("max_structural",
                                "refuse LPs whose dual has more rows (structural columns of the primal) than this: "
                                "its basis inverse is dense, D x D (at 201, 200 assets, it was 8.6x faster than clp; "
                                "docs/performance.md)")
           .range(1, 1 << 20)
           .def(std::int64_t{256}),
       scfw::ParamSpec::number("min_row_ratio",
                               "refuse LPs with fewer than this many primal rows per structural column (the dual "
                               "would not be smaller)")
           .at_least(0.0)
           .def(2.0),
       scfw::ParamSpec::choice("algorithm", {"dual", "primal"},
                               "\"dual\": the dual simplex with bound flipping (the primal simplex finishes a solve "
                               "it cannot); \"primal\": the primal simplex alone (the algorithm before the dual one, "
                               "about 4x the pivots on Task 2; kept for comparison and tests)")
           .def("dual"),
       scfw::ParamSpec::choice("kernels", {"portable", "native"},
                               "\"portable\": baseline (SSE2) dense kernels, the same bits on every x86-64 CPU; "
                               "\"native\": AVX2 + FMA kernels when the CPU has them (faster; the last bits, and x at "
                               "a tie, then depend on the CPU)")
           .def("portable"),
       scfw::ParamSpec::boolean("cross_check",
                                "also solve every LP with Clp and stop at the first disagreement above 1e-9 of the "
                                "size of the terms its value sums (debugging; slow)")
           .def(false)},
      scfw::Preference{.rank = 40,
                       .reason = "the GLMO LP has many rows against few structural columns; its dual is "
                                 "solved, warm"});
}

}  // namespace

SCFW_PLUGIN("scenario_dual", SCFW_PLUGIN_VERSION, register_components)
