// Final and best generalized FW gap of every tracker on the paper's Task 1 (synthetic, m = 10,
// d = 100, 500 rows per task, batch 1, F = max over the l1 ball of radius 5), for several K,
// averaged over run seeds 1..S (the data seed is fixed). Prints a Markdown table (docs/trackers.md).
//
//   build/bin/bench_trackers [--iterations 1000,4000,16000] [--seeds 3]
//
// The gap (eq. 2) is computed exactly every K/20 iterations and after the last; "best" is the
// smallest of those reports, "final" the one at y_K. Rows:
//   vanilla, clipped (C = 1, 10)  schedule constant: gamma = K^-3/4, beta = rho = 1
//   momentum polyak / taylor      schedule nonconvex: gamma = K^-3/4, beta = rho = K^-1/2 (Thm 1)
//   storm, hessian                schedule storm:     gamma = beta = rho = K^-2/3  (Thm storm_rate, hessian_rate)
//   taylor with schedule storm, storm with schedule nonconvex: controls that separate the
//   estimator from the schedule.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"

using namespace scfw;

namespace {

struct BenchRow {
  std::string label;
  nlohmann::json tracker;
  std::string schedule;  // "constant", "nonconvex" or "storm"
};

nlohmann::json schedule_block(const std::string& name, long K) {
  if (name == "constant")
    return {{"plugin", "constant"}, {"gamma", std::pow(static_cast<double>(K), -0.75)}, {"beta", 1}, {"rho", 1}};
  return {{"plugin", name}, {"r", 2}};
}

std::vector<long> parse_list(const std::string& s) {
  std::vector<long> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(std::atol(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> Ks = {1000, 4000, 16000};
  int seeds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--iterations") Ks = parse_list(argv[i + 1]);
    else if (a == "--seeds") seeds = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\nusage: bench_trackers [--iterations 1000,4000,16000] [--seeds 3]\n",
                   a.c_str());
      return 2;
    }
  }
  const std::vector<BenchRow> rows = {
      {"vanilla", {{"plugin", "vanilla"}}, "constant"},
      {"clipped C = 1", {{"plugin", "clipped"}, {"threshold", 1}}, "constant"},
      {"clipped C = 10", {{"plugin", "clipped"}, {"threshold", 10}}, "constant"},
      {"momentum polyak (I)", {{"plugin", "momentum"}, {"value", "polyak"}}, "nonconvex"},
      {"momentum taylor (II)", {{"plugin", "momentum"}, {"value", "taylor"}}, "nonconvex"},
      {"storm", {{"plugin", "storm"}}, "storm"},
      {"hessian", {{"plugin", "hessian"}}, "storm"},
      {"momentum taylor (II)", {{"plugin", "momentum"}, {"value", "taylor"}}, "storm"},
      {"storm", {{"plugin", "storm"}}, "nonconvex"},
  };
  try {
    Registry registry;
    registry.load_path(Registry::search_path());
    std::printf("bench_trackers: Task 1 synthetic (m = 10, d = 100, 500 rows/task, batch 1, l1 radius 5, F = max),\n"
                "mean over run seeds 1..%d; gap reported every K/20 and at the end\n\n",
                seeds);
    std::printf("| tracker | schedule |");
    for (long K : Ks) std::printf(" final K=%ld | best K=%ld |", K, K);
    std::printf(" J~ evals/it | H~v/it | ms/it (K=%ld) |\n|---|---|", Ks.back());
    for (size_t i = 0; i < Ks.size(); ++i) std::printf("---:|---:|");
    std::printf("---:|---:|---:|\n");
    for (const BenchRow& row : rows) {
      std::printf("| %s | %s |", row.label.c_str(), row.schedule.c_str());
      std::fflush(stdout);
      double jac_per_it = 0, hess_per_it = 0, ms_per_it = 0;
      for (long K : Ks) {
        const nlohmann::json doc = {
            {"iterations", K},
            {"oracle",
             {{"plugin", "least_squares_tasks"},
              {"synthetic", {{"tasks", 10}, {"dim", 100}, {"rows_per_task", 500}, {"noise", 0.5}, {"seed", 1}}},
              {"batch", 1}}},
            {"outer", {{"plugin", "max"}}},
            {"domain", {{"plugin", "l1_ball"}, {"radius", 5}}},
            {"glmo", {{"plugin", "clp"}}},
            {"tracker", row.tracker},
            {"schedule", schedule_block(row.schedule, K)}};
        double final_gap = 0, best_gap = 0;
        for (int seed = 1; seed <= seeds; ++seed) {
          Composition p = compose(registry, doc, "bench", ".");
          SolverOptions o;
          o.iterations = K;
          o.seed = static_cast<std::uint64_t>(seed);
          o.report_every = K / 20;
          o.final_report = true;
          Solver solver(p, o);
          const Summary s = solver.run();
          final_gap += s.final_gap / seeds;
          best_gap += s.best_gap / seeds;
          const double it = static_cast<double>(s.iterations);
          jac_per_it = static_cast<double>(s.calls.jacobians) / it;
          hess_per_it = static_cast<double>(s.calls.hessian) / it;
          ms_per_it = 1e3 * (s.times.total() - s.times.gap) / it;
        }
        std::printf(" %.4g | %.4g |", final_gap, best_gap);
        std::fflush(stdout);
      }
      std::printf(" %.2f | %.2f | %.3f |\n", jac_per_it, hess_per_it, ms_per_it);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_trackers: %s\n", e.what());
    return 1;
  }
  return 0;
}
