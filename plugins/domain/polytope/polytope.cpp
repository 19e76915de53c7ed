// Domain `polytope`: X = {x in R^d : A x <= b}, a bounded polyhedron given inline (`A` row-major
// m x d, `b` of length m) or as a CSV file `file` (one row a_1,...,a_d,b per line; blank lines
// and lines starting with '#' are skipped; relative paths resolve against the problem file).
//
//   model:  x_j free (bounded by the box found at construction) and the m rows A x <= b.
//   LMO:    argmin_{A x <= b} <g, x>, one LP solved with Clp's primal simplex, warm-started from
//           the previous call's basis.
// At construction the polytope is checked to be non-empty and bounded by solving min and max of
// every coordinate (2d LPs); their solutions give the bounding box [lo, hi]. The initial point
// is the average of those 2d vertices (a convex combination, hence in X); the box also bounds the
// model's x variables.
#include <scfw/data_file.hpp>
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <ClpSimplex.hpp>

#include "clp_state.hpp"  // Clp warm state for checkpoints (scfw_lp, shared with the clp GLMO)
#include "glmo_lp.hpp"    // kLpLimit

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Rows of the CSV file: each `a_1,...,a_d,b`. d is fixed by the first data line (or `expect_d`).
// Coefficients and right-hand sides must be below kCoefficientLimit in magnitude: the limit the LP
// GLMOs put on the numbers they hand to an LP solver. Clp, which bounds the polytope and solves its
// LMO, aborts the process on much larger ones (a right-hand side of -1e300 failed an assertion
// inside ClpSimplexPrimal) and takes a bound of 1e20 for no bound (a box of half-width 1e20 was
// reported unbounded, 9.99e19 was not), so they are refused as input.
constexpr double kCoefficientLimit = scfw::lp::kLpLimit;

void read_csv(const std::string& path, int expect_d, std::vector<double>& A, std::vector<double>& b, int& d) {
  scfw::check_data_path(path);
  std::ifstream in;
  scfw::open_data_file(in, path);
  std::string line;
  int number = 0;
  d = expect_d;
  while (std::getline(in, line)) {
    ++number;
    const std::string t = scfw::trim_field(line);
    if (t.empty() || t[0] == '#') continue;
    std::vector<double> values;
    std::stringstream ss(t);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
      const std::string c = scfw::trim_field(cell);
      double v = 0.0;
      if (!scfw::parse_finite(c, v))
        throw scfw::InputError(path + ":" + std::to_string(number) + ": not a finite number: \"" + scfw::excerpt(c) + "\"");
      if (std::abs(v) >= kCoefficientLimit)
        throw scfw::InputError(path + ":" + std::to_string(number) + ": \"" + scfw::excerpt(c) +
                               "\" is not below 1e20 in magnitude, as an LP's coefficients and right-hand sides "
                               "must be");
      values.push_back(v);
    }
    if (!t.empty() && t.back() == ',')
      throw scfw::InputError(path + ":" + std::to_string(number) + ": not a finite number: \"\"");
    if (d < 1) {
      if (values.size() < 2)
        throw scfw::InputError(path + ":" + std::to_string(number) + ": expected a_1, ..., a_d, b with d >= 1, got " +
                               std::to_string(values.size()) + " number(s)");
      d = static_cast<int>(values.size()) - 1;
    }
    if (static_cast<int>(values.size()) != d + 1)
      throw scfw::InputError(path + ":" + std::to_string(number) + ": expected " + std::to_string(d + 1) +
                             " numbers (a_1, ..., a_" + std::to_string(d) + ", b), got " + std::to_string(values.size()));
    A.insert(A.end(), values.begin(), values.end() - 1);
    b.push_back(values.back());
  }
  if (b.empty()) throw scfw::InputError(path + ": no constraint rows");
}

