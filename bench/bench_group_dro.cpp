// bench_group_dro: worst-group logistic regression (group DRO) with scfw and the methods that
// field uses, side by side on the same data and the same domain, in CPU seconds and data passes.
//
//   phi(x) = max_g f_g(x),  f_g(x) = 1/N_g sum_{r in g} log(1 + exp(-y_r a_r^T x)),  x in X
//
// The data are a LIBSVM file's rows (default: a9a from the shared data folder), grouped by the
// blocks of --group-by crossed with the label (the grouped_logistic oracle; 67-71 is a9a's race,
// 5 values, so 10 groups), or --rows N rows drawn from the file with Gaussian noise on the
// non-group features (the oracle's "resample"), built in memory. X is an l1 ball (default), an
// l2 ball or a box. The outer function is the max over groups (default), or with --outer
// cvar:<alpha> the mean of the worst alpha-fraction of the groups, or dro_chi2:<rho> the chi^2
// DRO of the group losses (phi(x) = F(f_1(x), ..., f_n(x)) in the formulas below). Methods
// (each a comma-separated list item; every family has the same number of settings in the
// default lists, its tuning budget):
//
//   scfw:<value>:<B>      scfw, momentum tracker ("taylor" or "polyak"), Theorem 2's convex
//                         schedule, B rows per group per sample, the host's GLMO
//   fw                    deterministic Frank-Wolfe: scfw on the exact oracle (batch 0, one pass
//                         per iteration), the deterministic convex schedule gamma_k = 2/(k+2)
//   gdro:<B>:<eta>:<eta_q>[:avg]   online group DRO (Sagawa et al. 2020, Algorithm 1) on B rows
//                         of every group per step: q <- q exp(eta_q f~) / sum, x <- P_X(x - eta
//                         J~^T q); the last iterate, or with "avg" the weighted average
//                         x^_{k+1} = x^_k + 2/(k+2) (x_{k+1} - x^_k)
//   cvar:<B>:<eta>[:avg]  stochastic subgradient on the Rockafellar-Uryasev form of the CVaR
//                         (of the max: alpha = 1/n): min_{x, tau} tau + 1/(alpha n) sum_g
//                         (f_g(x) - tau)_+, steps eta / sqrt(k + 1) on (x, tau), x projected
//                         on X; "avg" as above (with --outer max or cvar only; gdro with max only)
//
// Each run has the same CPU budget (--seconds). The iterate is copied at checkpoints spaced
// geometrically in CPU time (ratio 1.25 from 1 ms), and phi is computed exactly at each outside
// the timed region. phi* is the smallest phi seen by any run; the bench also prints a certified
// lower bound (the generalized Frank-Wolfe bound min_x F(f(y) + J(y) (x - y)), solved by the
// host's GLMO, valid as F is convex and monotone and f convex; the largest over the best point
// and every run's last point), so the relative errors below are at most (phi - lower) / lower.
// With --optimum-passes K, exact Frank-Wolfe also runs K passes after the timed runs, and its
// last point joins the candidates for phi* and the bound (a tighter certificate; not timed).
//
//   bench_group_dro --blocks                       the exclusive-feature blocks of the file and
//                                                  their counts (how the groups were identified)
//   bench_group_dro --rows 0,1000000 --seconds 20  the table of time and passes to 1e-1 / 1e-2
//   bench_group_dro --curves FILE                  also writes every run's checkpoints
//   bench_group_dro --outer cvar:0.25 --optimum-passes 1000
//                                                  the CVaR of the group losses, phi* certified
//                                                  by 1000 exact Frank-Wolfe passes
//   bench_group_dro --group-by 67-71,72-73 --erm TEST_FILE
//                                                  group DRO against plain ERM (one group of all
//                                                  rows), worst-group and average loss on the
//                                                  file and on TEST_FILE
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../plugins/oracle/grouped_logistic/grouped_data.hpp"
#include "bench_support.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"

using namespace scfw;
using namespace scfw::bench;

