// Microseconds per iteration by phase on the paper's Task 1 (synthetic, d = 100, m = 10,
// batch 1, max over the l1 ball of radius 5, Variant II: momentum with the Taylor value tracker),
// and the GLMO's simplex iterations per solve (issue #13's setting: the defaults).
//
//   build/bin/bench_iteration [--iterations K] [--dim D] [--tasks M] [--repeats R] [--glmo NAME]
//                             [--batch B] [--value taylor|polyak]
//
// --glmo max_l1 is the GLMO written for this LP alone (plugins/glmo/max_l1; docs/performance.md,
// "Which GLMO when"); the default clp and dense_simplex are the general ones.
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

#include "bench_support.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"
#include "phase_medians.hpp"

using namespace scfw;
using namespace scfw::bench;

int main(int argc, char** argv) {
  long K = 20000;
  int dim = 100, tasks = 10, repeats = 5;
  std::string glmo = "clp";
  int batch = 1;
  std::string value = "taylor";  // Variant II; polyak is Variant I
  Options opts;
  opts.add("--iterations", K).add("--dim", dim).add("--tasks", tasks).add("--repeats", repeats);
  opts.add("--glmo", glmo).add("--batch", batch).add("--value", value);
  if (!opts.parse(argc, argv)) return 2;
  return with_plugins([&](Registry& registry) {
    const nlohmann::json doc = {
        {"iterations", K},
        {"oracle",
         {{"plugin", "least_squares_tasks"},
          {"synthetic", {{"tasks", tasks}, {"dim", dim}, {"rows_per_task", 500}, {"seed", 1}}},
          {"batch", batch}}},
        {"outer", {{"plugin", "max"}}},
        {"domain", {{"plugin", "l1_ball"}, {"radius", 5}}},
        {"glmo", {{"plugin", glmo}}},
        {"tracker", {{"plugin", "momentum"}, {"value", value}}},
        {"schedule", {{"plugin", "nonconvex"}, {"r", 2}}}};

    const bench::PhaseMedians m = bench::measure_phases(registry, doc, K, repeats);
    std::printf("bench_iteration: Task 1 synthetic, d = %d, m = %d, batch %d, momentum %s, K = %ld, median of %d runs\n",
                dim, tasks, batch, value.c_str(), K, repeats);
    bench::print_phases(m);
    return 0;
  });
}
