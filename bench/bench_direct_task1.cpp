// When scfw is worth it (issue #13, item 3) for Task 1: the sample-average problem solved directly
// as a convex QCQP with Ipopt, against scfw on the same data, over N rows per task.
//
//   build/bin/bench_direct_task1 [--rows 1000,10000,100000,1000000] [--tasks 10] [--dim 100]
//       [--methods vanilla,clipped,variant1,variant2,storm,variant1_convex,variant2_convex]
//       [--K 1000,10000,100000]
//       [--seed 1] [--batch 1] [--threshold 3] [--formulations pq,xs] [--max-oracle-rows 100000]
//       [--max-stored-rows 100000] [--block 4096] [--mu-adaptive 0|1] [--mehrotra 0|1]
//
// The problem (docs/formulations.md, Task 1) on the `least_squares_tasks` oracle's synthetic data
// (m tasks, d features, N rows per task, data seed 1), generated here by the same generator with
// the same draws in the same order:
//
//   phi(x) = max_i f_i(x),  f_i(x) = 1/(2 N) ||A_i x - b_i||^2,   ||x||_1 <= tau = 5.
//
// Up to --max-oracle-rows rows per task the bench also composes the Task 1 problem
// (least_squares_tasks batch --batch, max, l1_ball radius 5) and checks that the oracle's exact f
// and Jacobian at a fixed point equal, bitwise, the same sums over the rows generated here (up to
// --max-stored-rows, which the bench keeps in memory), or f and G x - c from the moments to 1e-10
// relative (above it). Above --max-oracle-rows (the oracle holds 12 bytes per value: 12 GB at
// N = 10^6, m = 10, d = 100) only the direct side runs, on data generated and consumed in blocks
// of --block rows.
//
// Direct: one pass over the data for the per-task moments
//   G_i = A_i^T A_i / N,  c_i = A_i^T b_i / N,  s_i = b_i^T b_i / N,  f_i(x) = x^T G_i x / 2 - c_i^T x + s_i / 2,
// then Ipopt (3.11, MUMPS, exact Hessian) on the epigraph QCQP, which works on the d x d moments
// whatever N is:
//   "pq": x = p - q, p, q >= 0:  min t  s.t.  f_i(p - q) <= t (i = 1..m),  sum_j (p_j + q_j) <= tau
//   "xs": x free, s >= 0:        min t  s.t.  f_i(x) <= t,  -s_j <= x_j <= s_j,  sum_j s_j <= tau
// Both are exact smooth reformulations (at an optimum of "pq" either p_j or q_j can be lowered
// until one is zero without leaving the feasible set). The direct time is the pass plus the solve.
// Above --max-stored-rows the data arrive in blocks and only the moment updates are timed (the
// generation between them is not); the bench prints both pass timings where both exist.
// After each Ipopt iteration a callback copies the current x (scaled into the ball when
// ||x||_1 > tau, so that phi is taken at a feasible point); phi is evaluated after the solve, and
// the time to an accuracy is the solve's time at the first iteration with
// phi(x_k) - phi* <= tol |phi*|, plus the pass.
//
// phi* is the smaller phi at the formulations' final x (tol 1e-12, scaled into the ball). It is
// certified from below independently of Ipopt: f_i(x) + grad f_i(x)^T (s - x) <= f_i(s) for the
// convex f_i, so LB = min_{||s||_1 <= tau} max_i [f_i(x*) + grad f_i(x*)^T (s - x*)], an LP solved
// with Clp, is <= phi*; the bench prints (phi(x*) - LB) / |phi*|, with f and the gradient from the
// oracle's exact pass over the rows where the oracle is composed (from the moments above that).
//
// scfw: each method at each budget K, seed --seed, no gap reports. The methods: the five of
// experiments/task1_synthetic.json (vanilla and clipped with gamma = K^-3/4, Variants I and II
// with the `nonconvex` schedule, STORM), and Variants I and II with Theorem 2's `convex` schedule
// (variant1_convex, variant2_convex: Task 1 is convex). A callback copies y_k after
// each iteration (every ceil(K / 20000)-th), phi(y_k) is evaluated from the moments after the
// run, and the bench prints the run's time at the first stored k with phi(y_k) - phi* <= tol
// |phi*| and at the first k from which every stored iterate stays there ("-": not reached).
#include <ClpSimplex.hpp>
#include <CoinPackedMatrix.hpp>
#include <IpDenseVector.hpp>
#include <IpIpoptApplication.hpp>
#include <IpIpoptData.hpp>
#include <IpIteratesVector.hpp>
#include <IpSolveStatistics.hpp>
#include <IpTNLP.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"

using namespace scfw;
using namespace scfw::bench;

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr double kTau = 5.0;
constexpr double kInf = 1e19;  // Ipopt's "no bound"