namespace {

struct Checkpoints {
  std::vector<double> cpu, passes;
  std::vector<Vec> ys;
  double next = 1e-3;
  /// Copies y when the CPU time has passed the next checkpoint.
  void offer(double t, double passes_done, const Vec& y) {
    if (t < next) return;
    cpu.push_back(t);
    passes.push_back(passes_done);
    ys.push_back(y);
    while (next <= t) next *= 1.25;
  }
};

struct Run {
  std::string label;
  Checkpoints points;
  std::vector<double> phi;
  long iterations = 0;
  double cpu = 0;
};

struct Setup {
  std::string file, group_by, domain = "l1", outer = "max";
  double radius = 10, noise = 0.1;
  std::int64_t rows = 0;
};

nlohmann::json domain_block(const Setup& s) {
  if (s.domain == "l1") return {{"plugin", "l1_ball"}, {"radius", s.radius}};
  if (s.domain == "l2") return {{"plugin", "l2_ball"}, {"radius", s.radius}};
  if (s.domain == "box") return {{"plugin", "box"}, {"lower", -s.radius}, {"upper", s.radius}};
  throw std::runtime_error("unknown --domain " + s.domain + " (l1, l2, box)");
}

/// --outer: "max", "cvar:<alpha>" or "dro_chi2:<rho>".
nlohmann::json outer_block(const Setup& s) {
  if (s.outer == "max") return {{"plugin", "max"}};
  const auto colon = s.outer.find(':');
  const std::string kind = s.outer.substr(0, colon);
  if (colon != std::string::npos && kind == "cvar") return {{"plugin", "cvar"}, {"alpha", std::stod(s.outer.substr(colon + 1))}};
  if (colon != std::string::npos && kind == "dro_chi2") return {{"plugin", "dro_chi2"}, {"rho", std::stod(s.outer.substr(colon + 1))}};
  throw std::runtime_error("unknown --outer " + s.outer + " (max, cvar:<alpha>, dro_chi2:<rho>)");
}

Problem make_problem(const Registry& registry, const Setup& s, int batch) {
  nlohmann::json oracle = {{"plugin", "grouped_logistic"}, {"file", s.file}, {"group_by", s.group_by}, {"batch", batch}};
  if (s.rows > 0) oracle["resample"] = {{"rows", s.rows}, {"noise", s.noise}, {"seed", 1}};
  const nlohmann::json doc = {{"oracle", oracle}, {"outer", outer_block(s)}, {"domain", domain_block(s)}};
  return compose_problem(registry, doc, "bench_group_dro", ".");
}

/// Euclidean projection onto X.
void project(const Setup& s, Vec& x) {
  if (s.domain == "box") {
    x = x.cwiseMax(-s.radius).cwiseMin(s.radius);
  } else if (s.domain == "l2") {
    const double n = x.norm();
    if (n > s.radius) x *= s.radius / n;
  } else {  // l1: soft-threshold at the level that brings ||x||_1 to the radius (sorting)
    if (x.lpNorm<1>() <= s.radius) return;
    std::vector<double> a(static_cast<std::size_t>(x.size()));
    for (Eigen::Index j = 0; j < x.size(); ++j) a[static_cast<std::size_t>(j)] = std::abs(x[j]);
    std::sort(a.begin(), a.end(), std::greater<double>());
    double sum = 0, theta = 0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      sum += a[k];
      const double t = (sum - s.radius) / static_cast<double>(k + 1);
      if (a[k] > t) theta = t;
    }
    for (Eigen::Index j = 0; j < x.size(); ++j) x[j] = std::copysign(std::max(0.0, std::abs(x[j]) - theta), x[j]);
  }
}

/// scfw through the Solver, stopped by the CPU budget (the callback), y copied at checkpoints.
Run run_scfw(const Registry& registry, Problem& problem, const std::string& label, const nlohmann::json& tracker,
             const nlohmann::json& schedule, double rows_per_iteration, double N, double seconds, std::uint64_t seed) {
  Run run;
  run.label = label;
  Method method = compose_method(registry, problem, {&tracker, "/tracker"}, {&schedule, "/schedule"}, {nullptr, "/glmo"});
  SolverOptions o = silent_run(1L << 40, seed);
  Solver solver(problem, method, o);
  double c0 = 0;
  solver.add_callback([&](const IterationState& st) {
    const double t = cpu_now() - c0;
    run.points.offer(t, static_cast<double>(st.iteration) * rows_per_iteration / N, *st.y);
    run.iterations = st.iteration;
    return t < seconds;
  });
  c0 = cpu_now();
  solver.run();
  run.cpu = cpu_now() - c0;
  return run;
}