class Polytope final : public scfw::Domain {
 public:
  Polytope(const scfw::Params& p, const scfw::Context& c) {
    // The dimension when "dim" or the oracle gives it (checked as for every domain); otherwise the
    // rows fix it.
    const int expect_d = p.has("dim") || c.dim >= 1 ? scfw::domain_dimension(p, c) : c.dim;
    const bool inline_rows = p.has("A") || p.has("b");
    if (inline_rows && p.has("file")) p.fail("file", "give either \"A\" and \"b\" or \"file\", not both");
    if (p.has("file")) {
      const std::filesystem::path path(scfw::locate_data_file(p, "file", c.base_dir));
      read_csv(path.string(), expect_d, A_, b_, d_);
      if (expect_d >= 1 && d_ != expect_d)
        throw scfw::InputError(path.string() + ": the rows have " + std::to_string(d_) +
                               " coefficients but the dimension is " + std::to_string(expect_d));
    } else {
      if (!p.has("A")) p.fail("A", "required: the constraint matrix (row-major), or give \"file\"");
      if (!p.has("b")) p.fail("b", "required: the right-hand sides, or give \"file\"");
      A_ = p.get<std::vector<double>>("A");
      b_ = p.get<std::vector<double>>("b");
      if (b_.empty()) p.fail("b", "expected at least one right-hand side");
      if (A_.size() % b_.size() != 0 || A_.empty())
        p.fail("A", "has " + std::to_string(A_.size()) + " numbers, not a multiple of the " +
                        std::to_string(b_.size()) + " rows of b");
      const auto below_limit = [&p](const char* key, const std::vector<double>& v) {
        for (size_t k = 0; k < v.size(); ++k)
          if (std::abs(v[k]) >= kCoefficientLimit)
            p.fail(key, "entry " + std::to_string(k) + " = " + scfw::format_number(v[k]) +
                            " is not below 1e20 in magnitude, as an LP's coefficients and right-hand sides must be");
      };
      below_limit("A", A_);
      below_limit("b", b_);
      d_ = static_cast<int>(A_.size() / b_.size());
      if (expect_d >= 1 && d_ != expect_d)
        p.fail("A", "has " + std::to_string(d_) + " columns (" + std::to_string(A_.size()) + " numbers / " +
                        std::to_string(b_.size()) + " rows) but the dimension is " + std::to_string(expect_d));
    }
    // build_lp() copies A into Clp (by columns: index + value, with row and column arrays);
    // bound_box() keeps the bounding box and a start (d each).
    const auto m = static_cast<std::int64_t>(b_.size());
    c.memory.reserve(scfw::add_bytes(scfw::bytes_of({m, d_, 12}), scfw::bytes_of({m + d_, 64})),
                     "the LMO's LP (" + std::to_string(m) + " rows x " + std::to_string(d_) + " columns)");
    build_lp();
    bound_box(p);
  }

  int dim() const override { return d_; }

  std::vector<scfw::Expr> model(scfw::Model& m) const override {
    std::vector<scfw::Expr> xs;
    xs.reserve(static_cast<size_t>(d_));
    for (int j = 0; j < d_; ++j) xs.emplace_back(m.add_var(lo_[j], hi_[j], "x[" + std::to_string(j) + "]"));
    const int rows = static_cast<int>(b_.size());
    for (int r = 0; r < rows; ++r) {
      scfw::Expr e;
      for (int j = 0; j < d_; ++j) {
        const double a = A_[static_cast<size_t>(r) * d_ + j];
        if (a != 0.0) e += a * xs[static_cast<size_t>(j)];
      }
      m.add_row(std::move(e), -scfw::inf, b_[static_cast<size_t>(r)]);
    }
    return xs;
  }

  void lmo(const scfw::Gradient& grad, scfw::Atom& s) const override {
    if (grad.dim() != d_) throw scfw::Error("polytope: lmo direction has size " + std::to_string(grad.dim()));
    solve_lp(grad.to_dense(g_), s.set_dense(d_));
  }

  // Checkpoints: the LMO's warm start is Clp's basis and solution arrays.
  scfw::Capabilities capabilities() const override { return Domain::capabilities() | scfw::Capability::SavedState; }
  void save_state(scfw::StateWriter& w) const override {
    scfw::lp::save_clp_state(*lp_, w);
  }
  void load_state(scfw::StateReader& r) override {
    scfw::lp::load_clp_state(*lp_, r);
  }

  scfw::Vec initial_point() const override { return start_; }

  bool contains(const scfw::Vec& x, double tol) const override {
    if (x.size() != d_ || !x.allFinite()) return false;
    for (size_t r = 0; r < b_.size(); ++r) {
      double s = 0.0;
      for (int j = 0; j < d_; ++j) s += A_[r * d_ + j] * x[j];
      if (s > b_[r] + tol * (1.0 + std::abs(b_[r]))) return false;
    }
    return true;
  }

