// Microseconds per GLMO solve on the Task 1 LP (max over the l1 ball of radius 5, n = 10 tasks,
// d = 100) drifting as under momentum: V_{k+1} = (1 - b) V_k + b G_k, z likewise, with
// G_k = J + noise and b = K^{-1/2} (K = 10^4: b = 0.01), and y_{k+1} = (1 - b) y_k + b x_{k+1}.
//
//   build/bin/bench_glmo [--steps S] [--dim D] [--tasks M] [--b B] [--seed N]
//
// The trajectory (z_k, V_k, y_k) is generated once, then each solver runs over the same sequence
// in the same process: dense_simplex warm, clp warm, clp cold (warm_start false). Each solve is
// timed on its own; the figures are medians (and 90th percentiles) over the steps.
#include <algorithm>
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
  int d = 100, n = 10;
  Options opts;
  drift.add_to(opts);
  opts.add("--dim", d).add("--tasks", n);
  if (!opts.parse(argc, argv)) return 2;
  try {
    GlmoBench lp("bench_glmo", "max", nlohmann::json::object(), "l1_ball", {{"radius", 5.0}, {"dim", d}},
                 "dense_simplex", n, d);
    Glmo* dense = lp.tested.get();  // Clp warm and cold: lp.clp_warm, lp.clp_cold

    // The trajectory, generated with dense_simplex's answers for x.
    std::mt19937_64 rng(drift.seed);
    std::normal_distribution<double> normal;
    Mat J(n, d);
    Vec zbar(n);
    for (int i = 0; i < n; ++i) {
      zbar[i] = normal(rng);
      for (int j = 0; j < d; ++j) J(i, j) = normal(rng);
    }
    const double b = drift.b;
    const Trajectory path =
        record_trajectory(*dense, drift, zbar, J, lp.domain->initial_point(), [&](Vec& z, Mat& V, const Vec&) {
          for (int i = 0; i < n; ++i) {
            z[i] = (1 - b) * z[i] + b * (zbar[i] + normal(rng));
            for (int j = 0; j < d; ++j) V(i, j) = (1 - b) * V(i, j) + b * (J(i, j) + normal(rng));
          }
        });
    dense->setup(*lp.outer, *lp.domain, n, d);  // start the timed run from scratch

    auto run = [&](Glmo& g, std::vector<double>* values) {
      std::vector<double> t;
      t.reserve(path.z.size());
      long pivots = 0;
      Vec xk(d);
      for (int k = 0; k < drift.steps; ++k) {
        const GlmoResult r = timed_solve(g, path, k, xk, t);
        pivots += r.iterations;
        if (values) values->push_back(r.value);
      }
      return solve_stats(t, pivots);
    };
    std::vector<double> vd, vw, vc;
    const SolveStats sd = run(*dense, &vd);
    const SolveStats sw = run(*lp.clp_warm, &vw);
    const SolveStats sc = run(*lp.clp_cold, &vc);
    double maxrel = 0;
    for (size_t k = 0; k < vd.size(); ++k)
      maxrel = std::max(maxrel, std::abs(vd[k] - vc[k]) / std::max(1.0, std::abs(vc[k])));

    std::printf("bench_glmo: Task 1 LP (max over the l1 ball r = 5), n = %d, d = %d, drift b = %g, %d steps\n", n, d, b,
                drift.steps);
    std::printf("  %s\n", dense->describe().c_str());
    std::printf("  solver               median us   p90 us   pivots/solve\n");
    std::printf("  dense_simplex warm   %9.2f %8.2f %10.3f\n", sd.median, sd.p90, sd.pivots);
    std::printf("  clp warm             %9.2f %8.2f %10.3f\n", sw.median, sw.p90, sw.pivots);
    std::printf("  clp cold             %9.2f %8.2f %10.3f\n", sc.median, sc.p90, sc.pivots);
    std::printf("  ratio dense warm / clp cold (median)  %.4f  (1/%.1f; target <= 1/20)\n", sd.median / sc.median,
                sc.median / sd.median);
    std::printf("  ratio dense warm / clp warm (median)  %.4f  (1/%.1f)\n", sd.median / sw.median, sw.median / sd.median);
    std::printf("  max relative |dense - clp cold| over the steps: %.3g\n", maxrel);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
