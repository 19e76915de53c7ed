#include "cold_clp.hpp"

#include "settings.hpp"

#include <ClpSimplex.hpp>
#include <scfw/helpers.hpp>

#include <algorithm>
#include <cmath>
#include <span>
#include <utility>

namespace scfw::lp {

ColdClp::ColdClp(const GlmoModel& g)
    : lp_(SparseLp::from_model(g.model, g.objective)),
      u_var_(g.u_var),
      objective_(g.objective),
      xmap_(g.xs),
      xvar_(xmap_, lp_.num_vars) {}

ColdClp::Result ColdClp::solve(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y,
                               scfw::Vec& x) const {
  SparseLp full = lp_;
  const int n = static_cast<int>(u_var_.size()), d = xmap_.dim();
  std::vector<std::pair<int, double>> terms;
  for (int i = 0; i < n; ++i) {
    double rhs = z[i];
    for (int j = 0; j < d; ++j) rhs -= V(i, j) * (y[j] - xmap_.c[static_cast<size_t>(j)]);
    terms.assign(1, {u_var_[static_cast<size_t>(i)], 1.0});
    for (int k = 0; k < xvar_.size(); ++k) {
      const double w = xvar_.w(V, i, k);
      if (w != 0.0) terms.emplace_back(xvar_.var[static_cast<size_t>(k)], -w);  // no explicit zeros
    }
    std::sort(terms.begin(), terms.end());
    full.add_row(terms, rhs, rhs);
  }
  ClpSimplex clp;
  clp.setLogLevel(0);
  load_clp(clp, full);
  clp.setLogLevel(0);
  // The engine's tolerances, not Clp's defaults (1e-7): at 1e-7 Clp accepts as optimal a vertex
  // whose reduced costs are off by up to 1e-7, and the value of such a vertex can be above the
  // optimum by far more than the 1e-9 the GLMOs are held to, so the reference would be the less
  // accurate of the two solves it is compared with.
  clp.setPrimalTolerance(kDefaults.primal_tol);
  clp.setDualTolerance(kDefaults.dual_tol);
  clp.dual();
  Result r;
  r.status = clp.status();
  r.iterations = clp.numberIterations();
  if (r.status == 0) {
    const std::span<const double> values(clp.primalColumnSolution(), static_cast<size_t>(full.num_vars));
    xmap_.evaluate(values, x);
    r.value = objective_.evaluate(values);
    // The scale of `cross_check`: the magnitude of the terms the value is a sum of. Those are
    // the objective's terms, and through the u-rows' duals (lambda_i = d value / d u_i at the
    // optimum) the terms of each u_i = z_i + V_i (x - y): |z_i| + sum_j |V_ij| (|x_j| + |y_j|),
    // x and y counted apart because every GLMO forms V_i y (the LP's right-hand side) and V_i x
    // (its columns) separately. Every code that computes the value in double precision, with
    // bounds and reduced costs held to 1e-9 of their own size, is off by a multiple of these
    // terms' size, not of the value's: a value that is a small difference of large terms (large
    // z, large V, a wide domain) agrees between two correct codes only to that scale.
    double scale = std::max(1.0, std::abs(r.value)), objective_terms = std::abs(objective_.constant());
    for (const auto& [v, c] : objective_.terms()) objective_terms += std::abs(c * values[static_cast<size_t>(v)]);
    double u_terms = 0.0;
    const double* dual = clp.dualRowSolution();
    for (int i = 0; i < n; ++i) {
      double t = std::abs(z[i]);
      for (int j = 0; j < d; ++j) t += std::abs(V(i, j)) * (std::abs(x[j]) + std::abs(y[j]));
      u_terms += std::abs(dual[lp_.num_rows + i]) * t;
    }
    r.scale = std::max({scale, objective_terms, u_terms});
  }
  return r;
}

ColdClp::Result ColdClp::solve_or_throw(const char* glmo, const scfw::Vec& z, const scfw::Mat& V,
                                        const scfw::Vec& y, scfw::Vec& x) const {
  const Result r = solve(z, V, y, x);
  if (r.status == 1) throw scfw::Error(infeasible_lp_message(glmo, "the GLMO LP"));
  if (r.status == 2) throw scfw::Error(std::string(glmo) + ": the GLMO LP is unbounded");
  if (r.status != 0)
    throw scfw::Error(std::string(glmo) + ": the GLMO LP solve failed (Clp status " + std::to_string(r.status) + ")");
  return r;
}

void ColdClp::check(const char* glmo, long solve_index, double value, const scfw::Vec& z, const scfw::Mat& V,
                    const scfw::Vec& y) const {
  scfw::Vec xr(xmap_.dim());
  const Result ref = solve(z, V, y, xr);
  if (ref.status == 0 && std::abs(value - ref.value) <= kDefaults.clp_agreement * ref.scale)
    return;
  throw scfw::Error(std::string(glmo) + ": disagrees with Clp at solve " + std::to_string(solve_index) + ": " + glmo +
                    " " + scfw::format_number(value, 17) + ", Clp " + scfw::format_number(ref.value, 17) + " (status " +
                    std::to_string(ref.status) + ")");
}

}  // namespace scfw::lp