 private:
  void build_lp() {
    const int m = static_cast<int>(b_.size());
    std::vector<CoinBigIndex> start(1, 0);
    std::vector<int> index;
    std::vector<double> value;
    for (int j = 0; j < d_; ++j) {
      for (int r = 0; r < m; ++r) {
        const double a = A_[static_cast<size_t>(r) * d_ + j];
        if (a != 0.0) {
          index.push_back(r);
          value.push_back(a);
        }
      }
      start.push_back(static_cast<CoinBigIndex>(index.size()));
    }
    std::vector<double> col_lo(d_, -COIN_DBL_MAX), col_up(d_, COIN_DBL_MAX), cost(d_, 0.0), row_lo(m, -COIN_DBL_MAX);
    lp_ = std::make_unique<ClpSimplex>();
    lp_->setLogLevel(0);
    lp_->loadProblem(d_, m, start.data(), index.data(), value.data(), col_lo.data(), col_up.data(), cost.data(),
                     row_lo.data(), b_.data());
    lp_->setLogLevel(0);
  }

  // Returns the Clp status (0 optimal, 1 infeasible, 2 unbounded).
  int solve_raw(const scfw::Vec& g, scfw::Vec& x) const {
    for (int j = 0; j < d_; ++j) lp_->setObjectiveCoefficient(j, g[j]);
    lp_->primal();
    const int status = lp_->status();
    if (status == 0) {
      x.resize(d_);
      const double* sol = lp_->primalColumnSolution();
      for (int j = 0; j < d_; ++j) x[j] = sol[j];
    }
    return status;
  }

  void solve_lp(const scfw::Vec& g, scfw::Vec& x) const {
    int status = solve_raw(g, x);
    if (status != 0 && status != 1 && status != 2) {  // numerical trouble: once more from scratch
      lp_->allSlackBasis(true);
      status = solve_raw(g, x);
    }
    if (status == 1) throw scfw::Error("polytope: the LMO LP is infeasible (the polytope is empty)");
    if (status == 2) throw scfw::Error("polytope: the LMO LP is unbounded (the polytope is not bounded)");
    if (status != 0) throw scfw::Error("polytope: the LMO LP failed (Clp status " + std::to_string(status) + ")");
  }

  void bound_box(const scfw::Params& p) {
    lo_.resize(d_);
    hi_.resize(d_);
    start_ = scfw::Vec::Zero(d_);
    scfw::Vec g = scfw::Vec::Zero(d_), x;
    const std::string where = p.has("file") ? p.where("file") : p.where("A");
    for (int j = 0; j < d_; ++j) {
      for (int sign : {1, -1}) {
        g.setZero();
        g[j] = sign;
        const int status = solve_raw(g, x);
        if (status == 1) throw scfw::InputError(where + ": the polytope {x : A x <= b} is empty");
        if (status == 2)
          throw scfw::InputError(where + ": the polytope {x : A x <= b} is unbounded (x[" + std::to_string(j) + "] " +
                                 (sign > 0 ? "has no lower bound" : "has no upper bound") + ")");
        if (status != 0) throw scfw::Error("polytope: Clp failed (status " + std::to_string(status) + ") while bounding x[" + std::to_string(j) + "]");
        (sign > 0 ? lo_ : hi_)[j] = x[j];
        start_ += x;
      }
    }
    start_ /= 2.0 * d_;
  }

  std::vector<double> A_, b_;
  int d_ = 0;
  scfw::Vec lo_, hi_, start_;
  std::unique_ptr<ClpSimplex> lp_;  // LMO state (warm basis); mutable through the pointer
  mutable scfw::Vec g_;             // a sparse gradient made dense
};

void register_components(scfw::Registrar& r) {
  using scfw::ParamSpec;
  r.add<Polytope>("polytope",
                  "X = {x : A x <= b}, a bounded polytope (inline A, b or a CSV file); LMO by Clp",
                  {ParamSpec::number_list("A", "constraint matrix, row-major, m * d numbers"),
                   ParamSpec::number_list("b", "right-hand sides, m numbers"),
                   ParamSpec::string("file", "CSV file, one row a_1,...,a_d,b per line (relative to the problem file)"),
                   ParamSpec::integer("dim", "dimension d (optional: must equal the oracle's d)").at_least(1)});
}

}  // namespace

SCFW_PLUGIN("polytope", SCFW_PLUGIN_VERSION, register_components)
