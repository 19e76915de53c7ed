// What one exact gap report costs on Task 2 (issue #13, item 2's last target: at most one full
// data pass plus two GLMO solves).
//
//   build/bin/bench_direct_gap [--groups 200] [--assets 50] [--days 2000] [--iterations 1000]
//                              [--reports 50] [--method variant2|vanilla] [--seed 1]
//
// The problem is experiments/task2_synthetic.json's at 200 groups (portfolio_returns synthetic,
// batch 1; cvar_ru alpha 0.95; simplex_interval [-1, 1]; the host's GLMO choice). One run of K
// iterations with an exact gap report every K / reports iterations, as `scfw compare` makes them,
// gives the report's cost in the loop (Summary::times.gap over the reports) and the loop's GLMO
// solve (times.glmo over K). Then the reports are replayed piece by piece on a fresh method's
// gap GLMO at the same iterates (captured by a callback), to see where the cost goes: the exact
// f and Jacobian (Oracle::exact), F at f(y), the GLMO solve. The data pass is the oracle's own
// evaluation of f and its Jacobian over every day: a second composition of the same data with
// batch = T / n days drawn per group (n * batch = T rows of returns read), timed over 50 draws.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"

using namespace scfw;
using namespace scfw::bench;

namespace {

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

}  // namespace

int main(int argc, char** argv) {
  long groups = 200, assets = 50, days = 2000, K = 1000, reports = 50;
  std::uint64_t seed = 1;
  std::string method = "variant2";
  Options opts;
  opts.add("--groups", groups).add("--assets", assets).add("--days", days).add("--iterations", K);
  opts.add("--reports", reports).add("--method", method).add("--seed", seed);
  if (!opts.parse(argc, argv)) return 2;
  return with_plugins([&](Registry& registry) {
    auto problem_doc = [&](long batch) {
      return nlohmann::json{{"oracle",
                             {{"plugin", "portfolio_returns"},
                              {"synthetic", {{"assets", assets}, {"days", days}, {"seed", 1}}},
                              {"groups", groups},
                              {"batch", batch}}},
                            {"outer", {{"plugin", "cvar_ru"}, {"alpha", 0.95}}},
                            {"domain", {{"plugin", "simplex_interval"}, {"lower", -1}, {"upper", 1}}}};
    };
    nlohmann::json tracker, schedule;
    if (method == "variant2") {
      tracker = {{"plugin", "momentum"}, {"value", "taylor"}};
      schedule = {{"plugin", "nonconvex"}, {"r", 2}};
    } else if (method == "vanilla") {
      tracker = {{"plugin", "vanilla"}};
      schedule = {{"plugin", "constant"}, {"gamma", std::pow(static_cast<double>(K), -0.75)}, {"beta", 1}, {"rho", 1}};
    } else {
      std::fprintf(stderr, "unknown method %s (variant2, vanilla)\n", method.c_str());
      return 2;
    }
    Problem problem = compose_problem(registry, problem_doc(1), "bench_direct_gap", ".");
    const int n = problem.outputs(), d = problem.dim();

    // 1. The run, with reports as compare makes them.
    Method m = compose_method(registry, problem, {&tracker, "/tracker"}, {&schedule, "/schedule"}, {nullptr, "/glmo"});
    SolverOptions o;
    o.iterations = K;
    o.seed = seed;
    o.report_every = (K + reports - 1) / reports;
    o.final_report = true;
    std::vector<Vec> report_y;
    Solver s(problem, m, o);
    s.add_callback([&](const IterationState& st) {
      if (st.has_gap) report_y.push_back(*st.y);
      return true;
    });
    const Summary sum = s.run();
    const double per_report = sum.times.gap / static_cast<double>(report_y.size());
    const double per_glmo = sum.times.glmo / static_cast<double>(K);

    // 2. The reports replayed piece by piece on a fresh gap GLMO (the same sequence of iterates).
    Method fresh = compose_method(registry, problem, {&tracker, "/tracker"}, {&schedule, "/schedule"}, {nullptr, "/glmo"});
    Glmo& gap_glmo = *fresh.gap_glmo;
    Vec f = Vec::Zero(n), x = Vec::Zero(d);
    scfw::Jacobian Jj(Mat::Zero(n, d));  // dense; the GLMO takes it without a copy
    std::vector<double> t_exact, t_value, t_solve, pivots;
    double check = 0;
    for (const Vec& y : report_y) {
      auto t0 = std::chrono::steady_clock::now();
      problem.oracle->exact(y, &f, &Jj);
      t_exact.push_back(seconds_since(t0));
      t0 = std::chrono::steady_clock::now();
      check += problem.outer->value(f, y);
      t_value.push_back(seconds_since(t0));
      t0 = std::chrono::steady_clock::now();
      const GlmoResult r = gap_glmo.solve(f, Jj, y, x);
      t_solve.push_back(seconds_since(t0));
      pivots.push_back(static_cast<double>(r.iterations));
    }

    // 3. One full data pass: f and J from every day (batch T / n per group).
    const long batch = days / groups;
    Problem full = compose_problem(registry, problem_doc(batch), "bench_direct_gap", ".");
    auto sample = full.oracle->make_sample();
    Rng rng(seed);
    std::vector<double> t_pass;
    const Vec y = report_y.empty() ? Vec::Constant(d, 1.0 / d) : report_y.back();
    for (int r = 0; r < 50; ++r) {
      full.oracle->draw(rng, *sample);
      const auto t0 = std::chrono::steady_clock::now();
      full.oracle->evaluate(*sample, y, &f, &Jj);
      t_pass.push_back(seconds_since(t0));
    }

    const double pass = median(t_pass), budget = pass + 2 * per_glmo;
    std::printf("bench_direct_gap: Task 2, n = %d groups, A = %ld assets, T = %ld days, %s, K = %ld, seed %llu, GLMO %s\n",
                n, assets, days, method.c_str(), K, static_cast<unsigned long long>(seed), sum.glmo_solver.c_str());
    std::printf("  gap reports in the run             %zu (every %ld iterations and at y_K)\n", report_y.size(), o.report_every);
    std::printf("  one gap report in the run          %10.2f us (mean)\n", 1e6 * per_report);
    std::printf("  one loop GLMO solve                %10.2f us (mean over K; %.1f pivots per solve)\n", 1e6 * per_glmo,
                static_cast<double>(sum.glmo_iterations) / static_cast<double>(K));
    std::printf("  one full data pass (%ld x %ld days) %10.2f us (median of 50)\n", static_cast<long>(n), batch, 1e6 * pass);
    std::printf("  target: pass + 2 GLMO solves       %10.2f us -> report / target = %.3f\n", 1e6 * budget, per_report / budget);
    std::printf("  replayed report, by piece (mean / median us):\n");
    std::printf("    Oracle::exact (f and J)          %10.2f / %.2f\n", 1e6 * mean(t_exact), 1e6 * median(t_exact));
    std::printf("    F(f(y), y)                       %10.2f / %.2f\n", 1e6 * mean(t_value), 1e6 * median(t_value));
    std::printf("    gap GLMO solve                   %10.2f / %.2f (%.1f pivots per solve)\n", 1e6 * mean(t_solve),
                1e6 * median(t_solve), mean(pivots));
    std::printf("  (sum of phi over the replayed reports %.12e; the run's final objective %.12e)\n", check,
                sum.final_objective);
    return 0;
  });
}