// The least_squares_tasks synthetic generator with its defaults (sparsity 10, noise 0.5): the same
// draws in the same order (plugins/oracle/least_squares_tasks, make_synthetic), one row at a time.
class Generator {
 public:
  Generator(long d, long m, std::uint64_t seed) : d_(d), m_(m), g_(seed), xstar_(Vec::Zero(d)), a_(d) {
    const long sparsity = 10;
    std::vector<int> idx(static_cast<std::size_t>(d));
    std::iota(idx.begin(), idx.end(), 0);
    std::bernoulli_distribution coin(0.5);
    std::uniform_real_distribution<double> magnitude(0.5, 1.5);
    for (std::int64_t j = 0; j < sparsity; ++j) {
      std::uniform_int_distribution<std::int64_t> pick(j, d - 1);
      std::swap(idx[j], idx[pick(g_)]);
      const double sign = coin(g_) ? 1.0 : -1.0;
      xstar_[idx[j]] = sign * magnitude(g_);
    }
    xstar_ *= 4.0 / xstar_.lpNorm<1>();
  }
  /// Starts task i: its Student-t degrees of freedom and noise scale.
  void begin_task(long i) {
    const double frac = m_ > 1 ? static_cast<double>(i) / static_cast<double>(m_ - 1) : 0.0;
    student_ = std::student_t_distribution<double>(10.0 - 7.5 * frac);
    scale_ = 0.5 * (1.0 + frac);
  }
  /// The next row of the current task into `row` (d values); returns its label.
  double next(double* row) {
    for (long k = 0; k < d_; ++k) a_[k] = gauss_(g_);
    const double bj = a_.dot(xstar_) + scale_ * student_(g_);
    std::copy(a_.data(), a_.data() + d_, row);
    return bj;
  }

 private:
  long d_, m_;
  Rng g_;
  Vec xstar_, a_;
  std::normal_distribution<double> gauss_{0.0, 1.0};
  std::student_t_distribution<double> student_{10.0};
  double scale_ = 0.5;
};

/// The per-task moments: f_i(x) = x^T G_i x / 2 - c_i^T x + s_i / 2.
struct Moments {
  std::vector<Eigen::MatrixXd> G;
  std::vector<Vec> c;
  std::vector<double> s;
  long m() const { return static_cast<long>(G.size()); }
  long d() const { return G.empty() ? 0 : G[0].rows(); }
  void reset(long m, long d) {
    G.assign(static_cast<std::size_t>(m), Eigen::MatrixXd::Zero(d, d));
    c.assign(static_cast<std::size_t>(m), Vec::Zero(d));
    s.assign(static_cast<std::size_t>(m), 0.0);
  }
  /// Adds rows A (r x d) with labels b to task i (lower triangle of G only).
  void add(long i, const Eigen::Ref<const RowMat>& A, const Eigen::Ref<const Vec>& b) {
    G[i].selfadjointView<Eigen::Lower>().rankUpdate(A.transpose());
    c[i].noalias() += A.transpose() * b;
    s[i] += b.squaredNorm();
  }
  /// Divides by N and fills the upper triangles.
  void finish(long N) {
    const double inv = 1.0 / static_cast<double>(N);
    for (long i = 0; i < m(); ++i) {
      G[i] = G[i].selfadjointView<Eigen::Lower>();
      G[i] *= inv;
      c[i] *= inv;
      s[i] *= inv;
    }
  }
  double f(long i, const Vec& x) const { return 0.5 * x.dot(G[i] * x) - c[i].dot(x) + 0.5 * s[i]; }
  double phi(const Vec& x) const {
    double v = -std::numeric_limits<double>::infinity();
    for (long i = 0; i < m(); ++i) v = std::max(v, f(i, x));
    return v;
  }
  /// phi at each column of Y.
  std::vector<double> phi_columns(const Eigen::MatrixXd& Y) const {
    Eigen::RowVectorXd best = Eigen::RowVectorXd::Constant(Y.cols(), -std::numeric_limits<double>::infinity());
    for (long i = 0; i < m(); ++i) {
      const Eigen::MatrixXd GY = G[i] * Y;
      const Eigen::RowVectorXd fi = 0.5 * (Y.cwiseProduct(GY)).colwise().sum() - c[i].transpose() * Y +
                                    Eigen::RowVectorXd::Constant(Y.cols(), 0.5 * s[i]);
      best = best.cwiseMax(fi);
    }
    return std::vector<double>(best.data(), best.data() + best.size());
  }
};

/// x moved into the l1 ball of radius tau (scaled toward 0 when outside).
Vec into_ball(Vec x) {
  const double n1 = x.lpNorm<1>();
  if (n1 > kTau) x *= kTau / n1;
  return x;
}

// ---------------------------------------------------------------------------------------------
// The epigraph QCQP for Ipopt.

struct IpoptTrace {
  std::vector<Vec> x;             // the iterates' x, copied by the callback
  std::vector<double> wall, cpu;  // seconds since the solve started
};

/// Ipopt's sparse matrices in two passes: their structure (row and column of each entry) when
/// `row` is given, else the values in the same order.
struct Triplets {
  Ipopt::Index* row;
  Ipopt::Index* col;
  Ipopt::Number* v;
  long k = 0;
  void operator()(long r, long c, double value) {
    if (row) {
      row[k] = static_cast<Ipopt::Index>(r);
      col[k] = static_cast<Ipopt::Index>(c);
    } else {
      v[k] = value;
    }
    ++k;
  }
};

