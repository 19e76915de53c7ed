// The warm state of a ClpSimplex for checkpoints (scfw/state.hpp): the basis status of every row
// and column, the primal and dual solution arrays, the dual bound and infeasibility cost, and the
// problem status. Restored on a model of the same size, the next warm solve takes the same pivots
// as the uninterrupted run. Shared by the `clp` GLMO and the `polytope` domain's LMO (header-only:
// the polytope plugin does not link the GLMOs' LP library).
#pragma once

#include <ClpSimplex.hpp>
#include <scfw/state.hpp>

#include <algorithm>
#include <vector>

namespace scfw::lp {

inline void save_clp_state(ClpSimplex& lp, scfw::StateWriter& w) {
  const int rows = lp.numberRows(), cols = lp.numberColumns();
  auto array = [](const double* p, int n) { return std::vector<double>(p, p + n); };
  w.put("clp_status", std::vector<unsigned char>(lp.statusArray(), lp.statusArray() + rows + cols));
  w.put("clp_columns", array(lp.primalColumnSolution(), cols));
  w.put("clp_rows", array(lp.primalRowSolution(), rows));
  w.put("clp_duals", array(lp.dualRowSolution(), rows));
  w.put("clp_reduced", array(lp.dualColumnSolution(), cols));
  w.put("clp_bounds", std::vector<double>{lp.dualBound(), lp.infeasibilityCost()});
  w.put("clp_problem_status", std::vector<int>{lp.status(), lp.secondaryStatus()});
}

inline void load_clp_state(ClpSimplex& lp, scfw::StateReader& r) {
  const int rows = lp.numberRows(), cols = lp.numberColumns();
  auto take = [&](const char* name, double* to, int count) {
    std::vector<double> v(static_cast<size_t>(count));
    r.get_same_size(name, v);
    std::copy(v.begin(), v.end(), to);
  };
  std::vector<unsigned char> status(static_cast<size_t>(rows + cols));
  r.get_same_size("clp_status", status);
  lp.copyinStatus(status.data());
  take("clp_columns", lp.primalColumnSolution(), cols);
  take("clp_rows", lp.primalRowSolution(), rows);
  take("clp_duals", lp.dualRowSolution(), rows);
  take("clp_reduced", lp.dualColumnSolution(), cols);
  std::vector<double> bounds(2);
  r.get_same_size("clp_bounds", bounds);
  lp.setDualBound(bounds[0]);
  lp.setInfeasibilityCost(bounds[1]);
  std::vector<int> st(2);
  r.get_same_size("clp_problem_status", st);
  lp.setProblemStatus(st[0]);
  lp.setSecondaryStatus(st[1]);
}

}  // namespace scfw::lp
