// When scfw is worth it (issue #13, item 3): Task 2 solved directly, as one LP over all the data
// with Clp, against scfw on the same data, over T days of returns.
//
//   build/bin/bench_direct [--days 1000,10000,100000,1000000] [--assets 50] [--groups 200]
//                          [--methods vanilla,clipped,variant1,variant2,storm] [--K 300,1000,3000]
//                          [--seed 1] [--threshold 1] [--algorithms dual,primal,barrier]
//
// The data are the `portfolio_returns` oracle's `synthetic` block (A assets, T days, data seed
// 1), generated here by the same generator in the same order; for each T the bench composes the
// Task 2 problem (portfolio_returns with n = `groups` groups of consecutive days, batch 1;
// cvar_ru alpha 0.95; simplex_interval [-1, 1]) and checks that the oracle's exact Jacobian is
// bitwise minus the group means computed here, so both sides solve the same problem:
//
//   phi(w, y0) = y0 + 1/((1 - alpha) n) sum_g max(0, -m_g^T w - y0),   m_g = mean of r_t over group g
//
// `--groups 0` puts one day in each group (n = T, the per-day CVaR: T scenario rows).
//
// Direct: the whole Rockafellar-Uryasev LP (columns w >= 0, y0 in [-1, 1], s_g >= 0; rows
// sum w = 1 and s_g + m_g^T w + y0 >= 0) built from the T days and solved cold by each Clp
// algorithm asked for (dual simplex, primal simplex, barrier with crossover through ClpSolve).
// Its time is one pass over the T x A returns (the group means) + building the LP + the solve.
// phi* is the best of the algorithms' optima; the bench prints the largest relative difference
// between them and the value of phi at each solution computed from the means.
//
// scfw: each method (the five of experiments/task2_synthetic.json, clipped with --threshold) at
// each budget K, seed --seed, no gap reports; a callback copies y_k after each iteration. After
// the run, outside the timed region, phi(y_k) is evaluated exactly over all T days (the means
// above and the composed outer function), and the bench prints the wall time of the run at the
// first k with phi(y_k) - phi* <= 1e-2 |phi*| and <= 1e-3 |phi*| ("-" when the run never got
// there), and phi(y_K).
#include <ClpSimplex.hpp>
#include <ClpSolve.hpp>
#include <CoinPackedMatrix.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"

using namespace scfw;
using namespace scfw::bench;

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr double kAlpha = 0.95;

