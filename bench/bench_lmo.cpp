// Microseconds per LMO call of the `nuclear_ball` domain (the top singular pair of G, the inner
// step of the paper's Task 3 under column generation), for several matrix shapes and two input
// sequences:
//   random   a fresh N(0, 1) matrix G at every call (column generation calls the LMO with quite
//            different G each time),
//   drift    G_{k+1} = (1 - b) G_k + b N_k, b = 0.01 (Frank-Wolfe directions drifting slowly:
//            the warm-started Lanczos path profits from it).
//
//   build-dir/bin/bench_lmo [--calls C] [--seed N] [--only RxC] [--plugin FILE]
//
// --only times that one shape (R rows, C columns; for callgrind: instructions per call are then
// about (total - setup) / calls).
// --plugin loads that one library instead of the plugin search path (to compare two builds of
// nuclear_ball in the same conditions). The matrices are generated before timing; each call is
// timed on its own and the figures are medians (and 90th percentiles) over the calls. The last
// column is the largest relative error of <G, X> against -radius sigma_max(G) from Eigen::BDCSVD
// over the calls (checked after timing).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <Eigen/SVD>
#include <nlohmann/json.hpp>

#include "scfw/core/registry.hpp"
#include "scfw/scfw.hpp"

using namespace scfw;

namespace {

std::unique_ptr<Domain> make_nuclear(Registry& reg, int rows, int cols) {
  Context c;
  c.dim = rows * cols;
  c.outputs = 1;
  return reg.make<Domain>("nuclear_ball", {{"rows", rows}, {"cols", cols}, {"radius", 1.0}}, c, "bench_lmo", "/domain");
}

struct Stats {
  double median = 0, p90 = 0, max_rel = 0;
};

Stats run(Registry& reg, int rows, int cols, bool drift, int calls, unsigned seed) {
  const int d = rows * cols;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<Vec> gs;
  gs.reserve(static_cast<size_t>(calls));
  Vec g(d);
  for (int j = 0; j < d; ++j) g[j] = normal(rng);
  const double b = 0.01;
  for (int k = 0; k < calls; ++k) {
    if (drift) {
      for (int j = 0; j < d; ++j) g[j] = (1 - b) * g[j] + b * normal(rng);
    } else {
      for (int j = 0; j < d; ++j) g[j] = normal(rng);
    }
    gs.push_back(g);
  }
  auto domain = make_nuclear(reg, rows, cols);
  Vec x(d);
  scfw::Atom atom;
  for (int k = 0; k < std::min(calls, 20); ++k) domain->lmo(gs[static_cast<size_t>(k)], atom);  // warm up
  domain = make_nuclear(reg, rows, cols);  // time from a fresh instance (fresh warm start)
  std::vector<double> t(static_cast<size_t>(calls));
  std::vector<double> value(static_cast<size_t>(calls));
  for (int k = 0; k < calls; ++k) {
    const Vec& gk = gs[static_cast<size_t>(k)];
    const auto t0 = std::chrono::steady_clock::now();
    domain->lmo(gk, atom);
    const auto t1 = std::chrono::steady_clock::now();
    atom.to_dense(x);
    t[static_cast<size_t>(k)] = std::chrono::duration<double, std::micro>(t1 - t0).count();
    value[static_cast<size_t>(k)] = gk.dot(x);
  }
  Stats s;
  // Accuracy on a subset (the SVDs of 100 x 100 matrices would dominate the bench otherwise).
  for (int k = 0; k < calls; k += std::max(1, calls / 200)) {
    const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> G(
        gs[static_cast<size_t>(k)].data(), rows, cols);
    const Eigen::MatrixXd dense = G;
    const double sigma = Eigen::BDCSVD<Eigen::MatrixXd>(dense).singularValues()(0);
    s.max_rel = std::max(s.max_rel, std::abs(value[static_cast<size_t>(k)] + sigma) / sigma);
  }
  std::sort(t.begin(), t.end());
  s.median = t[t.size() / 2];
  s.p90 = t[t.size() * 9 / 10];
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 2000;
  unsigned seed = 1;
  std::string plugin;
  int only_rows = 0, only_cols = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--calls") calls = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--seed") seed = static_cast<unsigned>(std::atoi(argv[i + 1]));
    else if (a == "--plugin") plugin = argv[i + 1];
    else if (a == "--only") {
      if (std::sscanf(argv[i + 1], "%dx%d", &only_rows, &only_cols) != 2 || only_rows < 1 || only_cols < 1) {
        std::fprintf(stderr, "--only expects RxC, e.g. 30x20\n");
        return 2;
      }
    }
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  try {
    Registry reg;
    if (plugin.empty()) reg.load_path(Registry::search_path());
    else if (!reg.load_library(plugin)) throw Error("bench_lmo: could not load " + plugin);
    struct Shape {
      int rows, cols;
    };
    std::vector<Shape> shapes = {{30, 20}, {20, 30}, {64, 10}, {64, 64}, {100, 100}};
    if (only_rows > 0) shapes = {{only_rows, only_cols}};
    std::printf("bench_lmo: nuclear_ball LMO, %d calls per line, seed %u%s%s\n", calls, seed,
                plugin.empty() ? "" : ", plugin ", plugin.c_str());
    std::printf("  shape      input    median us    p90 us   max rel err vs BDCSVD\n");
    for (const Shape& sh : shapes) {
      for (const bool drift : {false, true}) {
        const int n = (sh.rows * sh.cols >= 10000) ? std::max(1, calls / 4) : calls;
        const Stats s = run(reg, sh.rows, sh.cols, drift, n, seed);
        std::printf("  %3dx%-3d    %-6s %10.2f %9.2f   %.2e\n", sh.rows, sh.cols, drift ? "drift" : "random", s.median,
                    s.p90, s.max_rel);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
