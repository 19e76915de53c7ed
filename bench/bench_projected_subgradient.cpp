// bench_projected_subgradient: the measured case for Frank-Wolfe on the nuclear ball (issue #23,
// item 5; docs/results.md, "The case for Frank-Wolfe on the nuclear ball"). On a Task 3 problem
// file (matrix_completion under the l1 norm over a nuclear ball), the time each method needs to
// bring the objective F(f(X)) to a relative accuracy of 1e-1 and 1e-2:
//
//   bench_projected_subgradient PROBLEM.json METHOD [options]
//
// METHOD
//   scfw         the file's own method (tracker, schedule, GLMO), run by scfw::Solver;
//   subgradient  projected stochastic subgradient: X <- P(X - a_k J~^T sign(f~)), a_k = c / sqrt(k + 1),
//                J~, f~ from one draw of the file's oracle (--subgradient exact: the exact f and J,
//                one pass over the observed entries), P the Euclidean projection onto
//                {||X||_* <= tau} by a full SVD (Eigen's BDCSVD) of X and the projection of its
//                singular values onto {s >= 0, sum s <= tau};
//   fw           deterministic Frank-Wolfe with exact passes: the exact f(y_k) and J(y_k), the
//                file's GLMO (the same block scfw uses), y_{k+1} = (1 - g_k) y_k + g_k x_k,
//                g_k = 2 / (k + 2). Prints each solve's certified lower bound: f is affine, so the
//                GLMO's model min_X F(f(y) + J (X - y)) is the problem's optimum F* itself, and
//                its lower bound is a certified lower bound on F*;
//   svd N        the time of one projection of an N x N Gaussian matrix onto the ball of radius
//                N (the per-step cost of `subgradient` at that size), --repeats times.
//
// Options: --seconds T (budget of CPU seconds per run, default 300), --reference F (the
// certified lower bound on F* that the relative accuracy is taken against; default 0, the
// norm's own bound), --iterations K (scfw: the run's K, which its schedule reads; default the
// file's; subgradient and fw: a cap, default unlimited), --c C (subgradient's step constant,
// default 1), --subgradient sampled|exact, --seed S (default the file's), --trace FILE (one row
// per iteration: iteration, CPU seconds, wall seconds, objective, relative accuracy), --repeats R.
//
// Relative accuracy of X: (F(X) - F_ref) / (F(X_0) - F_ref), X_0 the domain's start (0 here),
// F_ref the --reference bound (a lower bound on F*, so the accuracy printed is an upper bound of
// the true one). Times are CPU seconds of this process (the machine is shared; wall time is in
// the trace beside them), from the first iteration on: loading the data and composing the
// problem are not counted, nor the exact objective evaluations made for the trace.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "nuclear_projection.hpp"
#include "scfw/host.hpp"

namespace {

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
double wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

namespace {

/// The objective along a run, the first iterations and times at which it reached each accuracy.
class Record {
 public:
  Record(std::string label, double reference, const std::string& trace) : label_(std::move(label)), reference_(reference) {
    if (!trace.empty()) {
      out_ = std::fopen(trace.c_str(), "w");
      if (!out_) throw scfw::InputError(trace + ": cannot open the trace file");
      std::fprintf(out_, "# %s\n# iteration cpu_seconds wall_seconds objective relative\n", label_.c_str());
    }
  }
  ~Record() {
    if (out_) std::fclose(out_);
  }
  Record(const Record&) = delete;
  Record& operator=(const Record&) = delete;

  void start(double f0) {
    f0_ = f0;
    add(0, 0.0, 0.0, f0);
  }
  double relative(double f) const { return (f - reference_) / (f0_ - reference_); }
  void add(long k, double cpu, double wall, double f) {
    const double rel = relative(f);
    best_ = std::min(best_, rel);
    last_k_ = k;
    last_cpu_ = cpu;
    for (size_t i = 0; i < kLevels.size(); ++i)
      if (hit_[i] < 0 && rel <= kLevels[i]) {
        hit_[i] = k;
        hit_cpu_[i] = cpu;
        hit_wall_[i] = wall;
      }
    if (out_) {
      std::fprintf(out_, "%ld %.6f %.6f %.10g %.6g\n", k, cpu, wall, f, rel);
      std::fflush(out_);
    }
  }
  void print(double budget) const {
    std::printf("%s: F(X_0) = %.8g, reference %.8g; best relative accuracy %.4g; %ld iterations in %.2f CPU s\n", label_.c_str(), f0_,
                reference_, best_, last_k_, last_cpu_);
    for (size_t i = 0; i < kLevels.size(); ++i) {
      if (hit_[i] >= 0)
        std::printf("  %g: reached after %ld iterations, %.3f CPU s (%.3f s wall)\n", kLevels[i], hit_[i], hit_cpu_[i], hit_wall_[i]);
      else
        std::printf("  %g: not reached in %.1f CPU s (%ld iterations; budget %.0f CPU s)\n", kLevels[i], last_cpu_, last_k_, budget);
    }
  }

