// GLMO `column_generation`: x = argmin_{x in X} F(z + V (x - y), x) for domains known only
// through an LMO (e.g. `nuclear_ball`), by Dantzig-Wolfe column generation.
//
// Restricted master LP over the atoms s_1..s_K found so far (points of X returned by the LMO,
// plus the domain's initial point):
//
//   min  F's model objective(u, x)
//   s.t. x_j - sum_a lambda_a s_a[j]          = 0                  (x-rows, pi_x; only when F
//                                                                   depends on x)
//        u_i - sum_a lambda_a (V s_a)_i       = z_i - (V y)_i      (u-rows, pi_u)
//        sum_a lambda_a                       = 1                  (convexity row, pi_0)
//        lambda >= 0, F's epigraph rows on (u, x)
//
// Pricing. With Clp's row duals pi (reduced cost = c - A^T pi), a new atom s has reduced cost
//   rc(s) = (V^T pi_u + pi_x)^T s - pi_0,
// minimized over X by one LMO call with g = V^T pi_u + pi_x. Since every x in X is a convex
// combination of atoms (sum lambda = 1), the optimum of the full problem is at least
//   lower_bound = master value + min(0, min_s rc(s))
// (the Lagrangian / Farley bound). We stop when value - lower_bound <= tolerance * max(1,
// |value|) (certified), or after max_rounds pricing rounds (the bound returned is then the last
// one computed), or when the LMO returns an atom already in the master (numerical stall).
//
// Atoms are kept across solves (the master of the next iteration starts with them: Frank-Wolfe
// problems drift slowly). When there are more than `max_atoms`, the atoms with zero weight in the
// last solution are dropped, oldest first. Each solve's master is rebuilt (V, z, y changed) and
// started from the previous solve's optimal basis when the columns are the same (`warm_start`).
//
// GlmoResult::iterations = pricing rounds + total Clp simplex iterations of this solve.
#include <scfw/scfw.hpp>

#include <ClpSimplex.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace {

double clp_bound(double v) {
  if (v == scfw::inf) return COIN_DBL_MAX;
  if (v == -scfw::inf) return -COIN_DBL_MAX;
  return v;
}

class ColumnGeneration final : public scfw::Glmo {
 public:
  ColumnGeneration(const scfw::Params& p, const scfw::Context&) {
    tol_ = p.has("tolerance") ? p.number("tolerance") : 1e-7;
    if (!(tol_ > 0.0) || !std::isfinite(tol_)) p.fail("tolerance", "expected a number > 0");
    max_rounds_ = p.has("max_rounds") ? static_cast<int>(p.integer("max_rounds")) : 500;
    if (max_rounds_ < 1) p.fail("max_rounds", "expected an integer >= 1");
    max_atoms_ = p.has("max_atoms") ? static_cast<int>(p.integer("max_atoms")) : 200;
    if (max_atoms_ < 1) p.fail("max_atoms", "expected an integer >= 1");
    warm_ = p.has("warm_start") ? p.boolean("warm_start") : true;
  }

  void setup(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d) override {
    if (n < 1 || d < 1)
      throw scfw::Error("column_generation: needs n >= 1 and d >= 1, got n = " + std::to_string(n) +
                        ", d = " + std::to_string(d));
    if (domain.dim() != d)
      throw scfw::Error("column_generation: the domain has dimension " + std::to_string(domain.dim()) +
                        ", expected d = " + std::to_string(d));
    outer_ = &outer;
    domain_ = &domain;
    n_ = n;
    d_ = d;
    with_x_ = outer.traits().depends_on_x;
    atoms_.clear();
    atoms_.push_back(domain.initial_point());
    status_.clear();
    if (atoms_.back().size() != d) throw scfw::Error("column_generation: the domain's initial point has the wrong size");
    last_rounds_ = 0;
  }

  scfw::GlmoResult solve(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y, scfw::Vec& x) override;

  std::string describe() const override {
    std::ostringstream os;
    os << "column_generation (restricted master LP with Clp, pricing by the domain's LMO; tolerance " << tol_
       << ", at most " << max_atoms_ << " atoms kept, " << (warm_ ? "warm" : "cold") << " start)";
    return os.str();
  }

 private:
  // Adds atom s's column to the master.
  void add_column(const scfw::Vec& s, const scfw::Mat& V) {
    rows_.clear();
    vals_.clear();
    if (with_x_)
      for (int j = 0; j < d_; ++j)
        if (s[j] != 0.0) {
          rows_.push_back(x_row_ + j);
          vals_.push_back(-s[j]);
        }
    vs_.noalias() = V * s;
    for (int i = 0; i < n_; ++i)
      if (vs_[i] != 0.0) {
        rows_.push_back(u_row_ + i);
        vals_.push_back(-vs_[i]);
      }
    rows_.push_back(conv_row_);
    vals_.push_back(1.0);
    lp_->addColumn(static_cast<int>(rows_.size()), rows_.data(), vals_.data(), 0.0, COIN_DBL_MAX, 0.0);
  }

  void build_master(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y);

