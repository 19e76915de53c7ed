// Microseconds per iteration by phase on the paper's Task 2 (CVaR portfolio): oracle
// `portfolio_returns` synthetic (A = 50 assets, d = 51, T = 2000 days), n = 200 groups, batch 1;
// outer `cvar_ru` alpha 0.95; domain `simplex_interval` [-1, 1]; tracker momentum; schedule
// nonconvex r = 2 (as bench_iteration does for Task 1).
//
//   build/bin/bench_task2 [--iterations K] [--assets A] [--groups N] [--repeats R] [--glmo NAME]
//                         [--max-rows R] [--method variant2|vanilla] [--days T] [--max-structural S]
//                         [--kernels portable|native] [--algorithm dual|primal]
//
// --method vanilla runs the vanilla tracker with the constant schedule gamma = K^-0.75, beta =
// rho = 1 (experiments/task2_synthetic.json's "vanilla"); the default is Variant II (momentum
// taylor, nonconvex r = 2). --glmo auto leaves the glmo block out (the composer's choice).
//
// --max-structural is passed to the scenario_dual GLMO (its dual LP has assets + 1 rows; above
// its default 256 the GLMO refuses the LP). --max-rows is passed to the dense_simplex GLMO (its
// LP here has groups + 1 rows). Each repeat is
// a full run of K iterations with gap reports off; the figures are medians over the repeats.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"
#include "phase_medians.hpp"

using namespace scfw;
using namespace scfw::bench;

int main(int argc, char** argv) {
  long K = 5000;
  int assets = 50, groups = 200, repeats = 3;
  long max_rows = -1, days = 2000, max_structural = -1;
  std::string kernels;  // scenario_dual's "kernels" (its default when empty)
  std::string algorithm;  // scenario_dual's "algorithm" (its default when empty)
  std::string glmo = "dense_simplex", method = "variant2";
  Options opts;
  opts.add("--iterations", K).add("--assets", assets).add("--groups", groups).add("--repeats", repeats);
  opts.add("--glmo", glmo).add("--max-rows", max_rows).add("--method", method).add("--days", days);
  opts.add("--max-structural", max_structural).add("--kernels", kernels).add("--algorithm", algorithm);
  if (!opts.parse(argc, argv)) return 2;
  if (max_rows < 0) max_rows = groups + 1;
  return with_plugins([&](Registry& registry) {
    nlohmann::json glmo_block = {{"plugin", glmo}};
    if (glmo == "dense_simplex") glmo_block["max_rows"] = max_rows;
    if (glmo == "scenario_dual" && max_structural > 0) glmo_block["max_structural"] = max_structural;
    if (glmo == "scenario_dual" && !kernels.empty()) glmo_block["kernels"] = kernels;
    if (glmo == "scenario_dual" && !algorithm.empty()) glmo_block["algorithm"] = algorithm;
    const nlohmann::json doc = {
        {"iterations", K},
        {"oracle",
         {{"plugin", "portfolio_returns"},
          {"synthetic", {{"assets", assets}, {"days", days}, {"seed", 1}}},
          {"groups", groups},
          {"batch", 1}}},
        {"outer", {{"plugin", "cvar_ru"}, {"alpha", 0.95}}},
        {"domain", {{"plugin", "simplex_interval"}}},
        {"glmo", glmo_block},
        {"tracker", {{"plugin", "momentum"}, {"value", "taylor"}}},
        {"schedule", {{"plugin", "nonconvex"}, {"r", 2}}}};
    nlohmann::json run = doc;
    if (glmo == "auto") run.erase("glmo");
    if (method == "vanilla") {
      run["tracker"] = {{"plugin", "vanilla"}};
      run["schedule"] = {{"plugin", "constant"}, {"gamma", std::pow(static_cast<double>(K), -0.75)}, {"beta", 1}, {"rho", 1}};
    } else if (method != "variant2") {
      std::fprintf(stderr, "unknown method %s\n", method.c_str());
      return 2;
    }

    const bench::PhaseMedians m = bench::measure_phases(registry, run, K, repeats);
    std::printf("bench_task2: Task 2 synthetic CVaR portfolio, A = %d assets (d = %d), n = %d groups, batch 1, "
                "K = %ld, %s, median of %d runs\n",
                assets, assets + 1, groups, K, method.c_str(), repeats);
    bench::print_phases(m);
    return 0;
  });
}