class EpigraphQcqp final : public Ipopt::TNLP {
 public:
  enum class Form { PQ, XS };
  EpigraphQcqp(const Moments& mo, Form form, IpoptTrace* trace) : mo_(mo), form_(form), trace_(trace), d_(mo.d()), m_(mo.m()) {}

  void start_clock() {
    t0_ = Clock::now();
    c0_ = cpu_now();
  }
  const Vec& solution() const { return x_; }
  double value() const { return value_; }
  Ipopt::SolverReturn status() const { return status_; }

  bool get_nlp_info(Ipopt::Index& n, Ipopt::Index& m, Ipopt::Index& nnz_jac_g, Ipopt::Index& nnz_h_lag,
                    IndexStyleEnum& index_style) override {
    const long d = d_, mm = m_;
    n = static_cast<Ipopt::Index>(2 * d + 1);
    if (form_ == Form::PQ) {
      m = static_cast<Ipopt::Index>(mm + 1);
      nnz_jac_g = static_cast<Ipopt::Index>(mm * (2 * d + 1) + 2 * d);
      nnz_h_lag = static_cast<Ipopt::Index>(2 * d * d + d);  // pp and qq lower triangles, the qp block
    } else {
      m = static_cast<Ipopt::Index>(mm + 2 * d + 1);
      nnz_jac_g = static_cast<Ipopt::Index>(mm * (d + 1) + 4 * d + d);
      nnz_h_lag = static_cast<Ipopt::Index>(d * (d + 1) / 2);
    }
    index_style = C_STYLE;
    return true;
  }

  bool get_bounds_info(Ipopt::Index n, Ipopt::Number* x_l, Ipopt::Number* x_u, Ipopt::Index m, Ipopt::Number* g_l,
                       Ipopt::Number* g_u) override {
    const long d = d_;
    for (Ipopt::Index j = 0; j < n; ++j) {
      x_l[j] = -kInf;
      x_u[j] = kInf;
    }
    if (form_ == Form::PQ) {
      for (long j = 0; j < 2 * d; ++j) x_l[j] = 0.0;
    } else {
      for (long j = d; j < 2 * d; ++j) x_l[j] = 0.0;
    }
    for (Ipopt::Index r = 0; r < m; ++r) {
      g_l[r] = -kInf;
      g_u[r] = 0.0;
    }
    if (form_ == Form::XS)
      for (long j = 0; j < d; ++j) {  // x_j - s_j <= 0 and x_j + s_j >= 0
        g_l[m_ + d + j] = 0.0;
        g_u[m_ + d + j] = kInf;
      }
    g_u[m - 1] = kTau;
    return true;
  }

  bool get_starting_point(Ipopt::Index n, bool init_x, Ipopt::Number* x, bool, Ipopt::Number*, Ipopt::Number*, Ipopt::Index,
                          bool, Ipopt::Number*) override {
    if (!init_x) return false;
    // x = 0 (Ipopt moves p, q, s off their bounds), t = phi(0).
    std::fill(x, x + n, 0.0);
    x[n - 1] = mo_.phi(Vec::Zero(d_));
    return true;
  }

  bool eval_f(Ipopt::Index n, const Ipopt::Number* x, bool, Ipopt::Number& obj) override {
    obj = x[n - 1];
    return true;
  }
  bool eval_grad_f(Ipopt::Index n, const Ipopt::Number*, bool, Ipopt::Number* grad) override {
    std::fill(grad, grad + n, 0.0);
    grad[n - 1] = 1.0;
    return true;
  }

  bool eval_g(Ipopt::Index, const Ipopt::Number* x, bool new_x, Ipopt::Index, Ipopt::Number* g) override {
    update(x, new_x);
    const long d = d_;
    for (long i = 0; i < m_; ++i) g[i] = f_[i] - x[2 * d];
    if (form_ == Form::PQ) {
      double sum = 0.0;
      for (long j = 0; j < 2 * d; ++j) sum += x[j];
      g[m_] = sum;
    } else {
      for (long j = 0; j < d; ++j) {
        g[m_ + j] = x[j] - x[d + j];
        g[m_ + d + j] = x[j] + x[d + j];
      }
      double sum = 0.0;
      for (long j = d; j < 2 * d; ++j) sum += x[j];
      g[m_ + 2 * d] = sum;
    }
    return true;
  }

