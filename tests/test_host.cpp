// The host API (scfw/host.hpp) is a thin layer: Host finds the build's plugins on the standard
// search path, Host::compose / load_problem are the composer's, and solve() runs exactly what a
// Solver with the same options and callbacks runs, writing the trace as `scfw run` does.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "scfw/host.hpp"

namespace fs = std::filesystem;
using namespace scfw;

namespace {

nlohmann::json small_task1(long iterations) {
  return {{"seed", 4},
          {"iterations", iterations},
          {"oracle",
           {{"plugin", "least_squares_tasks"},
            {"synthetic", {{"tasks", 3}, {"dim", 12}, {"rows_per_task", 30}, {"sparsity", 3}}}}},
          {"outer", {{"plugin", "max"}}},
          {"domain", {{"plugin", "l1_ball"}, {"radius", 2}}},
          {"report", {{"every", 10}}}};
}

/// Counts iterations and remembers the last iterate it saw.
struct Watch final : Callback {
  long seen = 0, reports = 0;
  Vec last_y;
  CallbackResult on_iteration(const IterationState& s) override {
    ++seen;
    reports += s.has_gap ? 1 : 0;
    last_y = *s.y;
    return CallbackResult::Continue;
  }
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Each CSV line without its 5th column (seconds).
std::vector<std::string> without_seconds(const std::string& csv) {
  std::vector<std::string> out;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    std::string kept;
    std::istringstream cells(line);
    int i = 0;
    for (std::string cell; std::getline(cells, cell, ','); ++i)
      if (i != 4) kept += cell + ",";
    out.push_back(kept);
  }
  return out;
}

}  // namespace

TEST_CASE("Host loads the build's plugins from the standard search path") {
  unsetenv("SCFW_PLUGIN_PATH");  // only the build's own plugins
  const Host host;
  const fs::path build_plugins = fs::weakly_canonical(fs::path(SCFW_PLUGIN_DIR));
  REQUIRE(host.search_path().size() == 1);
  CHECK(host.search_path()[0] == build_plugins);
  size_t libraries = 0;
  for (const auto& e : fs::directory_iterator(build_plugins)) libraries += e.path().extension() == ".so" ? 1 : 0;
  CHECK(host.registry().libraries().size() == libraries);
  CHECK(host.failures().empty());
  CHECK(host.registry().find(Kind::Oracle, "least_squares_tasks") != nullptr);
}

TEST_CASE("solve() runs bitwise as a Solver with the same options and callbacks") {
  const Host host;
  Composition a = host.compose(small_task1(60), "a");
  Composition b = host.compose(small_task1(60), "b");
  Watch wa, wb;
  const Summary sa = solve(a, {&wa});
  Solver solver(b, b.options);
  solver.add_callback(wb);
  const Summary sb = solver.run();

  CHECK(sa.status == Status::IterationLimit);
  CHECK(sa.iterations == 60);
  CHECK(wa.seen == 60);
  CHECK(wa.reports == 6);  // every 10 iterations, the last one included
  REQUIRE(sa.y.size() == 12);
  CHECK(sa.y == sb.y);       // bitwise
  CHECK(sa.y == wa.last_y);  // Summary::y is the last iterate the callbacks saw
  CHECK(sa.final_objective == sb.final_objective);
  CHECK(sa.final_gap == sb.final_gap);
  CHECK(sa.y.lpNorm<1>() <= 2.0 * (1 + 1e-12));
}

TEST_CASE("solve() writes the options' trace as TraceCsv does, and a callback's Stop ends the run") {
  const Host host;
  const fs::path dir = fs::temp_directory_path() / "scfw_test_host";
  fs::remove_all(dir);
  nlohmann::json doc = small_task1(50);
  doc["report"]["trace"] = (dir / "sub" / "trace.csv").string();
  Composition a = host.compose(doc, "a");
  const Summary sa = solve(a);

  Composition b = host.compose(small_task1(50), "b");
  std::ostringstream expected;
  TraceCsv trace(expected);
  Solver solver(b, b.options);
  solver.add_callback(trace);
  solver.run();
  const std::string written = read_all(dir / "sub" / "trace.csv");
  CHECK(written.rfind(std::string(kTraceHeader) + "\n", 0) == 0);
  CHECK(without_seconds(written) == without_seconds(expected.str()));
  CHECK(without_seconds(written).size() == 6);  // the header and 5 reports

  // A callback that stops after the 20th iteration: status Stopped with its reason.
  struct StopAt20 final : Callback {
    CallbackResult on_iteration(const IterationState& s) override {
      return s.iteration == 20 ? CallbackResult::Stop : CallbackResult::Continue;
    }
    std::string reason() const override { return "enough"; }
  } stop;
  Composition c = host.compose(small_task1(50), "c");
  const Summary sc = solve(c, {&stop});
  CHECK(sc.status == Status::Stopped);
  CHECK(sc.iterations == 20);
  CHECK(sc.message == "stopped (enough) after 20 of 50 iterations");
  fs::remove_all(dir);
  (void)sa;
}

TEST_CASE("Host::compose and load_problem report bad input as the composer's one line") {
  const Host host;
  nlohmann::json doc = small_task1(10);
  doc["domain"]["radius"] = -1;
  CHECK_THROWS_WITH_AS(host.compose(doc, "my problem"), "my problem: /domain/radius: expected a number in (0, 1e10], got -1",
                       InputError);
  CHECK_THROWS_WITH_AS(host.load_problem("no_such_problem.json"), "no_such_problem.json: cannot open file (No such file or directory)",
                       InputError);
  // A file: its name in messages and the same composition as compose() of its content.
  const fs::path file = fs::temp_directory_path() / "scfw_test_host_problem.json";
  std::ofstream(file) << small_task1(30).dump();
  Composition from_file = host.load_problem(file);
  Composition from_json = host.compose(small_task1(30), "json");
  CHECK(from_file.problem.name == "scfw_test_host_problem");
  CHECK(solve(from_file).y == solve(from_json).y);
  fs::remove(file);
}