  double tol_ = 1e-7;
  int max_rounds_ = 500;
  int max_atoms_ = 200;
  const scfw::OuterFunction* outer_ = nullptr;
  const scfw::Domain* domain_ = nullptr;
  int n_ = 0, d_ = 0;
  bool with_x_ = false;
  std::vector<scfw::Vec> atoms_;
  std::vector<unsigned char> status_;  // the last optimal basis (Clp status array)
  bool warm_ = true;
  std::unique_ptr<ClpSimplex> lp_;
  int x_row_ = 0, u_row_ = 0, conv_row_ = 0, first_lambda_ = 0;
  scfw::Expr objective_;
  std::vector<scfw::Expr> xs_;
  long last_rounds_ = 0;
  std::vector<int> rows_;
  std::vector<double> vals_;
  scfw::Vec vs_;
};

void ColumnGeneration::build_master(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y) {
  // Model: the x variables (free), the u variables (free), the rows, then F's epigraph. The lambda
  // columns are added afterwards with addColumn, one per atom; they are LP columns
  // first_lambda_ .. first_lambda_ + K - 1.
  scfw::Model m;
  std::vector<scfw::Expr> u;
  xs_.clear();
  xs_.reserve(static_cast<size_t>(d_));
  std::vector<scfw::Var> xv;
  for (int j = 0; j < d_ && with_x_; ++j) {
    xv.push_back(m.add_var(-scfw::inf, scfw::inf, "x[" + std::to_string(j) + "]"));
    xs_.emplace_back(xv.back());
  }
  if (!with_x_) xs_.assign(static_cast<size_t>(d_), scfw::Expr(0.0));  // F does not read x
  for (int i = 0; i < n_; ++i) u.emplace_back(m.add_var(-scfw::inf, scfw::inf, "u[" + std::to_string(i) + "]"));
  x_row_ = 0;
  if (with_x_)
    for (int j = 0; j < d_; ++j) m.add_row(scfw::Expr(xv[static_cast<size_t>(j)]), 0.0, 0.0);
  u_row_ = static_cast<int>(m.rows().size());
  const scfw::Vec rhs = z - V * y;
  for (int i = 0; i < n_; ++i) m.add_row(u[static_cast<size_t>(i)], rhs[i], rhs[i]);
  conv_row_ = static_cast<int>(m.rows().size());
  m.add_row(scfw::Expr(0.0), 1.0, 1.0);
  objective_ = outer_->model(m, u, xs_);
  if (!m.cones().empty())
    throw scfw::CapabilityError("column_generation: the outer function's model has second-order cones; the "
                                "restricted master is solved by Clp as a linear program");
  objective_.normalize();

  const int num_vars = m.num_vars(), num_rows = static_cast<int>(m.rows().size());
  std::vector<std::vector<std::pair<int, double>>> cols(static_cast<size_t>(num_vars));
  for (int r = 0; r < num_rows; ++r) {
    scfw::Expr e = m.rows()[static_cast<size_t>(r)].expr;
    e.normalize();
    if (e.constant() != 0.0)
      throw scfw::Error("column_generation: internal: a model row has a constant term");  // add_row folds it? guard
    for (const auto& [v, a] : e.terms()) cols[static_cast<size_t>(v)].emplace_back(r, a);
  }
  std::vector<CoinBigIndex> start(1, 0);
  std::vector<int> index;
  std::vector<double> value;
  for (const auto& col : cols) {
    for (const auto& [r, a] : col) {
      index.push_back(r);
      value.push_back(a);
    }
    start.push_back(static_cast<CoinBigIndex>(index.size()));
  }
  std::vector<double> col_lo(static_cast<size_t>(num_vars)), col_up(static_cast<size_t>(num_vars)),
      cost(static_cast<size_t>(num_vars), 0.0), row_lo(static_cast<size_t>(num_rows)), row_up(static_cast<size_t>(num_rows));
  for (int v = 0; v < num_vars; ++v) {
    col_lo[static_cast<size_t>(v)] = clp_bound(m.lower(v));
    col_up[static_cast<size_t>(v)] = clp_bound(m.upper(v));
  }
  for (const auto& [v, c] : objective_.terms()) cost[static_cast<size_t>(v)] = c;
  for (int r = 0; r < num_rows; ++r) {
    row_lo[static_cast<size_t>(r)] = clp_bound(m.rows()[static_cast<size_t>(r)].lower);
    row_up[static_cast<size_t>(r)] = clp_bound(m.rows()[static_cast<size_t>(r)].upper);
  }
  lp_ = std::make_unique<ClpSimplex>();
  lp_->setLogLevel(0);
  lp_->loadProblem(num_vars, num_rows, start.data(), index.data(), value.data(), col_lo.data(), col_up.data(),
                   cost.data(), row_lo.data(), row_up.data());
  lp_->setLogLevel(0);
  first_lambda_ = num_vars;
  vs_.resize(n_);
  for (const scfw::Vec& s : atoms_) add_column(s, V);
  // Warm start: the master has the same rows and columns as at the end of the previous solve
  // when no atom was dropped since; start from that solve's optimal basis.
  if (warm_ && static_cast<int>(status_.size()) == lp_->numberRows() + lp_->numberColumns())
    lp_->copyinStatus(status_.data());
}

