// The long comparison: on the synthetic Task 1 instance (m = 10, d = 100, 500 rows per task,
// l1 radius 5, F = max), K = 10000, the momentum trackers end with a smaller final gap than the
// Vanilla SCFW baseline run with the same gamma, averaged over 5 run seeds (Section 6: "Vanilla
// SCFW fails to converge ... both variants substantially outperform").
//
//   storm    + schedule storm       gamma = beta = rho = K^-2/3           (Thm storm_rate)
//   momentum + schedule nonconvex   gamma = K^-3/4, beta = rho = K^-1/2   (Thm 1), polyak and taylor
//   vanilla  + schedule constant    gamma = K^-3/4, beta = rho = 1
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine_support.hpp"

using namespace scfw;
using namespace scfw::test;

namespace {

constexpr long kIterations = 10000;
constexpr int kSeeds = 5;

struct Figures {
  double final_gap = 0, best_gap = 0, seconds = 0;
};

Figures mean_over_seeds(const nlohmann::json& tracker, const nlohmann::json& schedule) {
  nlohmann::json doc = task1(kIterations, 1, "taylor", schedule);
  doc["tracker"] = tracker;
  Figures m;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    Composition p = make(doc);
    const auto t0 = std::chrono::steady_clock::now();
    const Trajectory t = run(p, static_cast<std::uint64_t>(seed), kIterations, kIterations / 20);
    m.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE(t.summary.has_gap);
    m.final_gap += t.summary.final_gap / kSeeds;
    m.best_gap += t.summary.best_gap / kSeeds;
  }
  return m;
}

}  // namespace

TEST_CASE("Task 1, K = 10000, 5 seeds: STORM and both momentum variants end below vanilla SCFW") {
  const double gamma = std::pow(static_cast<double>(kIterations), -0.75);
  const Figures vanilla =
      mean_over_seeds({{"plugin", "vanilla"}}, {{"plugin", "constant"}, {"gamma", gamma}, {"beta", 1}, {"rho", 1}});
  const Figures storm = mean_over_seeds({{"plugin", "storm"}}, {{"plugin", "storm"}});
  const Figures polyak = mean_over_seeds({{"plugin", "momentum"}, {"value", "polyak"}}, {{"plugin", "nonconvex"}});
  const Figures taylor = mean_over_seeds({{"plugin", "momentum"}, {"value", "taylor"}}, {{"plugin", "nonconvex"}});

  std::printf("Task 1 synthetic (m = 10, d = 100, 500 rows/task, radius 5), K = %ld, mean of %d seeds\n",
              kIterations, kSeeds);
  std::printf("  %-22s %-34s %12s %12s %8s\n", "tracker", "schedule", "final gap", "best gap", "s/run");
  auto row = [](const char* tracker, const char* schedule, const Figures& f) {
    std::printf("  %-22s %-34s %12.5g %12.5g %8.2f\n", tracker, schedule, f.final_gap, f.best_gap, f.seconds / kSeeds);
  };
  row("vanilla", "constant gamma = K^-3/4, beta = rho = 1", vanilla);
  row("storm", "storm K^-2/3", storm);
  row("momentum polyak (I)", "nonconvex K^-3/4, K^-1/2", polyak);
  row("momentum taylor (II)", "nonconvex K^-3/4, K^-1/2", taylor);
  std::fflush(stdout);

  CHECK(storm.final_gap < vanilla.final_gap);
  CHECK(polyak.final_gap < vanilla.final_gap);
  CHECK(taylor.final_gap < vanilla.final_gap);
}
