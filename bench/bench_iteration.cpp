// Microseconds per iteration by phase on the paper's Task 1 (synthetic, d = 100, m = 10,
// batch 1, max over the l1 ball of radius 5), and the Clp simplex iterations per solve.
//
//   build/bin/bench_iteration [--iterations K] [--dim D] [--tasks M] [--repeats R] [--glmo NAME]
//
// Each repeat is a full run of K iterations with gap reports off (one exact gap at the end is
// timed separately). The figures printed are the median over the repeats.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"

using namespace scfw;

int main(int argc, char** argv) {
  long K = 20000;
  int dim = 100, tasks = 10, repeats = 5;
  std::string glmo = "clp";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--iterations") K = std::atol(argv[i + 1]);
    else if (a == "--dim") dim = std::atoi(argv[i + 1]);
    else if (a == "--tasks") tasks = std::atoi(argv[i + 1]);
    else if (a == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (a == "--glmo") glmo = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  try {
    Registry registry;
    registry.load_path(Registry::search_path());
    const nlohmann::json doc = {
        {"iterations", K},
        {"oracle",
         {{"plugin", "least_squares_tasks"},
          {"synthetic", {{"tasks", tasks}, {"dim", dim}, {"rows_per_task", 500}, {"seed", 1}}},
          {"batch", 1}}},
        {"outer", {{"plugin", "max"}}},
        {"domain", {{"plugin", "l1_ball"}, {"radius", 5}}},
        {"glmo", {{"plugin", glmo}}},
        {"tracker", {{"plugin", "momentum"}, {"value", "taylor"}}},
        {"schedule", {{"plugin", "nonconvex"}, {"r", 2}}}};

    std::vector<double> oracle, tracker, glmo_t, update, total, gap, simplex;
    std::string solver_name;
    for (int r = 0; r < repeats; ++r) {
      Problem p = compose(registry, doc, "bench", ".");
      SolverOptions o;
      o.iterations = K;
      o.seed = static_cast<std::uint64_t>(r + 1);
      o.report_every = 0;
      o.final_report = true;
      Solver s(p, o);
      const Summary sum = s.run();
      const double it = static_cast<double>(sum.iterations);
      oracle.push_back(1e6 * sum.times.oracle / it);
      tracker.push_back(1e6 * sum.times.tracker / it);
      glmo_t.push_back(1e6 * sum.times.glmo / it);
      update.push_back(1e6 * sum.times.update / it);
      total.push_back(1e6 * (sum.times.total() - sum.times.gap) / it);
      gap.push_back(1e6 * sum.times.gap);
      simplex.push_back(sum.glmo_iterations / it);
      solver_name = sum.glmo_solver;
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::printf("bench_iteration: Task 1 synthetic, d = %d, m = %d, batch 1, K = %ld, median of %d runs\n", dim,
                tasks, K, repeats);
    std::printf("  GLMO solver          %s\n", solver_name.c_str());
    std::printf("  oracle               %8.2f us/iteration\n", median(oracle));
    std::printf("  tracker              %8.2f us/iteration\n", median(tracker));
    std::printf("  GLMO                 %8.2f us/iteration\n", median(glmo_t));
    std::printf("  y update             %8.2f us/iteration\n", median(update));
    std::printf("  iteration (total)    %8.2f us/iteration\n", median(total));
    std::printf("  exact gap report     %8.2f us/report\n", median(gap));
    std::printf("  simplex iterations   %8.3f per solve\n", median(simplex));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
