// Shared by bench_iteration, bench_task2 and bench_scaling: run a composed problem `repeats` times (seeds
// 1..repeats, gap reports off but one exact gap at the end) and print the median microseconds per
// iteration of each phase.
#pragma once

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"

namespace scfw::bench {

struct PhaseMedians {
  double oracle = 0, tracker = 0, glmo = 0, update = 0, total = 0, gap = 0, simplex = 0;
  std::string solver;
};

/// Medians over runs of each phase's microseconds per iteration (the gap: seconds of its one
/// evaluation, in microseconds) and of the GLMO's simplex iterations per solve.
inline PhaseMedians medians_of(const std::vector<Summary>& runs) {
  std::vector<double> oracle, tracker, glmo, update, total, gap, simplex;
  PhaseMedians m;
  for (const Summary& sum : runs) {
    const double it = static_cast<double>(sum.iterations);
    oracle.push_back(1e6 * sum.times.oracle / it);
    tracker.push_back(1e6 * sum.times.tracker / it);
    glmo.push_back(1e6 * sum.times.glmo / it);
    update.push_back(1e6 * sum.times.update / it);
    total.push_back(1e6 * (sum.times.total() - sum.times.gap) / it);
    gap.push_back(1e6 * sum.times.gap);
    simplex.push_back(sum.glmo_iterations / it);
    m.solver = sum.glmo_solver;
  }
  m.oracle = median(oracle);
  m.tracker = median(tracker);
  m.glmo = median(glmo);
  m.update = median(update);
  m.total = median(total);
  m.gap = median(gap);
  m.simplex = median(simplex);
  return m;
}

/// The options of run `r` (0-based) of a measurement: K iterations, seed r + 1, no gap reports
/// in the loop, one exact gap at the end when `final_report`.
inline SolverOptions run_options(long K, int r, bool final_report) {
  SolverOptions o;
  o.iterations = K;
  o.seed = static_cast<std::uint64_t>(r + 1);
  o.report_every = 0;
  o.final_report = final_report;
  return o;
}

inline PhaseMedians measure_phases(const Registry& registry, const nlohmann::json& doc, long K, int repeats) {
  std::vector<Summary> runs;
  for (int r = 0; r < repeats; ++r) {
    Composition p = compose(registry, doc, "bench", ".");
    Solver s(p, run_options(K, r, true));
    runs.push_back(s.run());
  }
  return medians_of(runs);
}

inline void print_phases(const PhaseMedians& m) {
  std::printf("  GLMO solver          %s\n", m.solver.c_str());
  std::printf("  oracle               %8.2f us/iteration\n", m.oracle);
  std::printf("  tracker              %8.2f us/iteration\n", m.tracker);
  std::printf("  GLMO                 %8.2f us/iteration\n", m.glmo);
  std::printf("  y update             %8.2f us/iteration\n", m.update);
  std::printf("  iteration (total)    %8.2f us/iteration\n", m.total);
  std::printf("  exact gap report     %8.2f us/report\n", m.gap);
  std::printf("  simplex iterations   %8.3f per solve\n", m.simplex);
}

}  // namespace scfw::bench
