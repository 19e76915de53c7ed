// bench_completion_scale: the cost of the iterations of a (large) problem file, without any gap
// report, not even after the last iteration (scfw run always computes that one, and on a
// 10^4 x 10^4 completion a cold column-generation solve of the gap costs more than the
// iterations measured). For docs/journal/performance-history.md, "Synthetic 10^4 x 10^4 completion", under
// /usr/bin/time -v for the memory:
//
//   bench_completion_scale PROBLEM.json [ITERATIONS]
//
// Prints the composition time, then seconds per phase and per iteration, and the memory the run
// was estimated to hold before it was composed.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "scfw/host.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_completion_scale PROBLEM.json [ITERATIONS]\n");
    return 2;
  }
  try {
    scfw::Overrides overrides;
    if (argc > 2) overrides.iterations = std::atol(argv[2]);
    const auto t0 = std::chrono::steady_clock::now();
    scfw::Host host;
    scfw::Composition c = host.load_problem(argv[1], overrides);
    const double compose = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    c.options.report_every = 0;
    c.options.final_report = false;
    const scfw::Summary s = scfw::solve(c);
    const double k = static_cast<double>(s.iterations);
    std::printf("%s: d = %d, n = %d, composed in %.3f s; %ld iterations in %.3f s\n", argv[1], c.problem.oracle->dim(),
                c.problem.oracle->outputs(), compose, s.iterations, s.seconds);
    std::printf("per iteration: oracle %.6f s, tracker %.6f s, glmo %.6f s, update %.6f s, total %.6f s\n", s.times.oracle / k,
                s.times.tracker / k, s.times.glmo / k, s.times.update / k, (s.times.total() - s.times.gap) / k);
    std::printf("glmo simplex iterations per solve %.2f\n", static_cast<double>(s.glmo_iterations) / k);
    std::printf("estimated before composing: problem %.1f MiB, method %.1f MiB\n",
                static_cast<double>(c.problem.memory.held()) / (1 << 20), static_cast<double>(c.method.memory.held()) / (1 << 20));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