/// The loop both stochastic baselines share: each step draws B rows of every group (rows_per_step
/// = n B), evaluates f~ and J~ at x and calls step(k, f~, J~, x), which moves x (and projects it);
/// the checkpoints take x, or with `average` the weighted average x^_{k+1} = x^_k + 2/(k+2)
/// (x_{k+1} - x^_k).
template <class Step>
Run run_stochastic(const Problem& problem, const std::string& label, bool average, double rows_per_step, double N,
                   double seconds, std::uint64_t seed, Step step) {
  Run run;
  run.label = label;
  const Oracle& o = *problem.oracle;
  auto sample = o.make_sample();
  Jacobian J = make_jacobian(o);
  Vec f(o.outputs()), x = problem.domain->initial_point(), mean = x;
  Rng rng(seed);
  const double c0 = cpu_now();
  for (long k = 0;; ++k) {
    const double t = cpu_now() - c0;
    run.points.offer(t, static_cast<double>(k) * rows_per_step / N, average ? mean : x);
    if (t >= seconds) break;
    o.draw(rng, *sample);
    o.evaluate(*sample, x, &f, &J);
    step(k, f, J, x);
    mean += (2.0 / (static_cast<double>(k) + 2.0)) * (x - mean);
    run.iterations = k + 1;
  }
  run.cpu = cpu_now() - c0;
  return run;
}

/// Online group DRO: q <- q exp(eta_q f~) / sum (kept as logarithms), x <- P_X(x - eta J~^T q).
Run run_gdro(const Problem& problem, const Setup& s, const std::string& label, double eta, double eta_q, bool average,
             double rows_per_step, double N, double seconds, std::uint64_t seed) {
  const int n = problem.outputs();
  Vec logq = Vec::Zero(n), q(n), g(problem.dim());
  return run_stochastic(problem, label, average, rows_per_step, N, seconds, seed,
                        [&](long, const Vec& f, const Jacobian& J, Vec& x) {
                          logq += eta_q * f;
                          q = (logq.array() - logq.maxCoeff()).exp();
                          q /= q.sum();
                          J.transpose_multiply(q, g);
                          x -= eta * g;
                          project(s, x);
                        });
}

/// Stochastic subgradient on min_{x, tau} tau + c sum_g (f~_g(x) - tau)_+, c = 1/(alpha n) (1 for
/// the max, alpha = 1/n), steps eta / sqrt(k + 1).
Run run_cvar(const Problem& problem, const Setup& s, const std::string& label, double eta, bool average,
             double rows_per_step, double N, double seconds, std::uint64_t seed) {
  const int n = problem.outputs();
  double c = 1.0;
  if (s.outer != "max") {
    const nlohmann::json outer = outer_block(s);
    if (outer["plugin"] != "cvar") throw std::runtime_error("cvar:... runs with --outer max or cvar:<alpha> only");
    c = 1.0 / (outer["alpha"].get<double>() * n);
  }
  Vec w(n), g(problem.dim());
  double tau = 0;
  return run_stochastic(problem, label, average, rows_per_step, N, seconds, seed,
                        [&](long k, const Vec& f, const Jacobian& J, Vec& x) {
                          int above = 0;
                          for (int i = 0; i < n; ++i) {
                            w[i] = f[i] > tau ? c : 0.0;
                            above += f[i] > tau;
                          }
                          J.transpose_multiply(w, g);
                          const double step = eta / std::sqrt(static_cast<double>(k) + 1.0);
                          x -= step * g;
                          tau -= step * (1.0 - c * above);
                          project(s, x);
                        });
}

double phi_exact(const Problem& p, const Vec& y) {
  Vec f(p.outputs());
  p.oracle->exact(y, &f, nullptr);
  return p.outer->value(f, y);
}

/// The first checkpoint within `tol` of phi* (relative): its CPU seconds and passes, or "-".
std::string hit(const Run& r, double phi_star, double tol) {
  for (std::size_t k = 0; k < r.phi.size(); ++k)
    if (r.phi[k] - phi_star <= tol * std::abs(phi_star)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f s, %.3g passes", r.points.cpu[k], r.points.passes[k]);
      return buf;
    }
  return "-";
}