scfw::GlmoResult ColumnGeneration::solve(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y, scfw::Vec& x) {
  if (!outer_) throw scfw::Error("column_generation: solve() called before setup()");
  if (z.size() != n_ || V.rows() != n_ || V.cols() != d_ || y.size() != d_)
    throw scfw::Error("column_generation: solve() got z, V, y of sizes " + std::to_string(z.size()) + ", " +
                      std::to_string(V.rows()) + "x" + std::to_string(V.cols()) + ", " + std::to_string(y.size()) +
                      "; set up for n = " + std::to_string(n_) + ", d = " + std::to_string(d_));
  build_master(z, V, y);

  scfw::GlmoResult result;
  long simplex_iterations = 0;
  int rounds = 0;
  scfw::Vec g(d_), s(d_);
  double value = 0.0, bound = -scfw::inf;
  while (true) {
    lp_->primal();  // after addColumn: from the previous basis (warm)
    simplex_iterations += lp_->numberIterations();
    const int status = lp_->status();
    if (status == 1) throw scfw::Error("column_generation: the restricted master LP is infeasible");
    if (status == 2) throw scfw::Error("column_generation: the restricted master LP is unbounded (the outer function's model is unbounded below)");
    if (status != 0)
      throw scfw::Error("column_generation: the restricted master LP solve failed (Clp status " + std::to_string(status) + ")");
    value = lp_->objectiveValue() + objective_.constant();
    if (rounds >= max_rounds_) break;
    ++rounds;

    const double* pi = lp_->dualRowSolution();
    g.noalias() = V.transpose() * Eigen::Map<const scfw::Vec>(pi + u_row_, n_);
    if (with_x_) g += Eigen::Map<const scfw::Vec>(pi + x_row_, d_);
    domain_->lmo(g, s);
    const double rc = g.dot(s) - pi[conv_row_];
    bound = std::max(bound, value + std::min(0.0, rc));
    if (value - bound <= tol_ * std::max(1.0, std::abs(value))) break;
    bool known = false;
    for (const scfw::Vec& a : atoms_)
      if ((a - s).lpNorm<Eigen::Infinity>() <= 1e-12 * std::max(1.0, s.lpNorm<Eigen::Infinity>())) {
        known = true;
        break;
      }
    if (known) break;  // a stall: the master cannot improve with this atom
    atoms_.push_back(s);
    add_column(s, V);
  }
  if (bound == -scfw::inf) bound = value;  // max_rounds reached before any pricing (never with >= 1)

  // x and the atoms' weights.
  const double* sol = lp_->primalColumnSolution();
  const int K = static_cast<int>(atoms_.size());
  x.setZero(d_);
  std::vector<double> lambda(static_cast<size_t>(K));
  for (int a = 0; a < K; ++a) {
    lambda[static_cast<size_t>(a)] = std::max(0.0, sol[first_lambda_ + a]);
    if (lambda[static_cast<size_t>(a)] > 0.0) x += lambda[static_cast<size_t>(a)] * atoms_[static_cast<size_t>(a)];
  }
  double total = 0.0;
  for (double l : lambda) total += l;
  if (total > 0.0) x /= total;

  // The final basis, for the next solve's warm start (forgotten when atoms are dropped).
  const unsigned char* st = lp_->statusArray();
  status_.assign(st, st + lp_->numberRows() + lp_->numberColumns());
  // Drop unused atoms, oldest first, beyond max_atoms.
  if (K > max_atoms_) {
    status_.clear();
    int excess = K - max_atoms_;
    std::vector<scfw::Vec> kept;
    kept.reserve(static_cast<size_t>(K));
    for (int a = 0; a < K; ++a) {
      if (excess > 0 && lambda[static_cast<size_t>(a)] <= 0.0) {
        --excess;
        continue;
      }
      kept.push_back(std::move(atoms_[static_cast<size_t>(a)]));
    }
    atoms_ = std::move(kept);
  }

  result.value = value;
  result.lower_bound = std::min(bound, value);
  result.iterations = rounds + simplex_iterations;
  last_rounds_ = rounds;
  return result;
}

void register_components(scfw::Registrar& r) {
  using scfw::ParamSpec;
  r.add<ColumnGeneration>(
      scfw::Kind::Glmo, "column_generation",
      "x = argmin_{x in X} F(z + V (x - y), x) by column generation: a Clp master LP over LMO atoms, priced "
      "with its duals; certified lower bound (for domains known only through an LMO)",
      {ParamSpec::number("tolerance", "stop when value - lower_bound <= tolerance * max(1, |value|)").positive().def(1e-7),
       ParamSpec::integer("max_rounds", "at most this many pricing rounds (LMO calls) per solve").range(1, scfw::inf).def(500),
       ParamSpec::integer("max_atoms", "atoms kept across solves; beyond it unused atoms are dropped, oldest first")
           .range(1, scfw::inf)
           .def(200),
       ParamSpec::boolean("warm_start", "start each solve's master from the previous solve's optimal basis").def(true)});
}

}  // namespace

SCFW_PLUGIN("column_generation", "0.1.0", register_components)
