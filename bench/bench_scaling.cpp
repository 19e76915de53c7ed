// Microseconds per iteration by phase as the problem grows: synthetic Task 1 (least_squares_tasks,
// batch 1, rows_per_task 200, max over the l1 ball of radius 5, momentum taylor, nonconvex r = 2)
// for d in {100, 1000, 10000} and m in {10, 100}, with the automatic GLMO choice (no glmo block:
// dense_simplex for LPs of at most 100 rows, else clp) and with clp.
//
//   build/bin/bench_scaling [--dims 100,1000,10000] [--tasks 10,100] [--repeats R]
//                           [--iterations K] [--time-limit SEC] [--out FILE]
//
// Every run is set up for the same K (default 2000), so every configuration takes the same steps
// gamma = K^-3/4, beta = rho = K^-1/2 (the GLMO's pivots per solve depend on how far y moves);
// a run stops early at --time-limit seconds (the table gives the iterations done, the figures
// are per iteration done). Each configuration is composed once and run R times (seeds 1..R)
// with gap reports off; the figures are the medians over the runs. --out writes the same table as whitespace-separated columns for
// gnuplot (bench/plot_scaling.gp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"
#include "phase_medians.hpp"

using namespace scfw;

namespace {

std::vector<int> int_list(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::atoi(item.c_str()));
  return out;
}

struct ScalingRow {
  int d = 0, m = 0;
  std::string mode, glmo;
  long iterations = 0;
  double setup_s = 0;
  scfw::bench::PhaseMedians us;  ///< microseconds per iteration by phase, simplex iterations per solve
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> dims = {100, 1000, 10000}, task_counts = {10, 100};
  int repeats = 3;
  long K = 2000;
  double time_limit = 15.0;
  std::string out;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--dims") dims = int_list(argv[i + 1]);
    else if (a == "--tasks") task_counts = int_list(argv[i + 1]);
    else if (a == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (a == "--iterations") K = std::atol(argv[i + 1]);
    else if (a == "--time-limit") time_limit = std::atof(argv[i + 1]);
    else if (a == "--out") out = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  std::vector<ScalingRow> rows;
  try {
    Registry registry;
    registry.load_path(Registry::search_path());
    std::printf("bench_scaling: synthetic Task 1, batch 1, rows_per_task 200, l1 ball radius 5, momentum taylor,\n"
                "  nonconvex r = 2 with K = %ld; median of %d runs per configuration (time limit %.0f s per run)\n\n",
                K, repeats, time_limit);
    std::printf("%6s %4s %5s %14s %6s | %9s %9s %9s %9s %10s | %8s %8s\n", "d", "m", "mode", "GLMO", "iters", "oracle",
                "tracker", "GLMO", "update", "total", "simplex", "setup s");
    std::printf("%6s %4s %5s %14s %6s | %9s %9s %9s %9s %10s | %8s %8s\n", "", "", "", "", "", "us/it", "us/it",
                "us/it", "us/it", "us/it", "it/solve", "");
    for (int d : dims) {
      for (int m : task_counts) {
        for (const std::string mode : {"auto", "clp"}) {
          nlohmann::json doc = {
              {"iterations", K},
              {"oracle",
               {{"plugin", "least_squares_tasks"},
                {"synthetic", {{"tasks", m}, {"dim", d}, {"rows_per_task", 200}, {"seed", 1}}},
                {"batch", 1}}},
              {"outer", {{"plugin", "max"}}},
              {"domain", {{"plugin", "l1_ball"}, {"radius", 5}}},
              {"tracker", {{"plugin", "momentum"}, {"value", "taylor"}}},
              {"schedule", {{"plugin", "nonconvex"}, {"r", 2}}}};
          if (mode == "clp") doc["glmo"] = {{"plugin", "clp"}};
          const auto t0 = std::chrono::steady_clock::now();
          Composition p = compose(registry, doc, "bench", ".");
          ScalingRow row;
          row.setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          row.d = d;
          row.m = m;
          row.mode = mode;
          for (const auto& [role, name] : p.plugins())
            if (role == "glmo") row.glmo = name;
          std::vector<Summary> runs;
          long done = K;
          for (int r = 0; r < repeats; ++r) {
            SolverOptions opt = scfw::bench::run_options(K, r, false);
            opt.time_limit = time_limit;
            Solver s(p, opt);
            runs.push_back(s.run());
            done = std::min(done, runs.back().iterations);
          }
          row.us = scfw::bench::medians_of(runs);
          row.iterations = done;
          const scfw::bench::PhaseMedians& us = row.us;
          std::printf("%6d %4d %5s %14s %6ld | %9.2f %9.2f %9.2f %9.2f %10.2f | %8.2f %8.2f\n", d, m, mode.c_str(),
                      row.glmo.c_str(), row.iterations, us.oracle, us.tracker, us.glmo, us.update, us.total,
                      us.simplex, row.setup_s);
          std::fflush(stdout);
          rows.push_back(row);
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  if (!out.empty()) {
    std::ofstream f(out);
    if (!f) {
      std::fprintf(stderr, "error: cannot write %s\n", out.c_str());
      return 1;
    }
    f << "# bench_scaling: synthetic Task 1, batch 1, rows_per_task 200, l1 ball radius 5; medians of "
      << repeats << " runs, K = " << K << " (time limit " << time_limit << " s per run)\n";
    f << "# d m mode glmo iterations oracle_us tracker_us glmo_us update_us total_us simplex_per_solve setup_s\n";
    for (const ScalingRow& r : rows) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "%d %d %s %s %ld %.4f %.4f %.4f %.4f %.4f %.4f %.3f\n", r.d, r.m, r.mode.c_str(),
                    r.glmo.c_str(), r.iterations, r.us.oracle, r.us.tracker, r.us.glmo, r.us.update, r.us.total,
                    r.us.simplex, r.setup_s);
      f << buf;
    }
    std::printf("\nwrote %s\n", out.c_str());
  }
  return 0;
}
