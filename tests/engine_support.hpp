// Shared helpers for the engine tests: the real plugins (plugin_support.hpp's registry), composed
// from inline JSON.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"
#include "plugin_support.hpp"

namespace scfw::test {

/// The paper's Task 1 (robust minimax sparse regression) on synthetic data.
inline nlohmann::json task1(long iterations, int batch, const std::string& variant, nlohmann::json schedule,
                            int tasks = 10, int dim = 100, int rows = 500, double noise = 0.5,
                            double radius = 5.0) {
  return nlohmann::json{
      {"seed", 1},
      {"iterations", iterations},
      {"oracle",
       {{"plugin", "least_squares_tasks"},
        {"synthetic", {{"tasks", tasks}, {"dim", dim}, {"rows_per_task", rows}, {"noise", noise}, {"seed", 1}}},
        {"batch", batch}}},
      {"outer", {{"plugin", "max"}}},
      {"domain", {{"plugin", "l1_ball"}, {"radius", radius}}},
      {"glmo", {{"plugin", "clp"}}},
      {"tracker", {{"plugin", "momentum"}, {"value", variant}}},
      {"schedule", std::move(schedule)}};
}

/// The whole document composed: problem, method and options.
inline Composition make(const nlohmann::json& doc) { return compose(registry(), doc, "test.json", SCFW_SOURCE_DIR); }

struct Trajectory {
  std::vector<Vec> y;          // y_1 .. y_K
  std::vector<double> gaps;    // reported gaps, in order
  Summary summary;
};

/// Options for K iterations from `seed`, a gap report every `report_every` (0: none) and, when
/// `final_report`, one at y_K.
inline SolverOptions options(long K, std::uint64_t seed, long report_every, bool final_report = true) {
  SolverOptions o;
  o.iterations = K;
  o.seed = seed;
  o.report_every = report_every;
  o.final_report = final_report;
  return o;
}

inline Trajectory run(Composition& p, std::uint64_t seed, long iterations, long report_every, bool keep_y = false,
                      bool final_report = true) {
  Solver solver(p, options(iterations, seed, report_every, final_report));
  Trajectory t;
  solver.add_callback([&](const IterationState& s) {
    if (keep_y) t.y.push_back(*s.y);
    if (s.has_gap) t.gaps.push_back(s.gap);
    return true;
  });
  t.summary = solver.run();
  return t;
}

/// Least-squares slope of log(v) against log(k).
inline double loglog_slope(const std::vector<double>& k, const std::vector<double>& v) {
  double mx = 0, my = 0;
  const double m = static_cast<double>(k.size());
  for (size_t i = 0; i < k.size(); ++i) {
    mx += std::log(k[i]) / m;
    my += std::log(v[i]) / m;
  }
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < k.size(); ++i) {
    sxy += (std::log(k[i]) - mx) * (std::log(v[i]) - my);
    sxx += (std::log(k[i]) - mx) * (std::log(k[i]) - mx);
  }
  return sxy / sxx;
}

}  // namespace scfw::test