 private:
  static constexpr std::array<double, 2> kLevels{1e-1, 1e-2};
  std::string label_;
  double reference_, f0_ = 0.0, best_ = std::numeric_limits<double>::infinity();
  long last_k_ = 0;
  double last_cpu_ = 0.0;
  std::array<long, 2> hit_{-1, -1};
  std::array<double, 2> hit_cpu_{}, hit_wall_{};
  std::FILE* out_ = nullptr;
};

double objective(const scfw::Problem& p, const scfw::Vec& x, scfw::Vec& f) {
  p.oracle->exact(x, &f, nullptr);
  return p.outer->value(f, x);
}

/// g = J^T u for a Jacobian of either kind.
void transpose_times(const scfw::Jacobian& J, const scfw::Vec& u, scfw::Vec& g) {
  if (!J.is_sparse()) {
    g.noalias() = J.dense().transpose() * u;
    return;
  }
  g.setZero();
  const scfw::JacobianPattern& p = J.pattern();
  const double* v = J.data();
  for (int i = 0; i < p.rows(); ++i) {
    if (u[i] == 0.0) continue;
    for (std::int64_t t = p.row_start()[static_cast<size_t>(i)]; t < p.row_start()[static_cast<size_t>(i) + 1]; ++t)
      g[p.col()[static_cast<size_t>(t)]] += u[i] * v[t];
  }
}

/// Stops scfw's run at the CPU budget and records the objective after each iteration (the
/// evaluation's own CPU time taken out of the clock).
class Watch final : public scfw::Callback {
 public:
  Watch(const scfw::Problem& p, Record& r, double budget, double cpu0, double wall0)
      : p_(p), r_(r), budget_(budget), cpu0_(cpu0), wall0_(wall0), f_(p.outputs()) {}
  scfw::CallbackResult on_iteration(const scfw::IterationState& s) override {
    const double c0 = cpu_now(), w0 = wall_now();
    const double cpu = c0 - cpu0_ - eval_cpu_, wall = w0 - wall0_ - eval_wall_;
    r_.add(s.iteration, cpu, wall, objective(p_, *s.y, f_));
    eval_cpu_ += cpu_now() - c0;
    eval_wall_ += wall_now() - w0;
    return cpu > budget_ ? scfw::CallbackResult::Stop : scfw::CallbackResult::Continue;
  }

