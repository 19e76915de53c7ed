// The warm state of a ClpSimplex for checkpoints (scfw/state.hpp): the basis status of every row
// and column, the primal and dual solution arrays, the dual bound and infeasibility cost, and the
// problem status, and what Clp carries from solve to solve (clp_options below). Restored on a
// model of the same size, the next warm solve takes the same pivots as the uninterrupted run. Shared by the `clp` GLMO and the `polytope` domain's LMO (header-only:
// the polytope plugin does not link the GLMOs' LP library).
#pragma once

#include <ClpSimplex.hpp>
#include <scfw/state.hpp>

#include <algorithm>
#include <cstdint>
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
  // State Clp keeps across solves that a fresh model lacks: the seed of its random numbers
  // (they break ties among candidate pivots), the iteration of its last bad pivot and the
  // largest primal and dual errors of its last factorization (they steer its checks), and two
  // options it sets on its first solve. Left at a fresh model's values, the resumed model takes
  // other pivots and its optima differ in the last bits.
  w.put("clp_options", std::vector<std::int64_t>{static_cast<std::int64_t>(lp.randomNumberGenerator()->getSeed()),
                                                 lp.moreSpecialOptions(), lp.numberRefinements(),
                                                 lp.lastBadIteration()});
  w.put("clp_errors", std::vector<double>{lp.largestPrimalError(), lp.largestDualError()});
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
  // The seed (32 bits), Clp's option bits, its refinement count, the last bad iteration (-999999:
  // none yet), and the errors of its last factorization (finite, not negative).
  std::vector<std::int64_t> options(4);
  r.get_same_size("clp_options", options);
  r.check_range("clp_options", std::vector<std::int64_t>{options[0]}, std::int64_t{0}, std::int64_t{0xFFFFFFFF});
  r.check_range("clp_options", std::vector<std::int64_t>{options[1]}, std::int64_t{0}, std::int64_t{0x7FFFFFFF});
  r.check_range("clp_options", std::vector<std::int64_t>{options[2]}, std::int64_t{0}, std::int64_t{100});
  r.check_range("clp_options", std::vector<std::int64_t>{options[3]}, std::int64_t{-999999}, std::int64_t{0x7FFFFFFF});
  std::vector<double> errors(2);
  r.get_same_size("clp_errors", errors);
  r.check_range("clp_errors", errors, 0.0, std::numeric_limits<double>::max());
  lp.copyinStatus(status.data());
  std::copy(arrays[0].begin(), arrays[0].end(), lp.primalColumnSolution());
  std::copy(arrays[1].begin(), arrays[1].end(), lp.primalRowSolution());
  std::copy(arrays[2].begin(), arrays[2].end(), lp.dualRowSolution());
  std::copy(arrays[3].begin(), arrays[3].end(), lp.dualColumnSolution());
  lp.setDualBound(bounds[0]);
  lp.setInfeasibilityCost(bounds[1]);
  lp.setProblemStatus(st[0]);
  lp.setSecondaryStatus(st[1]);
  lp.randomNumberGenerator()->setSeed(static_cast<int>(static_cast<std::uint32_t>(options[0])));
  lp.setMoreSpecialOptions(static_cast<int>(options[1]));
  lp.setNumberRefinements(static_cast<int>(options[2]));
  lp.setLastBadIteration(static_cast<int>(options[3]));
  lp.setLargestPrimalError(errors[0]);
  lp.setLargestDualError(errors[1]);
}

}  // namespace scfw::lp
