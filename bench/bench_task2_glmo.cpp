// Microseconds per GLMO solve on the Task 2 LP (cvar_ru alpha 0.95 over simplex_interval [-1, 1],
// n scenario groups, A assets, d = A + 1) drifting as under momentum: V_{k+1} = (1 - b) V_k +
// b G_k, z likewise, with G_k the Jacobian of one fresh draw of group returns (row g:
// -(r_g, e) with e ~ 1e-3 N(0, 1), see draw()) and b = K^{-1/2} (K = 10^4: b = 0.01), and y_{k+1} = (1 - b) y_k + b x_{k+1}.
//
//   build/bin/bench_task2_glmo [--steps S] [--assets A] [--groups N] [--b B] [--seed N] [--no-cold] [--blocked]
//
// The trajectory (z_k, V_k, y_k) is generated once (with scenario_dual's answers for x), then each
// solver runs over the same sequence in the same process, the three interleaved step by step:
// scenario_dual warm, clp warm, clp cold (warm_start false). Each solve is timed on its own; the
// figures are medians (and 90th percentiles) over the steps. The largest relative difference of
// scenario_dual's optimal values from cold Clp's is printed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_support.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/scfw.hpp"

using namespace scfw;
using namespace scfw::bench;

int main(int argc, char** argv) {
  Drift drift;
  int assets = 50, n = 200;
  bool cold = true, blocked = false;
  Options opts;
  drift.add_to(opts);
  opts.add("--assets", assets).add("--groups", n);
  bool no_cold = false;
  opts.flag("--no-cold", no_cold).flag("--blocked", blocked);
  if (!opts.parse(argc, argv)) return 2;
  cold = !no_cold;
  const int d = assets + 1;
  try {
    GlmoBench lp("bench_task2_glmo", "cvar_ru", {{"alpha", 0.95}}, "simplex_interval", {{"dim", d}}, "scenario_dual",
                 n, d);
    Glmo* dual = lp.tested.get();  // Clp warm and cold: lp.clp_warm, lp.clp_cold

    // Group returns: asset j has mean mu_j and volatility s_j (daily), a group is 5 days.
    std::mt19937_64 rng(drift.seed);
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> unif(0.005, 0.02);
    std::vector<double> mu(static_cast<size_t>(assets)), sd(static_cast<size_t>(assets));
    for (int j = 0; j < assets; ++j) {
      mu[static_cast<size_t>(j)] = 5 * (0.0005 + 0.0005 * normal(rng));
      sd[static_cast<size_t>(j)] = std::sqrt(5.0) * unif(rng);
    }
    auto draw = [&](Mat& G) {  // the Jacobian of the group losses -r_g^T w at one draw
      for (int g = 0; g < n; ++g) {
        for (int j = 0; j < assets; ++j)
          G(g, j) = -(mu[static_cast<size_t>(j)] + sd[static_cast<size_t>(j)] * normal(rng));
        // The y0 column: 0 in Task 2; here small noise, because Clp solved cold asserts on an
        // exactly zero column (ClpPackedMatrix.cpp: `elValue`), in the clp GLMO with
        // warm_start false and in a fresh clp GLMO alike.
        G(g, assets) = 1e-3 * normal(rng);
      }
    };
    Mat V(n, d), G(n, d);
    const Vec y0 = lp.domain->initial_point();
    draw(V);
    const double b = drift.b;
    const Trajectory path = record_trajectory(*dual, drift, V * y0, V, y0, [&](Vec& z, Mat& Vk, const Vec& y) {
      draw(G);
      Vk = (1 - b) * Vk + b * G;
      z = (1 - b) * z + b * (G * y);
    });
    dual->setup(*lp.outer, *lp.domain, n, d);  // the timed run starts from scratch

    std::vector<double> td, tw, tc;
    long pd = 0, pw = 0, pc = 0;
    double maxrel = 0;
    Vec xk(d);
    double fx = 0.0;  // F(z + V (x - y), x) at the last solve's x
    auto timed = [&](Glmo& g, int k, std::vector<double>& t, long& piv) {
      const GlmoResult r = timed_solve(g, path, k, xk, t);
      piv += r.iterations;
      const size_t s = static_cast<size_t>(k);
      fx = lp.outer->value(path.z[s] + path.V[s].dense() * (xk - path.y[s]), xk);
      return r.value;
    };
    double fx_gap_dual = 0, fx_gap_clp = 0;  // largest |F(x) - value| of each
    double clp_below = -1e300;                // largest (scenario_dual's value - F at clp cold's x)
    // --blocked: scenario_dual's steps first, then the loop below for Clp (each solver on its
    // own caches, as inside a run, where the oracle and the tracker run between solves).
    std::vector<double> blocked_values, blocked_fx;
    if (blocked)
      for (int k = 0; k < drift.steps; ++k) {
        blocked_values.push_back(timed(*dual, k, td, pd));
        blocked_fx.push_back(fx);
      }
    for (int k = 0; k < drift.steps; ++k) {
      const double vd = blocked ? blocked_values[static_cast<size_t>(k)] : timed(*dual, k, td, pd);
      const double fd = blocked ? blocked_fx[static_cast<size_t>(k)] : fx;
      fx_gap_dual = std::max(fx_gap_dual, std::abs(fd - vd));
      timed(*lp.clp_warm, k, tw, pw);
      if (cold) {
        const double vc = timed(*lp.clp_cold, k, tc, pc);
        fx_gap_clp = std::max(fx_gap_clp, std::abs(fx - vc));
        clp_below = std::max(clp_below, vd - fx);
        maxrel = std::max(maxrel, std::abs(vd - vc) / std::max(1.0, std::abs(vc)));
      }
    }
    const SolveStats sd_ = solve_stats(td, pd), sw = solve_stats(tw, pw);
    std::printf("bench_task2_glmo: Task 2 LP (cvar_ru 0.95 over simplex_interval), n = %d groups, d = %d, drift b = %g, "
                "%d steps\n",
                n, d, b, drift.steps);
    std::printf("  %s\n", dual->describe().c_str());
    std::printf("  solver               median us   p90 us   pivots/solve\n");
    std::printf("  scenario_dual warm   %9.2f %8.2f %10.3f\n", sd_.median, sd_.p90, sd_.pivots);
    std::printf("  clp warm             %9.2f %8.2f %10.3f\n", sw.median, sw.p90, sw.pivots);
    if (cold) {
      const SolveStats sc = solve_stats(tc, pc);
      std::printf("  clp cold             %9.2f %8.2f %10.3f\n", sc.median, sc.p90, sc.pivots);
      std::printf("  ratio scenario_dual warm / clp cold (median)  %.4f  (1/%.1f; target <= 1/50)\n",
                  sd_.median / sc.median, sc.median / sd_.median);
      std::printf("  max relative |scenario_dual - clp cold| over the steps: %.3g\n", maxrel);
      std::printf("  max |F(z + V (x - y), x) - value| at the returned x: scenario_dual %.3g, clp cold %.3g\n",
                  fx_gap_dual, fx_gap_clp);
      std::printf("  max (scenario_dual value - F at clp cold's x): %.3g (> 0: clp's point is better)\n", clp_below);
    }
    std::printf("  ratio scenario_dual warm / clp warm (median)  %.4f  (1/%.1f)\n", sd_.median / sw.median,
                sw.median / sd_.median);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