 private:
  const scfw::Problem& p_;
  Record& r_;
  double budget_, cpu0_, wall0_, eval_cpu_ = 0.0, eval_wall_ = 0.0;
  scfw::Vec f_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_projected_subgradient PROBLEM.json scfw|subgradient|fw [options] | svd N [--repeats R]\n");
    return 2;
  }
  const std::string file = argv[1], method = argv[2];
  double budget = 300.0, reference = 0.0, c = 1.0;
  long K = 0, repeats = 1;
  long seed = -1;
  std::string mode = "sampled", trace;
  scfw::bench::Options opts;
  opts.add("--seconds", budget).add("--reference", reference).add("--iterations", K).add("--c", c).add("--subgradient", mode);
  opts.add("--seed", seed).add("--trace", trace).add("--repeats", repeats);
  if (!opts.parse(argc - 2, argv + 2)) return 2;
  if (mode != "sampled" && mode != "exact") {
    std::fprintf(stderr, "--subgradient: expected sampled or exact, got %s\n", mode.c_str());
    return 2;
  }
  try {
    if (file == "svd") {
      // bench_projected_subgradient svd N: the projection's cost at N x N.
      const int N = std::atoi(method.c_str());
      if (N < 1) {
        std::fprintf(stderr, "svd: expected a size N >= 1, got %s\n", method.c_str());
        return 2;
      }
      std::mt19937_64 g(1);
      std::normal_distribution<double> normal;
      std::vector<double> x(static_cast<size_t>(N) * N);
      for (double& v : x) v = normal(g);
      for (long r = 0; r < repeats; ++r) {
        std::vector<double> y = x;
        const double c0 = cpu_now(), w0 = wall_now();
        const double before = scfw::bench::project_nuclear(y.data(), N, N, N);
        std::printf("svd %d x %d: projection onto the nuclear ball of radius %d (norm before %.6g): %.3f CPU s, %.3f s wall\n", N, N, N,
                    before, cpu_now() - c0, wall_now() - w0);
      }
      return 0;
    }
    if (method != "scfw" && method != "subgradient" && method != "fw") {
      std::fprintf(stderr, "unknown method %s: expected scfw, subgradient or fw\n", method.c_str());
      return 2;
    }
    scfw::Overrides overrides;
    if (method == "scfw" && K > 0) overrides.iterations = K;
    if (seed >= 0) overrides.seed = static_cast<std::uint64_t>(seed);
    scfw::Host host;
    scfw::Composition comp = host.load_problem(file, overrides);
    scfw::Problem& p = comp.problem;
    const std::vector<int> shape = p.domain->shape();
    const std::string domain_name = p.plugins.size() > 2 ? p.plugins[2].second : "";
    // Observed coordinates (x at the matrix's observed entries) serve scfw and fw; the
    // projection needs the whole matrix.
    const bool observed = shape.empty() && p.oracle->matrix_entries() != nullptr;
    if (observed && method == "subgradient") {
      std::fprintf(stderr, "%s: /oracle: the projection needs the whole matrix: drop \"coordinates\": \"observed\"\n", file.c_str());
      return 2;
    }
    if ((shape.size() != 2 && !observed) || domain_name != "nuclear_ball") {
      std::fprintf(stderr, "%s: /domain: expected a nuclear_ball domain\n", file.c_str());
      return 2;
    }
    const nlohmann::json doc = scfw::read_json_file(file);
    const double tau = doc["domain"].value("radius", 1.0);
    const int n = p.outputs(), d = p.dim();
    scfw::Vec f(n);
    const scfw::Vec x0 = p.domain->initial_point();
    std::string label = method;
    if (method == "subgradient") {
      char buf[64];
      std::snprintf(buf, sizeof buf, " (%s, c = %g)", mode.c_str(), c);
      label += buf;
    }
    Record rec(label, reference, trace);
    rec.start(objective(p, x0, f));
    if (method == "scfw") {
      comp.options.report_every = 0;
      comp.options.final_report = false;
      scfw::Solver solver(comp, comp.options);
      Watch watch(p, rec, budget, cpu_now(), wall_now());
      solver.add_callback(watch);
      const scfw::Summary s = solver.run();
      std::printf("scfw: %s; %s\n", s.message.c_str(), s.glmo_solver.c_str());
    } else if (method == "subgradient") {
      scfw::Vec x = x0, g(d), sgn(n);
      scfw::Jacobian J = scfw::make_jacobian(*p.oracle);
      auto sample = p.oracle->make_sample();
      scfw::Rng rng(seed >= 0 ? static_cast<std::uint64_t>(seed) : comp.options.seed);
      double cpu = 0.0, wall = 0.0, projection = 0.0;
      long binding = 0, steps = 0, fallbacks = 0;
      for (long k = 0; (K <= 0 || k < K) && cpu <= budget; ++k) {
        const double c0 = cpu_now(), w0 = wall_now();
        if (mode == "sampled") {
          p.oracle->draw(rng, *sample);
          p.oracle->evaluate(*sample, x, &f, &J);
        } else {
          p.oracle->exact(x, &f, &J);
        }
        sgn = f.array().sign();  // a subgradient of ||.||_1 at f
        transpose_times(J, sgn, g);
        x -= (c / std::sqrt(static_cast<double>(k + 1))) * g;
        const double c1 = cpu_now();
        if (scfw::bench::project_nuclear(x.data(), shape[0], shape[1], tau, &fallbacks) > tau) ++binding;
        projection += cpu_now() - c1;
        ++steps;
        cpu += cpu_now() - c0;
        wall += wall_now() - w0;
        rec.add(k + 1, cpu, wall, objective(p, x, f));
      }
      std::printf("subgradient: %.4f CPU s per projection (%ld of the %ld steps left the ball; %ld SVDs redone by JacobiSVD)\n",
                  projection / static_cast<double>(std::max<long>(1, steps)), binding, steps, fallbacks);
    } else {
      scfw::Vec y = x0, x(d);
      scfw::Jacobian J = scfw::make_jacobian(*p.oracle);
      double cpu = 0.0, wall = 0.0;
      for (long k = 0; (K <= 0 || k < K) && cpu <= budget; ++k) {
        const double c0 = cpu_now(), w0 = wall_now();
        p.oracle->exact(y, &f, &J);
        const scfw::GlmoResult r = comp.method.glmo->solve(f, J, y, x);
        const double gamma = 2.0 / static_cast<double>(k + 2);
        y = (1.0 - gamma) * y + gamma * x;
        cpu += cpu_now() - c0;
        wall += wall_now() - w0;
        const double F = objective(p, y, f);
        rec.add(k + 1, cpu, wall, F);
        std::printf("fw %ld: F(y) = %.10g, GLMO value %.10g, certified lower bound on F* %.10g, %ld GLMO iterations, %.3f CPU s\n",
                    k + 1, F, r.value, std::isnan(r.lower_bound) ? r.value : r.lower_bound, r.iterations, cpu);
        std::fflush(stdout);
      }
    }
    rec.print(budget);
  } catch (const scfw::InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