  bool eval_jac_g(Ipopt::Index, const Ipopt::Number* x, bool new_x, Ipopt::Index, Ipopt::Index, Ipopt::Index* row,
                  Ipopt::Index* col, Ipopt::Number* v) override {
    const long d = d_;
    Triplets put{row, col, v};
    if (!row) update(x, new_x);
    for (long i = 0; i < m_; ++i) {
      const double* gi = row ? nullptr : grad_[static_cast<std::size_t>(i)].data();
      for (long j = 0; j < d; ++j) put(i, j, gi ? gi[j] : 0.0);
      if (form_ == Form::PQ)
        for (long j = 0; j < d; ++j) put(i, d + j, gi ? -gi[j] : 0.0);
      put(i, 2 * d, -1.0);
    }
    if (form_ == Form::PQ) {
      for (long j = 0; j < 2 * d; ++j) put(m_, j, 1.0);
    } else {
      for (long j = 0; j < d; ++j) {
        put(m_ + j, j, 1.0);
        put(m_ + j, d + j, -1.0);
      }
      for (long j = 0; j < d; ++j) {
        put(m_ + d + j, j, 1.0);
        put(m_ + d + j, d + j, 1.0);
      }
      for (long j = 0; j < d; ++j) put(m_ + 2 * d, d + j, 1.0);
    }
    return true;
  }

  bool eval_h(Ipopt::Index, const Ipopt::Number*, bool, Ipopt::Number, Ipopt::Index, const Ipopt::Number* lambda, bool,
              Ipopt::Index, Ipopt::Index* row, Ipopt::Index* col, Ipopt::Number* v) override {
    const long d = d_;
    // The objective is linear: H = sum_i lambda_i Hess f_i, with Hess f_i = G_i in x.
    if (!row) {
      S_.setZero(d, d);
      for (long i = 0; i < m_; ++i) S_ += lambda[i] * mo_.G[static_cast<std::size_t>(i)];
    }
    Triplets put{row, col, v};
    for (long r = 0; r < d; ++r)
      for (long c = 0; c <= r; ++c) put(r, c, row ? 0.0 : S_(r, c));
    if (form_ == Form::PQ) {
      for (long r = 0; r < d; ++r) {
        for (long c = 0; c < d; ++c) put(d + r, c, row ? 0.0 : -S_(r, c));
        for (long c = 0; c <= r; ++c) put(d + r, d + c, row ? 0.0 : S_(r, c));
      }
    }
    return true;
  }

  void finalize_solution(Ipopt::SolverReturn status, Ipopt::Index, const Ipopt::Number* x, const Ipopt::Number*,
                         const Ipopt::Number*, Ipopt::Index, const Ipopt::Number*, const Ipopt::Number*, Ipopt::Number obj,
                         const Ipopt::IpoptData*, Ipopt::IpoptCalculatedQuantities*) override {
    status_ = status;
    x_ = primal(x);
    value_ = obj;
  }

  bool intermediate_callback(Ipopt::AlgorithmMode mode, Ipopt::Index, Ipopt::Number, Ipopt::Number, Ipopt::Number, Ipopt::Number,
                             Ipopt::Number, Ipopt::Number, Ipopt::Number, Ipopt::Number, Ipopt::Index,
                             const Ipopt::IpoptData* ip_data, Ipopt::IpoptCalculatedQuantities*) override {
    // In the restoration phase ip_data describes the restoration problem: no iterate of ours.
    if (!trace_ || !ip_data || mode != Ipopt::RegularMode) return true;
    const double wall = seconds_since(t0_), cpu = cpu_now() - c0_;
    // No variable is fixed, so Ipopt's internal x is this TNLP's x, in the same order.
    const auto* dv = dynamic_cast<const Ipopt::DenseVector*>(GetRawPtr(ip_data->curr()->x()));
    if (!dv) return true;
    const long n = 2 * d_ + 1;
    std::vector<double> full(static_cast<std::size_t>(n));
    if (dv->IsHomogeneous()) std::fill(full.begin(), full.end(), dv->Scalar());
    else std::copy(dv->Values(), dv->Values() + n, full.begin());
    trace_->x.push_back(primal(full.data()));
    trace_->wall.push_back(wall);
    trace_->cpu.push_back(cpu);
    return true;
  }

 private:
  /// x of the problem from the NLP's variables.
  Vec primal(const Ipopt::Number* z) const {
    Vec x(d_);
    for (long j = 0; j < d_; ++j) x[j] = form_ == Form::PQ ? z[j] - z[d_ + j] : z[j];
    return x;
  }
  void update(const Ipopt::Number* z, bool new_x) {
    if (!new_x && !f_.empty()) return;
    const Vec x = primal(z);
    f_.resize(static_cast<std::size_t>(m_));
    grad_.resize(static_cast<std::size_t>(m_));
    for (long i = 0; i < m_; ++i) {
      const auto& G = mo_.G[static_cast<std::size_t>(i)];
      const Vec Gx = G * x;
      f_[static_cast<std::size_t>(i)] = 0.5 * x.dot(Gx) - mo_.c[static_cast<std::size_t>(i)].dot(x) + 0.5 * mo_.s[static_cast<std::size_t>(i)];
      grad_[static_cast<std::size_t>(i)] = Gx - mo_.c[static_cast<std::size_t>(i)];
    }
  }