/// y_K of K iterations of deterministic Frank-Wolfe (exact passes) on `problem`, and its gap.
Vec solve_fw(const Registry& registry, Problem& problem, long K, double* gap) {
  const nlohmann::json tracker = {{"plugin", "vanilla"}}, schedule = {{"plugin", "deterministic"}, {"step", "convex"}};
  Method method = compose_method(registry, problem, {&tracker, "/tracker"}, {&schedule, "/schedule"}, {nullptr, "/glmo"});
  SolverOptions o = silent_run(K, 1);
  o.final_report = true;
  Solver solver(problem, method, o);
  Vec y;
  solver.add_callback([&](const IterationState& st) {
    if (st.iteration == K) y = *st.y;
    return true;
  });
  *gap = solver.run().final_gap;
  return y;
}

/// Group DRO against plain ERM on the same data: each solved by K exact Frank-Wolfe passes, then
/// the worst-group and the average loss of both on the training file and on `test`.
void compare_erm(const Registry& registry, const Setup& s, const std::string& test, long K) {
  auto problem = [&](const std::string& file, bool groups) {
    nlohmann::json oracle = {{"plugin", "grouped_logistic"}, {"file", file}, {"batch", 0}, {"features", 123}};
    if (groups) oracle["group_by"] = s.group_by;
    else oracle["by_label"] = false;
    const nlohmann::json doc = {{"oracle", oracle}, {"outer", {{"plugin", "max"}}}, {"domain", domain_block(s)}};
    return compose_problem(registry, doc, "bench_group_dro", ".");
  };
  Problem dro = problem(s.file, true), erm = problem(s.file, false);
  Problem dro_test = problem(test, true), erm_test = problem(test, false);
  double gap_dro = 0, gap_erm = 0;
  const Vec x_dro = solve_fw(registry, dro, K, &gap_dro), x_erm = solve_fw(registry, erm, K, &gap_erm);
  std::printf("group DRO against ERM, %d groups (%s x label), %s ball radius %g, %ld exact Frank-Wolfe passes each "
              "(final gaps: DRO %.2e, ERM %.2e)\n",
              dro.outputs(), s.group_by.c_str(), s.domain.c_str(), s.radius, K, gap_dro, gap_erm);
  std::printf("  %-10s %-6s %12s %12s %s\n", "solution", "data", "worst group", "average", "worst group's name");
  for (const auto& [name, x] : {std::pair<const char*, const Vec*>{"group DRO", &x_dro}, {"ERM", &x_erm}}) {
    for (const auto& [data, g, a] : {std::tuple<const char*, Problem*, Problem*>{"train", &dro, &erm}, {"test", &dro_test, &erm_test}}) {
      Vec f(g->outputs()), f1(1);
      g->oracle->exact(*x, &f, nullptr);
      a->oracle->exact(*x, &f1, nullptr);
      Eigen::Index worst = 0;
      f.maxCoeff(&worst);
      std::printf("  %-10s %-6s %12.6f %12.6f %s\n", name, data, f[worst], f1[0],
                  g->oracle->output_names()[static_cast<std::size_t>(worst)].c_str());
    }
  }
}