// The portfolio_returns synthetic generator with its defaults (factors 3, drift 3e-4, factor_vol
// 0.006, idio_vol 0.008): the same draws in the same order (plugins/oracle/portfolio_returns).
RowMat generate(long A, long T, std::uint64_t seed) {
  const long K = 3;
  const double drift = 3e-4, fvol = 0.006, ivol = 0.008;
  Rng g(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  std::student_t_distribution<double> t3(3.0);
  Eigen::MatrixXd B(A, K);
  for (long a = 0; a < A; ++a)
    for (long k = 0; k < K; ++k) B(a, k) = normal(g);
  Vec mu(A);
  for (long a = 0; a < A; ++a) mu[a] = drift * (0.5 + unif(g));
  RowMat R(T, A);
  Vec f(K), e(A);
  const double fs = fvol / std::sqrt(3.0 * static_cast<double>(K)), is = ivol / std::sqrt(3.0);
  for (long t = 0; t < T; ++t) {
    for (long k = 0; k < K; ++k) f[k] = fs * t3(g);
    for (long a = 0; a < A; ++a) e[a] = is * t3(g);
    R.row(t) = (mu + B * f + e).transpose();
  }
  return R;
}

// The group means, as the oracle computes them (group g holds days [g T / n, (g + 1) T / n)).
RowMat group_means(const RowMat& R, long n) {
  const long T = R.rows();
  RowMat M(n, R.cols());
  for (long g = 0; g < n; ++g) {
    const long b = g * T / n, e = (g + 1) * T / n;
    M.row(g) = R.middleRows(b, e - b).colwise().mean();
  }
  return M;
}

double phi(const RowMat& M, const Vec& x) {
  const long A = M.cols(), n = M.rows();
  const double y0 = x[A];
  const Vec loss = -(M * x.head(A));
  double s = 0.0;
  for (long g = 0; g < n; ++g) s += std::max(0.0, loss[g] - y0);
  return y0 + s / ((1.0 - kAlpha) * static_cast<double>(n));
}

// The Rockafellar-Uryasev LP: columns w_1..w_A, y0, s_1..s_n; row 0: sum w = 1; row 1 + g:
// m_g^T w + y0 + s_g >= 0.
void build_lp(ClpSimplex& lp, const RowMat& M) {
  const int A = static_cast<int>(M.cols()), n = static_cast<int>(M.rows());
  const int cols = A + 1 + n, rows = 1 + n;
  std::vector<CoinBigIndex> start(static_cast<size_t>(cols) + 1);
  std::vector<int> index;
  std::vector<double> value;
  index.reserve(static_cast<size_t>(A) * (n + 1) + 2 * static_cast<size_t>(n));
  value.reserve(index.capacity());
  for (int c = 0; c < cols; ++c) {
    start[c] = static_cast<CoinBigIndex>(index.size());
    if (c < A) {
      index.push_back(0);
      value.push_back(1.0);
      for (int g = 0; g < n; ++g) {
        index.push_back(1 + g);
        value.push_back(M(g, c));
      }
    } else if (c == A) {
      for (int g = 0; g < n; ++g) {
        index.push_back(1 + g);
        value.push_back(1.0);
      }
    } else {
      index.push_back(1 + (c - A - 1));
      value.push_back(1.0);
    }
  }
  start[cols] = static_cast<CoinBigIndex>(index.size());
  std::vector<double> col_lo(cols, 0.0), col_up(cols, COIN_DBL_MAX), obj(cols, 0.0), row_lo(rows, 0.0),
      row_up(rows, COIN_DBL_MAX);
  col_lo[A] = -1.0;
  col_up[A] = 1.0;
  obj[A] = 1.0;
  const double c = 1.0 / ((1.0 - kAlpha) * n);
  for (int g = 0; g < n; ++g) obj[A + 1 + g] = c;
  row_lo[0] = row_up[0] = 1.0;
  CoinPackedMatrix matrix(true, rows, cols, start[cols], value.data(), index.data(), start.data(), nullptr);
  lp.loadProblem(matrix, col_lo.data(), col_up.data(), obj.data(), row_lo.data(), row_up.data());
}

struct DirectResult {
  std::string algorithm;
  double build = 0, solve = 0, solve_cpu = 0, value = 0, phi_at_x = 0;
  int status = -1, iterations = 0;
  Vec x;
};

DirectResult solve_direct(const RowMat& M, const std::string& algorithm) {
  DirectResult r;
  r.algorithm = algorithm;
  ClpSimplex lp;
  lp.setLogLevel(0);
  // The objective's coefficients on w are c m_g (about 1e-4 here): Clp's default dual tolerance
  // (1e-7) stops the simplex up to 1e-5 relative above the optimum, so both tolerances are tight.
  lp.setDualTolerance(1e-10);
  lp.setPrimalTolerance(1e-10);
  auto t0 = std::chrono::steady_clock::now();
  build_lp(lp, M);
  r.build = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_now();
  if (algorithm == "dual") {
    lp.dual();
  } else if (algorithm == "primal") {
    lp.primal();
  } else if (algorithm == "barrier") {
    ClpSolve options;
    options.setSolveType(ClpSolve::useBarrier);
    options.setPresolveType(ClpSolve::presolveOn);
    lp.initialSolve(options);
  } else if (algorithm == "automatic") {
    ClpSolve options;
    options.setSolveType(ClpSolve::automatic);
    options.setPresolveType(ClpSolve::presolveOn);
    lp.initialSolve(options);
  } else {
    throw std::runtime_error("unknown algorithm " + algorithm + " (dual, primal, barrier, automatic)");
  }
  r.solve = seconds_since(t0);
  r.solve_cpu = cpu_now() - c0;
  r.status = lp.status();
  r.iterations = lp.numberIterations();
  r.value = lp.objectiveValue();
  const int A = static_cast<int>(M.cols());
  r.x = Vec(A + 1);
  for (int j = 0; j <= A; ++j) r.x[j] = lp.primalColumnSolution()[j];
  r.phi_at_x = phi(M, r.x);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> days = {1000, 10000, 100000, 1000000}, budgets = {300, 1000, 3000};
  std::vector<std::string> methods = {"vanilla", "clipped", "variant1", "variant2", "storm"};
  std::vector<std::string> algorithms = {"dual", "primal", "barrier"};
  long A = 50, groups = 200;
  std::uint64_t seed = 1;
  double threshold = 1.0;
  Options opts;
  opts.add("--days", days).add("--K", budgets).add("--methods", methods).add("--algorithms", algorithms);
  opts.add("--assets", A).add("--groups", groups).add("--seed", seed).add("--threshold", threshold);
  if (!opts.parse(argc, argv)) return 2;
  return with_plugins([&](Registry& registry) {
    std::printf("bench_direct: Task 2, A = %ld assets, %s, alpha %.2f, data seed 1, run seed %llu\n", A,
                groups > 0 ? (std::to_string(groups) + " groups").c_str() : "one group per day", kAlpha,
                static_cast<unsigned long long>(seed));
    for (const long T : days) {
      const long n = groups > 0 ? groups : T;
      const RowMat R = generate(A, T, 1);
      const nlohmann::json problem_doc = {
          {"oracle",
           {{"plugin", "portfolio_returns"},
            {"synthetic", {{"assets", A}, {"days", T}, {"seed", 1}}},
            {"groups", n},
            {"batch", 1}}},
          {"outer", {{"plugin", "cvar_ru"}, {"alpha", kAlpha}}},
          {"domain", {{"plugin", "simplex_interval"}, {"lower", -1}, {"upper", 1}}}};
      Problem problem = compose_problem(registry, problem_doc, "bench_direct", ".");

      // The direct solve: one pass for the group means, then the LP.
      auto t0 = std::chrono::steady_clock::now();
      const double c0 = cpu_now();
      const RowMat M = group_means(R, n);
      const double pass = seconds_since(t0), pass_cpu = cpu_now() - c0;
      {  // the same problem: the oracle's exact Jacobian is -M, bitwise
        Vec f(n);
        scfw::Jacobian Jj(n, A + 1);
        problem.oracle->exact(Vec::Constant(A + 1, 1.0 / static_cast<double>(A)), &f, &Jj);
        const Mat& J = Jj.dense();
        const double diff = (J.leftCols(A) + M).cwiseAbs().maxCoeff();
        if (diff != 0.0) throw std::runtime_error("the oracle's data differ from the generated returns by " + std::to_string(diff));
      }
      std::printf("\nT = %ld days, n = %ld groups: one pass for the group means %.3f ms (CPU %.3f ms; oracle data checked bitwise)\n",
                  T, n, 1e3 * pass, 1e3 * pass_cpu);
      std::vector<DirectResult> direct;
      for (const auto& alg : algorithms) direct.push_back(solve_direct(M, alg));
      double phi_star = std::numeric_limits<double>::infinity();
      for (const auto& d : direct)
        if (d.status == 0) phi_star = std::min(phi_star, d.value);
      double spread = 0.0, phi_diff = 0.0;
      for (const auto& d : direct)
        if (d.status == 0) {
          spread = std::max(spread, std::abs(d.value - phi_star) / std::abs(phi_star));
          phi_diff = std::max(phi_diff, std::abs(d.phi_at_x - d.value) / std::abs(phi_star));
        }
      std::printf("  %-10s %6s %9s %10s %10s %12s %12s %7s %22s\n", "direct", "status", "build ms", "solve ms", "solve CPU",
                  "total ms", "total CPU ms", "iters", "LP optimum");
      for (const auto& d : direct)
        std::printf("  %-10s %6d %9.3f %10.3f %10.3f %12.3f %12.3f %7d %22.15e\n", d.algorithm.c_str(), d.status, 1e3 * d.build,
                    1e3 * d.solve, 1e3 * d.solve_cpu, 1e3 * (pass + d.build + d.solve),
                    1e3 * (pass_cpu + d.build + d.solve_cpu), d.iterations, d.value);
      std::printf("  phi* = %.15e; largest relative difference between the algorithms' optima %.3e, between an optimum\n"
                  "  and phi at its solution computed from the means %.3e\n",
                  phi_star, spread, phi_diff);

      if (methods.empty()) continue;
      const double tolerances[] = {1e-1, 1e-2, 1e-3};
      std::printf("  %-9s %5s | %-26s | %-26s | %-26s | %9s %9s %10s %10s\n", "scfw", "K", "to 1e-1: k, wall s, CPU s",
                  "to 1e-2: k, wall s, CPU s", "to 1e-3: k, wall s, CPU s", "run s", "run CPU s", "best rel", "final rel");
      std::string solver_name;
      for (const auto& m : methods) {
        for (const long K : budgets) {
          Method method = paper_method(registry, problem, m, K, threshold);
          const SolverOptions o = silent_run(K, seed);
          Mat ys(A + 1, K);
          std::vector<double> wall(static_cast<size_t>(K), 0.0), cpu(static_cast<size_t>(K), 0.0);
          Solver s(problem, method, o);
          double cpu0 = 0.0;
          s.add_callback([&](const IterationState& st) {
            const auto k = static_cast<size_t>(st.iteration - 1);
            cpu[k] = cpu_now() - cpu0;
            wall[k] = st.seconds;
            ys.col(st.iteration - 1) = *st.y;
            return true;
          });
          cpu0 = cpu_now();
          const Summary sum = s.run();
          const double run_cpu = cpu_now() - cpu0;
          solver_name = sum.glmo_solver;
          // Outside the timed region: phi(y_k) exactly over all T days.
          long hit[3] = {-1, -1, -1};
          double best = std::numeric_limits<double>::infinity(), last = 0;
          for (long k = 0; k < K; ++k) {
            const Vec y = ys.col(k);
            const Vec f = -(M * y.head(A));
            const double rel = (problem.outer->value(f, y) - phi_star) / std::abs(phi_star);
            for (int i = 0; i < 3; ++i)
              if (hit[i] < 0 && rel <= tolerances[i]) hit[i] = k;
            best = std::min(best, rel);
            last = rel;
          }
          std::string cells[3];
          for (int i = 0; i < 3; ++i) {
            char buf[64];
            if (hit[i] < 0) std::snprintf(buf, sizeof buf, "-");
            else std::snprintf(buf, sizeof buf, "%ld, %.4f, %.4f", hit[i] + 1, wall[static_cast<size_t>(hit[i])], cpu[static_cast<size_t>(hit[i])]);
            cells[i] = buf;
          }
          std::printf("  %-9s %5ld | %-26s | %-26s | %-26s | %9.3f %9.3f %10.3e %10.3e\n", m.c_str(), K, cells[0].c_str(),
                      cells[1].c_str(), cells[2].c_str(), sum.seconds, run_cpu, best, last);
          std::fflush(stdout);
        }
      }
      std::printf("  (scfw's GLMO: %s)\n", solver_name.c_str());
    }
    return 0;
  });
}