  const Moments& mo_;
  Form form_;
  IpoptTrace* trace_;
  long d_, m_;
  std::vector<double> f_;
  std::vector<Vec> grad_;
  Eigen::MatrixXd S_;
  Vec x_;
  double value_ = 0;
  Ipopt::SolverReturn status_ = Ipopt::INTERNAL_ERROR;
  Clock::time_point t0_ = Clock::now();
  double c0_ = 0;
};

struct DirectResult {
  std::string form;
  int status = -1, iterations = 0;
  double solve = 0, solve_cpu = 0, value = 0, phi = 0;
  Vec x;
  IpoptTrace trace;
};

DirectResult solve_direct(const Moments& mo, const std::string& form, double tol, bool adaptive, bool mehrotra) {
  DirectResult r;
  r.form = form;
  Ipopt::SmartPtr<EpigraphQcqp> nlp =
      new EpigraphQcqp(mo, form == "pq" ? EpigraphQcqp::Form::PQ : EpigraphQcqp::Form::XS, &r.trace);
  Ipopt::SmartPtr<Ipopt::IpoptApplication> app = IpoptApplicationFactory();
  app->Options()->SetIntegerValue("print_level", 0);
  app->Options()->SetStringValue("sb", "yes");
  app->Options()->SetNumericValue("tol", tol);
  app->Options()->SetIntegerValue("max_iter", 500);
  if (adaptive) app->Options()->SetStringValue("mu_strategy", "adaptive");
  // Meant for LPs and convex QPs; on this QCQP it ends far from phi* (the lower bound shows it).
  if (mehrotra) app->Options()->SetStringValue("mehrotra_algorithm", "yes");
  if (app->Initialize() != Ipopt::Solve_Succeeded) throw std::runtime_error("Ipopt did not initialize");
  const auto t0 = Clock::now();
  const double c0 = cpu_now();
  nlp->start_clock();
  const Ipopt::ApplicationReturnStatus st = app->OptimizeTNLP(Ipopt::GetRawPtr(nlp));
  r.solve = seconds_since(t0);
  r.solve_cpu = cpu_now() - c0;
  r.status = static_cast<int>(st);
  r.iterations = Ipopt::IsValid(app->Statistics()) ? app->Statistics()->IterationCount() : -1;
  r.x = into_ball(nlp->solution());
  r.value = nlp->value();
  r.phi = mo.phi(r.x);
  return r;
}

/// LB = min_{||s||_1 <= tau} max_i [f_i + g_i^T (s - x)] (a lower bound on phi* for convex f_i), with
/// Clp: columns p, q >= 0 (s = p - q), t free; rows t - g_i^T p + g_i^T q >= f_i - g_i^T x and
/// sum (p + q) <= tau.
double linearization_bound(const Vec& f, const Mat& J, const Vec& x) {
  const int m = static_cast<int>(f.size()), d = static_cast<int>(x.size());
  const int cols = 2 * d + 1, rows = m + 1;
  std::vector<CoinBigIndex> start;
  std::vector<int> index;
  std::vector<double> value;
  for (int c = 0; c < cols; ++c) {
    start.push_back(static_cast<CoinBigIndex>(index.size()));
    if (c < 2 * d) {
      const int j = c % d;
      const double sign = c < d ? -1.0 : 1.0;
      for (int i = 0; i < m; ++i) {
        index.push_back(i);
        value.push_back(sign * J(i, j));
      }
      index.push_back(m);
      value.push_back(1.0);
    } else {
      for (int i = 0; i < m; ++i) {
        index.push_back(i);
        value.push_back(1.0);
      }
    }
  }
  start.push_back(static_cast<CoinBigIndex>(index.size()));
  std::vector<double> col_lo(cols, 0.0), col_up(cols, COIN_DBL_MAX), obj(cols, 0.0), row_lo(rows, -COIN_DBL_MAX),
      row_up(rows, COIN_DBL_MAX);
  col_lo[2 * d] = -COIN_DBL_MAX;
  obj[2 * d] = 1.0;
  for (int i = 0; i < m; ++i) row_lo[i] = f[i] - J.row(i).dot(x);
  row_up[m] = kTau;
  CoinPackedMatrix matrix(true, rows, cols, start[cols], value.data(), index.data(), start.data(), nullptr);
  ClpSimplex lp;
  lp.setLogLevel(0);
  lp.setPrimalTolerance(1e-11);
  lp.setDualTolerance(1e-11);
  lp.loadProblem(matrix, col_lo.data(), col_up.data(), obj.data(), row_lo.data(), row_up.data());
  lp.dual();
  if (lp.status() != 0) throw std::runtime_error("the linearization LP did not solve (Clp status " + std::to_string(lp.status()) + ")");
  return lp.objectiveValue();
}