void print_blocks(const std::string& file) {
  const auto data = libsvm::read(file);
  std::vector<std::int64_t> count;
  const auto blocks = grouped::exclusive_blocks(data, &count);
  std::printf("%s: %zu rows, %d features; blocks of consecutive features with exactly one set per row:\n", file.c_str(),
              data.rows(), data.max_index);
  for (const auto& b : blocks) {
    std::printf("  %d-%d (%d values):", b.first, b.last, b.size());
    for (int j = b.first; j <= b.last; ++j)
      std::printf(" %d:%lld (%.1f%%)", j, static_cast<long long>(count[static_cast<std::size_t>(j)]),
                  100.0 * static_cast<double>(count[static_cast<std::size_t>(j)]) / static_cast<double>(data.rows()));
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Setup s;
  const char* env = std::getenv("SCFW_DATA_DIR");
  s.file = std::string(env ? env : SCFW_DEFAULT_DATA_DIR) + "/a9a";
  s.group_by = "67-71";
  std::vector<long> rows = {0};
  std::vector<std::string> methods = {"scfw:taylor:10", "scfw:taylor:100", "scfw:polyak:100", "scfw:taylor:1000",
                                      "gdro:10:0.3:0.1",  "gdro:100:0.3:0.1", "gdro:10:1:0.1:avg", "gdro:100:1:0.1:avg",
                                      "cvar:10:1",        "cvar:100:1",       "cvar:10:3:avg",     "cvar:100:3:avg",
                                      "fw"};
  double seconds = 10;
  std::uint64_t seed = 1;
  bool blocks = false;
  std::string curves, erm_test;
  long erm_passes = 2000;
  Options opts;
  opts.add("--file", s.file).add("--group-by", s.group_by).add("--rows", rows).add("--noise", s.noise);
  long optimum_passes = 0;
  opts.add("--outer", s.outer).add("--optimum-passes", optimum_passes);
  opts.add("--domain", s.domain).add("--radius", s.radius).add("--methods", methods).add("--seconds", seconds);
  opts.add("--seed", seed).add("--curves", curves).flag("--blocks", blocks);
  opts.add("--erm", erm_test).add("--erm-passes", erm_passes);
  if (!opts.parse(argc, argv)) return 2;
  try {
    if (blocks) {
      print_blocks(s.file);
      return 0;
    }
    Registry registry;
    registry.load_path(Registry::search_path());
    if (!erm_test.empty()) {
      compare_erm(registry, s, erm_test, erm_passes);
      return 0;
    }
    std::ofstream curve_out;
    if (!curves.empty()) {
      curve_out.open(curves);
      curve_out << "# rows method cpu_s passes phi rel_err\n";
    }
    for (const long N_rows : rows) {
      s.rows = N_rows;
      std::vector<Run> runs;
      const double c0 = cpu_now();
      Problem base = make_problem(registry, s, 0);  // the exact oracle: fw, and phi at the checkpoints
      const int n = base.outputs();
      std::printf("bench_group_dro: %s, group_by %s x label: %d groups, %s rows%s, %s ball radius %g, outer %s, "
                  "CPU budget %g s per run, seed %llu (data built in %.1f s CPU)\n",
                  s.file.c_str(), s.group_by.c_str(), n, N_rows > 0 ? std::to_string(N_rows).c_str() : "the file's",
                  N_rows > 0 ? (" (resampled, noise " + std::to_string(s.noise) + ")").c_str() : "", s.domain.c_str(),
                  s.radius, s.outer.c_str(), seconds, static_cast<unsigned long long>(seed), cpu_now() - c0);
      const double N = static_cast<double>(N_rows > 0 ? N_rows : static_cast<long>(libsvm::read(s.file).rows()));
      std::unique_ptr<Problem> current;
      int current_batch = -1;
      // Fields of each method; the runs go by batch so that each batch's data is built once.
      std::vector<std::vector<std::string>> fields;
      std::vector<std::pair<int, std::size_t>> order;
      for (const std::string& m : methods) {
        std::vector<std::string> f;
        std::string item;
        std::stringstream ss(m);
        while (std::getline(ss, item, ':')) f.push_back(item);
        const int B = f[0] == "fw" ? 0 : std::atoi(f.at(f[0] == "scfw" ? 2 : 1).c_str());
        order.emplace_back(B, fields.size());
        fields.push_back(f);
      }
      std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      runs.resize(methods.size());
      for (const auto& [batch, index] : order) {
        const std::string& m = methods[index];
        const std::vector<std::string>& f = fields[index];
        Run& out = runs[index];
        const std::string kind = f[0];
        if (kind == "fw") {
          const nlohmann::json tracker = {{"plugin", "vanilla"}},
                               schedule = {{"plugin", "deterministic"}, {"step", "convex"}};
          out = run_scfw(registry, base, "fw", tracker, schedule, N, N, seconds, seed);
          continue;
        }
        const int B = batch;
        if (B != current_batch) {  // one problem per batch at a time (the data is held once more)
          current.reset();
          current = std::make_unique<Problem>(make_problem(registry, s, B));
          current_batch = B;
        }
        Problem& p = *current;
        std::fprintf(stderr, "  running %s\n", m.c_str());
        const double per = static_cast<double>(n) * B;
        if (kind == "scfw") {
          const nlohmann::json tracker = {{"plugin", "momentum"}, {"value", f.at(1)}},
                               schedule = {{"plugin", "convex"}, {"r", 2}};
          out = run_scfw(registry, p, m, tracker, schedule, per, N, seconds, seed);
        } else if (kind == "gdro") {
          if (s.outer != "max") throw std::runtime_error("gdro:... runs with --outer max only");
          out = run_gdro(p, s, m, std::atof(f.at(2).c_str()), std::atof(f.at(3).c_str()), f.size() > 4 && f[4] == "avg", per, N,
                         seconds, seed);
        } else if (kind == "cvar") {
          out = run_cvar(p, s, m, std::atof(f.at(2).c_str()), f.size() > 3 && f[3] == "avg", per, N, seconds, seed);
        } else {
          throw std::runtime_error("unknown method " + m + " (scfw:<value>:<B>, fw, gdro:<B>:<eta>:<eta_q>[:avg], cvar:<B>:<eta>[:avg])");
        }
      }
      // phi at every checkpoint, outside the timed region.
      double phi_star = std::numeric_limits<double>::infinity();
      Vec y_star;
      std::vector<Vec> candidates;  // points whose Frank-Wolfe bound is computed: y*, each run's last
      for (Run& r : runs) {
        for (const Vec& y : r.points.ys) {
          r.phi.push_back(phi_exact(base, y));
          if (r.phi.back() < phi_star) {
            phi_star = r.phi.back();
            y_star = y;
          }
        }
        if (!r.points.ys.empty()) candidates.push_back(r.points.ys.back());
      }
      if (optimum_passes > 0) {  // the long exact Frank-Wolfe run: not timed, its point a candidate
        double gap = 0;
        const double c1 = cpu_now();
        const Vec y = solve_fw(registry, base, optimum_passes, &gap);
        const double phi = phi_exact(base, y);
        std::printf("  exact Frank-Wolfe, %ld passes (%.1f s CPU): phi %.10f, gap %.3e\n", optimum_passes, cpu_now() - c1,
                    phi, gap);
        if (phi < phi_star) {
          phi_star = phi;
          y_star = y;
        }
        candidates.push_back(y);
      }
      candidates.push_back(y_star);
      // The certified lower bound: the largest over the candidates y of
      // min_x F(f(y) + J(y) (x - y)) (convex monotone F, convex f).
      double lower = -std::numeric_limits<double>::infinity();
      {
        const nlohmann::json tracker = {{"plugin", "vanilla"}}, schedule = {{"plugin", "deterministic"}, {"step", "convex"}};
        Method method = compose_method(registry, base, {&tracker, "/tracker"}, {&schedule, "/schedule"}, {nullptr, "/glmo"});
        Vec fy(n), x(base.dim());
        Jacobian J = make_jacobian(*base.oracle);
        for (const Vec& y : candidates) {
          base.oracle->exact(y, &fy, &J);
          Mat Jd;
          J.to_dense(Jd);  // the GLMO of the outer over this domain may take a dense V only
          const GlmoResult g = method.glmo->solve(fy, Jacobian(Jd), y, x);
          lower = std::max(lower, std::isnan(g.lower_bound) ? g.value : g.lower_bound);
        }
      }
      std::printf("  phi* = %.10f (best phi seen), certified lower bound %.10f: relative errors below are within %.2e of the true ones\n",
                  phi_star, lower, (phi_star - lower) / std::abs(lower));
      std::printf("  %-22s %9s %9s %12s %12s | %-28s | %-28s\n", "method", "iters", "CPU s", "final phi", "final rel",
                  "to 1e-1: CPU, passes", "to 1e-2: CPU, passes");
      for (const Run& r : runs) {
        const double last = r.phi.empty() ? NAN : r.phi.back();
        std::printf("  %-22s %9ld %9.2f %12.6f %12.3e | %-28s | %-28s\n", r.label.c_str(), r.iterations, r.cpu, last,
                    (last - phi_star) / std::abs(phi_star), hit(r, phi_star, 1e-1).c_str(), hit(r, phi_star, 1e-2).c_str());
        if (curve_out)
          for (std::size_t k = 0; k < r.phi.size(); ++k)
            curve_out << (N_rows > 0 ? N_rows : static_cast<long>(N)) << " " << r.label << " " << r.points.cpu[k] << " "
                      << r.points.passes[k] << " " << r.phi[k] << " " << (r.phi[k] - phi_star) / std::abs(phi_star) << "\n";
      }
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
