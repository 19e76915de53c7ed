// A host application of scfw: it loads the installed plugins, composes a problem (a file, or a
// JSON value built here), solves it with a callback of its own that prints every gap report and
// stops the run once the gap is small enough, and reads the result: status, objective, gap, y_K.
//
//   scfw_host [PROBLEM.json] [--gap EPS] [--y-out FILE] [--plugin-path DIR]... [--print-problem]
//
// Without PROBLEM.json it solves the problem built by built_in_problem() (--print-problem prints
// that JSON and exits, so that `scfw run` can solve the same thing). --y-out writes y_K, one
// coordinate per line. Exit codes as `scfw run`: 0 solved, 1 the run failed, 2 bad input.
#include <scfw/host.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

namespace {

/// The paper's Task 1 on generated data: the worst of 5 least-squares tasks over an l1 ball.
nlohmann::json built_in_problem() {
  return {
      {"name", "host example: robust minimax regression"},
      {"seed", 7},
      {"iterations", 400},
      {"oracle",
       {{"plugin", "least_squares_tasks"},
        {"synthetic", {{"tasks", 5}, {"dim", 30}, {"rows_per_task", 200}, {"sparsity", 4}, {"seed", 3}}}}},
      {"outer", {{"plugin", "max"}}},
      {"domain", {{"plugin", "l1_ball"}, {"radius", 4}}},
      {"tracker", {{"plugin", "momentum"}, {"value", "taylor"}}},
      {"schedule", {{"plugin", "nonconvex"}, {"r", 2}}},
      {"report", {{"every", 50}}},
  };
}

/// Prints each exact gap report and ends the run (status "stopped") at the first gap <= eps
/// (eps = 0: never). Any scfw::Callback sees every iteration; IterationState::has_gap marks the
/// ones where the gap and objective were computed (every "report": {"every"} iterations and
/// after the last).
class GapWatch final : public scfw::Callback {
 public:
  explicit GapWatch(double eps) : eps_(eps) {}

  void on_begin(const scfw::RunInfo& info) override {
    std::printf("solving: d = %d, n = %d, K = %ld, seed %llu\n", info.dim, info.outputs, info.iterations,
                static_cast<unsigned long long>(info.seed));
  }

  scfw::CallbackResult on_iteration(const scfw::IterationState& s) override {
    if (!s.has_gap) return scfw::CallbackResult::Continue;
    std::printf("  iteration %6ld  objective %.10g  gap %.6e\n", s.iteration, s.objective, s.gap);
    if (eps_ > 0 && s.gap <= eps_) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "gap %.6e <= %.6e at iteration %ld", s.gap, eps_, s.iteration);
      reason_ = buf;
      return scfw::CallbackResult::Stop;
    }
    return scfw::CallbackResult::Continue;
  }

  std::string reason() const override { return reason_; }

 private:
  double eps_;
  std::string reason_;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "scfw_host: " << why << "\n"
            << "usage: scfw_host [PROBLEM.json] [--gap EPS] [--y-out FILE] [--plugin-path DIR]... [--print-problem]\n";
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) try {
  std::string file, y_out;
  double eps = 0;
  bool print_problem = false;
  std::vector<std::filesystem::path> plugin_dirs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + ": missing value");
      return argv[++i];
    };
    if (a == "--gap") {
      const std::string v = value();
      char* end = nullptr;
      eps = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(eps >= 0)) usage("--gap: expected a number >= 0, got '" + v + "'");
    } else if (a == "--y-out") {
      y_out = value();
    } else if (a == "--plugin-path") {
      plugin_dirs.emplace_back(value());
    } else if (a == "--print-problem") {
      print_problem = true;
    } else if (!a.empty() && a[0] != '-' && file.empty()) {
      file = a;
    } else {
      usage("unexpected argument '" + a + "'");
    }
  }
  if (print_problem) {
    std::cout << built_in_problem().dump(2) << '\n';
    return 0;
  }

  // 1. The plugins: --plugin-path folders, $SCFW_PLUGIN_PATH, then those installed with scfw.
  const scfw::Host host(plugin_dirs);
  for (const auto& f : host.failures()) std::cerr << "warning: skipped " << f.path << ": " << f.reason << '\n';
  std::string searched;
  for (const auto& d : host.search_path()) searched += (searched.empty() ? "" : ", ") + d.string();
  std::printf("plugins: %zu from %s\n", host.registry().components().size(), searched.c_str());

  // 2. The problem, its method and its options, every block checked against the plugins'
  // declared parameters.
  scfw::Composition problem =
      file.empty() ? host.compose(built_in_problem(), "built-in problem") : host.load_problem(file);
  std::printf("problem: %s, %d variables, %d outputs\n", problem.problem.name.c_str(), problem.problem.dim(),
              problem.problem.outputs());

  // 3. Solve with the options of the problem (iterations, seed, report, stop) and our callback.
  GapWatch watch(eps);
  const scfw::Summary summary = scfw::solve(problem, {&watch});

  // 4. The result.
  std::printf("status: %s\n", scfw::to_string(summary.status));
  std::printf("message: %s\n", summary.message.c_str());
  std::printf("iterations: %ld\n", summary.iterations);
  if (summary.has_gap) {
    std::printf("objective: %.10g\n", summary.final_objective);
    std::printf("gap: %.6e\n", summary.final_gap);
  }
  const scfw::Vec& y = summary.y;  // y_K, an Eigen vector of the problem's dimension
  std::vector<int> order(static_cast<size_t>(y.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return std::abs(y[a]) > std::abs(y[b]); });
  std::printf("y_K: ||y||_1 = %.10g, largest entries:", y.lpNorm<1>());
  for (size_t i = 0; i < std::min<size_t>(5, order.size()); ++i) std::printf(" y[%d] = %.6g", order[i], y[order[i]]);
  std::printf("\n");
  if (!y_out.empty()) {
    std::ofstream out(y_out);
    for (Eigen::Index i = 0; i < y.size(); ++i) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g\n", y[i]);
      out << buf;
    }
    if (!out.flush()) {
      std::cerr << "error: " << y_out << ": cannot write y_K\n";
      return 1;
    }
  }
  return scfw::succeeded(summary.status) ? 0 : 1;
} catch (const scfw::InputError& e) {
  std::cerr << "error: " << e.what() << '\n';
  return 2;
} catch (const std::exception& e) {
  std::cerr << "error: " << e.what() << '\n';
  return 1;
}
