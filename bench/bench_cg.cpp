// Milliseconds per column-generation GLMO solve on the paper's Task 3 (synthetic 30 x 20, rank 5,
// 30% observed, Laplace noise; `matrix_completion` oracle with 20 groups, batch 1; the l1 norm
// outer over the nuclear-norm ball of radius 5), along a Variant I trajectory: z, V tracked by
// Polyak momentum from one sample per iteration, beta = K^-1/2, gamma = K^-3/4 (K = 1000),
// y_{k+1} = y_k + gamma (x_{k+1} - y_k).
//
//   build/bin/bench_cg [--steps S] [--groups N] [--radius T] [--seed N] [--smoothing A] [--carry 0|1]
//   build/bin/bench_cg --problem FILE [--iterations K] [--factors 0|1]
//
// The trajectory (z_k, V_k, y_k) is generated once (dense master, tolerance 1e-7), then each
// configuration runs over the same sequence in the same process, from a fresh setup: master
// dense / clp, tolerance 1e-7 / 1e-3. Each solve is timed on its own; the figures are medians
// and 90th percentiles over the steps (--smoothing and --carry: the GLMO's `smoothing` and
// `carry_center`, its defaults 0.5 and 1 unless given), the mean of GlmoResult::iterations (pricing rounds +
// pivots), the median and 90th percentile of the LMO calls per solve, and the largest certified
// relative gap (value - lower_bound) / max(1, |value|).
//
// With --problem: a `scfw run` problem file (e.g. one bench/experiment_runs.py writes from
// experiments/task3_movielens_full.json) run for K iterations (default: the file's) by the host's
// own loop without gap reports, its GLMO set up again over a domain that counts the LMO calls.
// Prints, over the K solves, the LMO calls per solve (median, p90, max), GLMO ms per solve
// (median, p90), the largest certified relative gap, and the loop's ms per iteration (wall clock,
// and the process's CPU time over the loop, which a busy machine does not inflate).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_support.hpp"
#include "counting_domain.hpp"  // tests/
#include "scfw/core/registry.hpp"
#include "scfw/host.hpp"
#include "scfw/scfw.hpp"

using namespace scfw;
using namespace scfw::bench;
using scfw::test::CountingDomain;

namespace {

// A GLMO that records, per solve, the LMO calls, the wall time and the certified relative gap.
class RecordingGlmo final : public Glmo {
 public:
  RecordingGlmo(std::unique_ptr<Glmo> inner, const CountingDomain& domain) : inner_(std::move(inner)), domain_(domain) {}
  bool supports(const OuterFunction& outer, const Domain& domain, int n, int d, std::string* why) const override {
    return inner_->supports(outer, domain, n, d, why);
  }
  void setup(const OuterFunction& outer, const Domain& domain, int n, int d) override { inner_->setup(outer, domain, n, d); }
  GlmoResult solve(const Vec& z, const Jacobian& V, const Vec& y, Vec& x) override {
    const long before = domain_.calls;
    const auto t0 = std::chrono::steady_clock::now();
    const GlmoResult r = inner_->solve(z, V, y, x);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    lmo.push_back(static_cast<double>(domain_.calls - before));
    const double lb = std::isnan(r.lower_bound) ? r.value : r.lower_bound;
    gap.push_back((r.value - lb) / std::max(1.0, std::abs(r.value)));
    return r;
  }
  void set_step(double gamma) override { inner_->set_step(gamma); }
  Capabilities capabilities() const override { return inner_->capabilities(); }
  std::string describe() const override { return inner_->describe(); }
  void save_state(StateWriter& w) const override { inner_->save_state(w); }
  void load_state(StateReader& r) override { inner_->load_state(r); }
  std::vector<double> ms, lmo, gap;