/// The oracle's exact pass, summed here over the generated rows in the oracle's order.
void exact_here(const std::vector<RowMat>& A, const std::vector<Vec>& b, const Vec& x, Vec& f, Mat& J) {
  const long m = static_cast<long>(A.size()), d = x.size();
  f.resize(m);
  J.setZero(m, d);
  for (long i = 0; i < m; ++i) {
    const long N = A[i].rows();
    const double inv_n = 1.0 / static_cast<double>(N);
    double sum = 0.0;
    for (long r = 0; r < N; ++r) {
      const double* a = A[i].row(r).data();
      double s = 0.0;
      for (long k = 0; k < d; ++k) s += a[k] * x[k];
      const double res = s - b[i][r];
      sum += res * res;
      const double scale = res * inv_n;
      for (long k = 0; k < d; ++k) J(i, k) += scale * a[k];
    }
    f[i] = 0.5 * inv_n * sum;
  }
}

std::string cell(long k, double wall, double cpu) {
  if (k < 0) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%ld, %.4f, %.4f", k, wall, cpu);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> rows_list = {1000, 10000, 100000, 1000000}, budgets = {1000, 10000, 100000};
  std::vector<std::string> methods = {"vanilla", "clipped", "variant1", "variant2", "storm", "variant1_convex", "variant2_convex"};
  std::vector<std::string> forms = {"pq", "xs"};
  long m = 10, d = 100, batch = 1, max_oracle_rows = 100000, max_stored_rows = 100000, block = 4096;
  std::uint64_t seed = 1;
  double threshold = 3.0;
  bool adaptive = false, mehrotra = false;
  Options opts;
  opts.add("--rows", rows_list).add("--K", budgets).add("--methods", methods).add("--formulations", forms);
  opts.add("--tasks", m).add("--dim", d).add("--batch", batch).add("--max-oracle-rows", max_oracle_rows);
  opts.add("--max-stored-rows", max_stored_rows).add("--block", block).add("--seed", seed);
  opts.add("--threshold", threshold).add("--mu-adaptive", adaptive).add("--mehrotra", mehrotra);
  if (!opts.parse(argc, argv)) return 2;
  for (const auto& f : forms)
    if (f != "pq" && f != "xs") {
      std::fprintf(stderr, "--formulations: unknown formulation %s (pq, xs)\n", f.c_str());
      return 2;
    }
  if (forms.empty() || m < 1 || d < 1 || block < 1 || batch < 1) {
    std::fprintf(stderr, "--formulations, --tasks, --dim, --block, --batch: expected at least one\n");
    return 2;
  }
  try {
    Registry registry;
    registry.load_path(Registry::search_path());
    std::printf("bench_direct_task1: Task 1, m = %ld tasks, d = %ld, tau = %g, data seed 1, run seed %llu, batch %ld%s%s\n", m, d,
                kTau, static_cast<unsigned long long>(seed), batch, adaptive ? ", Ipopt with mu_strategy adaptive" : "", mehrotra ? ", Ipopt with mehrotra_algorithm" : "");
    for (const long N : rows_list) {
      const bool with_oracle = N <= max_oracle_rows, stored = N <= max_stored_rows;
      Moments mo;
      mo.reset(m, d);
      double pass = 0.0, pass_cpu = 0.0, stream_pass = 0.0, stream_pass_cpu = 0.0;
      std::vector<RowMat> A;
      std::vector<Vec> b;
      {  // the data: in memory (then one timed pass), and in blocks with only the updates timed
        Generator gen(d, m, 1);
        Moments streamed;
        streamed.reset(m, d);
        RowMat blockA(block, d);
        Vec blockb(block);
        for (long i = 0; i < m; ++i) {
          gen.begin_task(i);
          if (stored) {
            A.emplace_back(N, d);
            b.emplace_back(N);
          }
          for (long r0 = 0; r0 < N; r0 += block) {
            const long r = std::min(block, N - r0);
            for (long j = 0; j < r; ++j) blockb[j] = gen.next(blockA.row(j).data());
            if (stored) {
              A.back().middleRows(r0, r) = blockA.topRows(r);
              b.back().segment(r0, r) = blockb.head(r);
            }
            const auto t0 = Clock::now();
            const double c0 = cpu_now();
            streamed.add(i, blockA.topRows(r), blockb.head(r));
            stream_pass += seconds_since(t0);
            stream_pass_cpu += cpu_now() - c0;
          }
        }
        streamed.finish(N);
        if (stored) {
          const auto t0 = Clock::now();
          const double c0 = cpu_now();
          for (long i = 0; i < m; ++i) mo.add(i, A[i], b[i]);
          mo.finish(N);
          pass = seconds_since(t0);
          pass_cpu = cpu_now() - c0;
          double diff = 0.0;
          for (long i = 0; i < m; ++i)
            diff = std::max(diff, (mo.G[i] - streamed.G[i]).cwiseAbs().maxCoeff() / mo.G[i].cwiseAbs().maxCoeff());
          if (diff > 1e-12) throw std::runtime_error("the in-memory and block moments differ by " + std::to_string(diff));
        } else {
          mo = std::move(streamed);
          pass = stream_pass;
          pass_cpu = stream_pass_cpu;
        }
      }
      std::printf("\nN = %ld rows per task (%ld rows, %.3g GB of data):\n", N, N * m, 8e-9 * static_cast<double>(N * m * (d + 1)));
      if (stored)
        std::printf("  one pass for the moments: in memory %.3f ms (CPU %.3f ms); in blocks of %ld rows %.3f ms (CPU %.3f ms)\n",
                    1e3 * pass, 1e3 * pass_cpu, block, 1e3 * stream_pass, 1e3 * stream_pass_cpu);
      else
        std::printf("  one pass for the moments, in blocks of %ld rows (not stored above %ld rows): %.3f ms (CPU %.3f ms)\n", block,
                    max_stored_rows, 1e3 * pass, 1e3 * pass_cpu);
      std::fflush(stdout);

      std::unique_ptr<Problem> problem;
      if (with_oracle) {
        const nlohmann::json problem_doc = {
            {"oracle",
             {{"plugin", "least_squares_tasks"},
              {"synthetic", {{"tasks", m}, {"dim", d}, {"rows_per_task", N}, {"seed", 1}}},
              {"batch", batch}}},
            {"outer", {{"plugin", "max"}}},
            {"domain", {{"plugin", "l1_ball"}, {"radius", kTau}}}};
        problem = std::make_unique<Problem>(compose_problem(registry, problem_doc, "bench_direct_task1", "."));
        // The same problem: the oracle's exact f and J at a fixed point, bitwise the sums here (or,
        // when the rows are not stored here, equal to f and G x - c from the moments to 1e-10).
        Vec x0(d);
        for (long j = 0; j < d; ++j) x0[j] = (j % 2 ? -1.0 : 1.0) * kTau / (2.0 * static_cast<double>(d)) * (1.0 + 0.01 * static_cast<double>(j));
        Vec fo(m);
        scfw::Jacobian Jo_j(m, d);
        problem->oracle->exact(x0, &fo, &Jo_j);
        const Mat& Jo = Jo_j.dense();
        double dm = 0.0, dg = 0.0;
        for (long i = 0; i < m; ++i) {
          dm = std::max(dm, std::abs(mo.f(i, x0) - fo[i]) / std::abs(fo[i]));
          const Vec g = mo.G[i] * x0 - mo.c[i];
          dg = std::max(dg, (g - Jo.row(i).transpose()).cwiseAbs().maxCoeff() / g.cwiseAbs().maxCoeff());
        }
        if (stored) {
          Vec fh;
          Mat Jh;
          exact_here(A, b, x0, fh, Jh);
          const double df = (fo - fh).cwiseAbs().maxCoeff(), dJ = (Jo - Jh).cwiseAbs().maxCoeff();
          if (df != 0.0 || dJ != 0.0)
            throw std::runtime_error("the oracle's data differ from the generated rows: f by " + std::to_string(df) + ", J by " +
                                     std::to_string(dJ));
        } else if (dm > 1e-10 || dg > 1e-10) {
          throw std::runtime_error("the oracle's exact f and J differ from the moments' by " + std::to_string(dm) + ", " + std::to_string(dg));
        }
        std::printf("  oracle data checked %s; f and J from the moments there: %.2e, %.2e relative\n",
                    stored ? "bitwise (exact f and J at a fixed point)" : "against the moments", dm, dg);
        A.clear();
        A.shrink_to_fit();
      }

      // The direct solves at tight tolerance; phi* and its certificate.
      std::vector<DirectResult> direct;
      for (const auto& f : forms) direct.push_back(solve_direct(mo, f, 1e-12, adaptive, mehrotra));
      double phi_star = std::numeric_limits<double>::infinity();
      Vec x_star;
      for (const auto& r : direct)
        if (r.phi < phi_star) {
          phi_star = r.phi;
          x_star = r.x;
        }
      Vec fs(m);
      scfw::Jacobian Js_j(m, d);
      Mat& Js = Js_j.dense();
      if (problem) {
        problem->oracle->exact(x_star, &fs, &Js_j);
      } else {
        for (long i = 0; i < m; ++i) {
          fs[i] = mo.f(i, x_star);
          Js.row(i) = (mo.G[i] * x_star - mo.c[i]).transpose();
        }
      }
      const double phi_oracle = fs.maxCoeff();
      const double lb = linearization_bound(fs, Js, x_star);
      std::printf("  %-6s %6s %6s %10s %10s %12s %12s %22s %22s\n", "direct", "status", "iters", "solve ms", "solve CPU",
                  "total ms", "total CPU ms", "Ipopt value", "phi(x) (feasible x)");
      for (const auto& r : direct)
        std::printf("  %-6s %6d %6d %10.3f %10.3f %12.3f %12.3f %22.15e %22.15e\n", r.form.c_str(), r.status, r.iterations,
                    1e3 * r.solve, 1e3 * r.solve_cpu, 1e3 * (pass + r.solve), 1e3 * (pass_cpu + r.solve_cpu), r.value, r.phi);
      std::printf("  phi* = %.15e (phi at x* from %s: %.15e); linearization bound LB = %.15e,\n"
                  "  (phi* - LB) / |phi*| = %.3e; ||x*||_1 = %.12f\n",
                  phi_star, problem ? "the oracle's exact pass" : "the moments", phi_oracle, lb, (phi_star - lb) / std::abs(phi_star),
                  x_star.lpNorm<1>());
      if ((phi_star - lb) / std::abs(phi_star) > 1e-5) std::printf("  NOT CERTIFIED: phi* is not within 1e-5 of the lower bound\n");
      if (direct.size() > 1)
        std::printf("  the two formulations: |phi difference| / |phi*| = %.3e, ||x_pq - x_xs||_inf = %.3e\n",
                    std::abs(direct[0].phi - direct[1].phi) / std::abs(phi_star), (direct[0].x - direct[1].x).cwiseAbs().maxCoeff());

      const double tolerances[] = {1e-2, 1e-3};
      // Time to an accuracy along the tight solve's iterations (the pass included).
      for (const auto& r : direct) {
        std::printf("  %s: pass + Ipopt to", r.form.c_str());
        for (const double tol : tolerances) {
          long hit = -1;
          for (std::size_t k = 0; k < r.trace.x.size(); ++k)
            if (mo.phi(into_ball(r.trace.x[k])) - phi_star <= tol * std::abs(phi_star)) {
              hit = static_cast<long>(k);
              break;
            }
          if (hit < 0) std::printf("  %g: -", tol);
          else
            std::printf("  %g: iteration %ld, %.3f ms (CPU %.3f ms)", tol, hit, 1e3 * (pass + r.trace.wall[static_cast<std::size_t>(hit)]),
                        1e3 * (pass_cpu + r.trace.cpu[static_cast<std::size_t>(hit)]));
        }
        std::printf("  (%zu iterations)\n", r.trace.x.size());
      }
      std::fflush(stdout);

      if (!problem || methods.empty()) continue;
      std::printf("  %-16s %7s | %-27s | %-27s | %-27s | %-27s | %8s %9s %10s %10s\n", "scfw", "K",
                  "1e-2 first: k, wall s, CPU", "1e-2 stays: k, wall s, CPU", "1e-3 first: k, wall s, CPU",
                  "1e-3 stays: k, wall s, CPU", "run s", "run CPU s", "best rel", "final rel");
      std::string solver_name;
      for (const auto& meth : methods) {
        for (const long K : budgets) {
          Method method = paper_method(registry, *problem, meth, K, threshold);
          const SolverOptions o = silent_run(K, seed);
          const long stride = (K + 19999) / 20000;
          const long stored = (K + stride - 1) / stride;  // iterations stride, 2 stride, ..., and K
          Eigen::MatrixXd ys(d, stored + 1);
          std::vector<long> iter;
          std::vector<double> wall, cpu;
          iter.reserve(static_cast<std::size_t>(stored + 1));
          wall.reserve(iter.capacity());
          cpu.reserve(iter.capacity());
          Solver s(*problem, method, o);
          double cpu0 = 0.0;
          s.add_callback([&](const IterationState& st) {
            if (st.iteration % stride == 0 || st.iteration == K) {
              const double c = cpu_now() - cpu0;
              ys.col(static_cast<long>(iter.size())) = *st.y;
              iter.push_back(st.iteration);
              wall.push_back(st.seconds);
              cpu.push_back(c);
            }
            return true;
          });
          cpu0 = cpu_now();
          const Summary sum = s.run();
          const double run_cpu = cpu_now() - cpu0;
          solver_name = sum.glmo_solver;
          // Outside the timed region: phi(y_k) from the moments.
          const std::vector<double> ph = mo.phi_columns(ys.leftCols(static_cast<long>(iter.size())));
          std::string cells[4];
          double best = std::numeric_limits<double>::infinity(), last = 0.0;
          for (int t = 0; t < 2; ++t) {
            const double lim = tolerances[t] * std::abs(phi_star);
            long first = -1, stays = -1;
            for (std::size_t k = 0; k < ph.size(); ++k) {
              const bool in = ph[k] - phi_star <= lim;
              if (in && first < 0) first = static_cast<long>(k);
              if (in && stays < 0) stays = static_cast<long>(k);
              if (!in) stays = -1;
            }
            cells[2 * t] = first < 0 ? "-" : cell(iter[first], wall[first], cpu[first]);
            cells[2 * t + 1] = stays < 0 ? "-" : cell(iter[stays], wall[stays], cpu[stays]);
          }
          for (const double v : ph) best = std::min(best, (v - phi_star) / std::abs(phi_star));
          last = (ph.back() - phi_star) / std::abs(phi_star);
          std::printf("  %-16s %7ld | %-27s | %-27s | %-27s | %-27s | %8.3f %9.3f %10.3e %10.3e\n", meth.c_str(), K, cells[0].c_str(),
                      cells[1].c_str(), cells[2].c_str(), cells[3].c_str(), sum.seconds, run_cpu, best, last);
          std::fflush(stdout);
        }
      }
      std::printf("  (scfw's GLMO: %s; phi(y_k) taken every %s iteration)\n", solver_name.c_str(),
                  budgets.empty() ? "" : "ceil(K / 20000)-th");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
