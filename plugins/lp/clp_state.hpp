// The warm state of a ClpSimplex for checkpoints (scfw/state.hpp): the basis status of every row
// and column, the primal and dual solution arrays, the dual bound and infeasibility cost, and the
// problem status. Restored on a model of the same size, the next warm solve takes the same pivots
// as the uninterrupted run. Shared by the `clp` GLMO and the `polytope` domain's LMO (header-only:
// the polytope plugin does not link the GLMOs' LP library).
#pragma once

#include <ClpSimplex.hpp>
#include <scfw/state.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
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

/// Loads what save_clp_state() wrote, checked before Clp sees any of it: every status one of
/// Clp's six (its low three bits), the solutions finite, the dual bound and infeasibility cost
/// positive and at most 1e20 (Clp starts both at 1e10), the problem status one of Clp's.
inline void load_clp_state(ClpSimplex& lp, scfw::StateReader& r) {
  const int rows = lp.numberRows(), cols = lp.numberColumns();
  std::vector<unsigned char> status(static_cast<size_t>(rows + cols));
  r.get_same_size("clp_status", status);
  for (size_t i = 0; i < status.size(); ++i)
    if ((status[i] & 7) > ClpSimplex::isFixed)
      r.refuse("clp_status", "value " + std::to_string(status[i]) + " at " + std::to_string(i) +
                                 " is not a Clp basis status");
  std::vector<std::vector<double>> arrays;
  for (const auto& [name, count] : {std::pair{"clp_columns", cols}, std::pair{"clp_rows", rows},
                                    std::pair{"clp_duals", rows}, std::pair{"clp_reduced", cols}}) {
    std::vector<double> v(static_cast<size_t>(count));
    r.get_same_size(name, v);
    r.check_finite(name, v);
    arrays.push_back(std::move(v));
  }
  std::vector<double> bounds(2);
  r.get_same_size("clp_bounds", bounds);
  r.check_range("clp_bounds", bounds, std::numeric_limits<double>::min(), 1e20);
  std::vector<int> st(2);
  r.get_same_size("clp_problem_status", st);
  r.check_range("clp_problem_status", std::vector<int>{st[0]}, -1, 5);
  r.check_range("clp_problem_status", std::vector<int>{st[1]}, 0, 1000);
  lp.copyinStatus(status.data());
  std::copy(arrays[0].begin(), arrays[0].end(), lp.primalColumnSolution());
  std::copy(arrays[1].begin(), arrays[1].end(), lp.primalRowSolution());
  std::copy(arrays[2].begin(), arrays[2].end(), lp.dualRowSolution());
  std::copy(arrays[3].begin(), arrays[3].end(), lp.dualColumnSolution());
  lp.setDualBound(bounds[0]);
  lp.setInfeasibilityCost(bounds[1]);
  lp.setProblemStatus(st[0]);
  lp.setSecondaryStatus(st[1]);
}

}  // namespace scfw::lp