 private:
  std::unique_ptr<Glmo> inner_;
  const CountingDomain& domain_;
};

// The q-quantile of v (the element at floor(q size) of the sorted copy).
double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

int run_problem(const std::string& file, long iterations, bool factors) {
  Overrides overrides;
  if (iterations > 0) overrides.iterations = iterations;
  Host host;
  Composition c = host.load_problem(file, overrides);
  c.options.report_every = 0;
  c.options.final_report = false;
  c.options.factors = factors;  // y as factors under observed coordinates (the iterates do not change)
  const int n = c.problem.oracle->outputs(), d = c.problem.oracle->dim();
  CountingDomain counting(*c.problem.domain);
  auto rec = std::make_unique<RecordingGlmo>(std::move(c.method.glmo), counting);
  rec->setup(*c.problem.outer, counting, n, d);
  RecordingGlmo& r = *rec;
  c.method.glmo = std::move(rec);
  const std::clock_t c0 = std::clock();
  const Summary s = solve(c);
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double k = static_cast<double>(s.iterations);
  double worst = 0.0;
  for (double g : r.gap) worst = std::max(worst, g);
  std::printf("bench_cg: %s, %ld iterations (d = %d, n = %d)\n  glmo: %s\n", file.c_str(), s.iterations, d, n,
              r.describe().c_str());
  std::printf("  LMO calls per solve: median %g, p90 %g, max %g, mean %.2f\n", quantile(r.lmo, 0.5), quantile(r.lmo, 0.9),
              quantile(r.lmo, 1.0), [&] {
                double t = 0;
                for (double v : r.lmo) t += v;
                return t / std::max<size_t>(1, r.lmo.size());
              }());
  std::printf("  GLMO ms per solve: median %.3f, p90 %.3f; max certified (value - bound)/max(1, |value|) %.3g\n",
              quantile(r.ms, 0.5), quantile(r.ms, 0.9), worst);
  std::printf("  ms per iteration (loop, no gap reports): %.3f wall (glmo %.3f, oracle %.3f, tracker %.3f), %.3f CPU\n",
              1e3 * (s.times.total() - s.times.gap) / k, 1e3 * s.times.glmo / k, 1e3 * s.times.oracle / k,
              1e3 * s.times.tracker / k, 1e3 * cpu / k);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 300, n = 20;
  double tau = 5.0;
  unsigned seed = 1;
  std::string problem;
  long iterations = 0;
  double smoothing = 0.5;
  bool carry = true;
  bool factors = true;
  Options opts;
  opts.add("--steps", steps).add("--groups", n).add("--radius", tau).add("--seed", seed).add("--problem", problem).add(
      "--iterations", iterations).add("--smoothing", smoothing).add("--carry", carry).add("--factors", factors);
  if (!opts.parse(argc, argv)) return 2;
  if (!problem.empty()) return with_plugins([&](Registry&) { return run_problem(problem, iterations, factors); });
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
    CountingDomain counting(*domain);
    auto cg = [&](const char* master, double tol) {
      auto g = reg.make<Glmo>("column_generation",
                              {{"master", master}, {"tolerance", tol}, {"smoothing", smoothing}, {"carry_center", carry}},
                              ctx, "bench_cg", "/glmo");
      g->setup(*outer, counting, n, d);
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
    std::printf("  master  tolerance   median ms   p90 ms   iterations/solve   LMO calls/solve median, p90   max (value - "
                "bound)/max(1, |value|)\n");
    double med[2][2] = {};
    const char* masters[2] = {"dense", "clp"};
    const double tols[2] = {1e-7, 1e-3};
    for (int ti = 0; ti < 2; ++ti)
      for (int mi = 0; mi < 2; ++mi) {
        auto g = cg(masters[mi], tols[ti]);
        std::vector<double> t(static_cast<size_t>(steps)), calls(static_cast<size_t>(steps));
        double its = 0, worst = 0;
        Vec xk(d);
        for (int k = 0; k < steps; ++k) {
          const long c0 = counting.calls;
          const auto t0 = std::chrono::steady_clock::now();
          const GlmoResult r = g->solve(zs[static_cast<size_t>(k)], Vs[static_cast<size_t>(k)], ys[static_cast<size_t>(k)], xk);
          const auto t1 = std::chrono::steady_clock::now();
          t[static_cast<size_t>(k)] = std::chrono::duration<double, std::milli>(t1 - t0).count();
          calls[static_cast<size_t>(k)] = static_cast<double>(counting.calls - c0);
          its += static_cast<double>(r.iterations);
          worst = std::max(worst, (r.value - r.lower_bound) / std::max(1.0, std::abs(r.value)));
        }
        std::sort(t.begin(), t.end());
        med[ti][mi] = t[t.size() / 2];
        std::printf("  %-6s  %-9g  %9.3f  %8.3f   %16.1f   %14g, %g   %.3g\n", masters[mi], tols[ti], t[t.size() / 2],
                    t[t.size() * 9 / 10], its / steps, quantile(calls, 0.5), quantile(calls, 0.9), worst);
      }
    std::printf("  ratio dense / clp (median): tolerance 1e-7 %.3f, tolerance 1e-3 %.3f\n", med[0][0] / med[0][1],
                med[1][0] / med[1][1]);
    std::printf("  ratio tolerance 1e-3 / 1e-7 (median, dense): %.3f\n", med[1][0] / med[0][0]);
    return 0;
  });
}
