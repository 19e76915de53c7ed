// Milliseconds per column-generation GLMO solve on the paper's Task 3 (synthetic 30 x 20, rank 5,
// 30% observed, Laplace noise; `matrix_completion` oracle with 20 groups, batch 1; the l1 norm
// outer over the nuclear-norm ball of radius 5), along a Variant I trajectory: z, V tracked by
// Polyak momentum from one sample per iteration, beta = K^-1/2, gamma = K^-3/4 (K = 1000),
// y_{k+1} = y_k + gamma (x_{k+1} - y_k).
//
//   build/bin/bench_cg [--steps S] [--groups N] [--radius T] [--seed N]
//
// The trajectory (z_k, V_k, y_k) is generated once (dense master, tolerance 1e-7), then each
// configuration runs over the same sequence in the same process, from a fresh setup: master
// dense / clp, tolerance 1e-7 / 1e-3. Each solve is timed on its own; the figures are medians
// and 90th percentiles over the steps, the mean of GlmoResult::iterations (pricing rounds +
// pivots), and the largest certified relative gap (value - lower_bound) / max(1, |value|).
#include <algorithm>
#include <chrono>
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
  int steps = 300, n = 20;
  double tau = 5.0;
  unsigned seed = 1;
  Options opts;
  opts.add("--steps", steps).add("--groups", n).add("--radius", tau).add("--seed", seed);
  if (!opts.parse(argc, argv)) return 2;
  return with_plugins([&](Registry& reg) {
    const int rows = 30, cols = 20, d = rows * cols;
    Context ctx;
    ctx.dim = d;
    ctx.outputs = n;
    using nlohmann::json;
    auto oracle = reg.make<Oracle>(
        "matrix_completion",
        {{"groups", n},
         {"batch", 1},
         {"synthetic", {{"rows", rows}, {"cols", cols}, {"rank", 5}, {"density", 0.3}, {"noise", 0.3}}}},
        ctx, "bench_cg", "/oracle");
    auto domain = reg.make<Domain>("nuclear_ball", {{"radius", tau}, {"rows", rows}, {"cols", cols}}, ctx, "bench_cg",
                                   "/domain");
    auto outer = reg.make<OuterFunction>("norm", {{"p", "1"}}, ctx, "bench_cg", "/outer");
    auto cg = [&](const char* master, double tol) {
      auto g = reg.make<Glmo>("column_generation", {{"master", master}, {"tolerance", tol}}, ctx, "bench_cg", "/glmo");
      g->setup(*outer, *domain, n, d);
      return g;
    };

    // The trajectory: Variant I (Polyak momentum on f and its Jacobian), K = 1000's schedule.
    const double beta = std::pow(1000.0, -0.5), gamma = std::pow(1000.0, -0.75);
    Rng rng(seed);
    auto sample = oracle->make_sample();
    Vec y = domain->initial_point(), x(d), f(n), z(n);
    scfw::Jacobian Jj(n, d), Vj(n, d);
    Mat& J = Jj.dense();
    Mat& V = Vj.dense();
    oracle->draw(rng, *sample);
    oracle->evaluate(*sample, y, &z, &Vj);
    std::vector<scfw::Jacobian> Vs;  // dense: solve() takes them without a copy
    std::vector<Vec> zs, ys;
    auto gen = cg("dense", 1e-7);
    for (int k = 0; k < steps; ++k) {
      Vs.emplace_back(V);
      zs.push_back(z);
      ys.push_back(y);
      gen->solve(z, V, y, x);
      y += gamma * (x - y);
      oracle->draw(rng, *sample);
      oracle->evaluate(*sample, y, &f, &Jj);
      z = (1 - beta) * z + beta * f;
      V = (1 - beta) * V + beta * J;
    }

    std::printf("bench_cg: Task 3 synthetic (30 x 20, %d groups), l1 over the nuclear ball (radius %g), Variant I "
                "trajectory, %d steps\n",
                n, tau, steps);
    std::printf("  master  tolerance   median ms   p90 ms   iterations/solve   max (value - bound)/max(1, |value|)\n");
    double med[2][2] = {};
    const char* masters[2] = {"dense", "clp"};
    const double tols[2] = {1e-7, 1e-3};
    for (int ti = 0; ti < 2; ++ti)
      for (int mi = 0; mi < 2; ++mi) {
        auto g = cg(masters[mi], tols[ti]);
        std::vector<double> t(static_cast<size_t>(steps));
        double its = 0, worst = 0;
        Vec xk(d);
        for (int k = 0; k < steps; ++k) {
          const auto t0 = std::chrono::steady_clock::now();
          const GlmoResult r = g->solve(zs[static_cast<size_t>(k)], Vs[static_cast<size_t>(k)], ys[static_cast<size_t>(k)], xk);
          const auto t1 = std::chrono::steady_clock::now();
          t[static_cast<size_t>(k)] = std::chrono::duration<double, std::milli>(t1 - t0).count();
          its += static_cast<double>(r.iterations);
          worst = std::max(worst, (r.value - r.lower_bound) / std::max(1.0, std::abs(r.value)));
        }
        std::sort(t.begin(), t.end());
        med[ti][mi] = t[t.size() / 2];
        std::printf("  %-6s  %-9g  %9.3f  %8.3f   %16.1f   %.3g\n", masters[mi], tols[ti], t[t.size() / 2],
                    t[t.size() * 9 / 10], its / steps, worst);
      }
    std::printf("  ratio dense / clp (median): tolerance 1e-7 %.3f, tolerance 1e-3 %.3f\n", med[0][0] / med[0][1],
                med[1][0] / med[1][1]);
    std::printf("  ratio tolerance 1e-3 / 1e-7 (median, dense): %.3f\n", med[1][0] / med[0][0]);
    return 0;
  });
}
