// What a run hands back: solution files (written and read back bit for bit), warm starts and
// their checks, the JSON summary, the trace's final point and its write errors, and the rule
// that a gap tolerance needs gap reports.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine_support.hpp"
#include "scfw/core/output_file.hpp"
#include "scfw/core/report.hpp"
#include "scfw/core/solution.hpp"
#include "scfw/core/stopping.hpp"
#include "scfw/core/summary_json.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace scfw;
using namespace scfw::test;

namespace {

bool bitwise_equal(const Vec& a, const Vec& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells(1);
  for (char c : line) {
    if (c == ',') cells.emplace_back();
    else cells.back() += c;
  }
  return cells;
}

json portfolio(long iterations) {
  return json{{"seed", 2},
              {"iterations", iterations},
              {"report", {{"every", 5}}},
              {"oracle",
               {{"plugin", "portfolio_returns"},
                {"groups", 4},
                {"synthetic", {{"assets", 3}, {"days", 40}, {"seed", 1}}}}},
              {"outer", {{"plugin", "cvar_ru"}, {"alpha", 0.9}}},
              {"domain", {{"plugin", "simplex_interval"}, {"lower", -1}, {"upper", 1}}},
              {"glmo", {{"plugin", "clp"}}}};
}

}  // namespace

TEST_CASE("solution files: written with 17 digits, read back bit for bit (CSV and JSON)") {
  TempDir dir;
  Solution s;
  s.problem = "round trip";
  s.status = "iteration limit after 3 of 3 iterations";
  s.iterations = 3;
  s.x.values = Vec(6);
  s.x.values << 1.0 / 3.0, -0.0, 1e-300, 2.2250738585072014e-308, -123456.78901234567, 0.1 + 0.2;
  s.x.names = {"plain", "with, comma", "with \"quote\"", "r1c1", "feature 5", "VaR"};
  s.has_f = true;
  s.f.values = Vec::Constant(2, 2.0 / 7.0);
  s.f.names = {"task 1", "task 2"};
  for (const char* name : {"sol.csv", "sol.json"}) {
    const fs::path p = dir.path / name;
    write_solution(p, s);
    const Labelled back = read_solution_x(p);
    CHECK(bitwise_equal(back.values, s.x.values));
    CHECK(back.names == s.x.names);
  }
  // Without names the name cells are empty, and the start has no names.
  Solution u = s;
  u.x.names.clear();
  u.has_f = false;
  write_solution(dir.path / "unnamed.csv", u);
  std::ifstream in(dir.path / "unnamed.csv");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() ==
        "kind,name,value\n"
        "x,,0.33333333333333331\n"
        "x,,-0\n"
        "x,,1e-300\n"
        "x,,2.2250738585072014e-308\n"
        "x,,-123456.78901234567\n"
        "x,,0.30000000000000004\n");
  CHECK(read_solution_x(dir.path / "unnamed.csv").names.empty());
  // A file that is not a solution: its first line shown cut to 40 bytes, control characters as '?'.
  {
    std::ofstream bad(dir.path / "bad.csv");
    bad << "kind,name\x7fvalue" << std::string(50, ',') << "\nx,,1\n";
  }
  const std::string bad = (dir.path / "bad.csv").string();
  CHECK_THROWS_WITH_AS(read_solution_x(bad),
                       (bad + ":1: expected the header kind,name,value, got \"kind,name?value" + std::string(25, ',') +
                        "... (65 bytes)\"").c_str(),
                       InputError);
}

TEST_CASE("solution: names from the oracle, f(y_K) and the objective of the last report") {
  Composition c = make(portfolio(20));
  Solver solver(c, c.options);
  BestIterate best;
  solver.add_callback(best);
  const Summary summary = solver.run();
  const Solution s = make_solution(c.problem, summary, &best);
  CHECK(s.x.names == std::vector<std::string>{"asset 1", "asset 2", "asset 3", "VaR"});
  CHECK(s.f.names == std::vector<std::string>{"group 1", "group 2", "group 3", "group 4"});
  CHECK(bitwise_equal(s.x.values, summary.y));
  REQUIRE(s.has_f);
  // The objective the solver's final report computed at y_K, recomputed from f(y_K).
  CHECK(s.objective == summary.final_objective);
  // cvar_ru by hand: y0 + 1/((1 - alpha) n) sum_g max(0, f_g - y0).
  const double y0 = s.x.values[3];
  double hinge = 0;
  for (int g = 0; g < 4; ++g) hinge += std::max(0.0, s.f.values[g] - y0);
  CHECK(s.objective == doctest::Approx(y0 + hinge / (0.1 * 4)).epsilon(1e-12));
  REQUIRE(s.has_best);
  CHECK(s.best_gap == summary.best_gap);
  CHECK(s.shape.empty());
}

TEST_CASE("warm start: dimension, names, finiteness and the domain are checked") {
  Composition c = make(task1(10, 1, "polyak", {{"plugin", "nonconvex"}}, 3, 12, 20));
  Labelled start;
  start.values = Vec::Zero(3);
  CHECK_THROWS_WITH_AS(check_start(c.problem, start, "s.csv"), "s.csv: the start has 3 coordinates, the problem has d = 12",
                       InputError);
  start.values = Vec::Zero(12);
  start.values[1] = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH_AS(check_start(c.problem, start, "s.csv"), "s.csv: coordinate 2 is not a finite number", InputError);
  // (8, 0, ..., 0) is at distance 3 from the l1 ball of radius 5; Frank-Wolfe from 0 reaches (5, 0, ...).
  start.values = Vec::Zero(12);
  start.values[0] = 8;
  CHECK_THROWS_WITH_AS(check_start(c.problem, start, "s.csv"),
                       "s.csv: the start is outside the domain (l1_ball): at most 3 away from it (an upper bound "
                       "from 500 Frank-Wolfe projection steps)",
                       InputError);
  CHECK(distance_upper_bound(*c.problem.domain, start.values) == 3.0);
  start.values[0] = 5;
  CHECK(bitwise_equal(check_start(c.problem, start, "s.csv"), start.values));

  Composition p = make(portfolio(5));
  Labelled named;
  named.values = Vec::Zero(4);
  named.values[0] = 1;
  named.names = {"asset 1", "asset 2", "asset 9", "VaR"};
  CHECK_THROWS_WITH_AS(check_start(p.problem, named, "w.json"),
                       "w.json: coordinate 3 is \"asset 9\" in the start but \"asset 3\" in the problem", InputError);
  named.names.clear();  // no names in the start: only the values are checked
  CHECK_NOTHROW(check_start(p.problem, named, "w.json"));
}

TEST_CASE("warm start: y_0 is the start; the start of the domain's own point changes nothing") {
  const json doc = task1(30, 1, "polyak", {{"plugin", "nonconvex"}}, 3, 12, 20);
  Composition a = make(doc);
  const Trajectory plain = run(a, 5, 30, 10);
  Composition b = make(doc);
  SolverOptions o = test::options(30, 5, 10);
  Solver same(b, o);
  same.set_start(b.problem.domain->initial_point());
  CHECK(bitwise_equal(same.run().y, plain.summary.y));

  // From y_K of the first run: the tracker's first sample is taken there.
  Composition w = make(doc);
  Solver warm(w, o);
  warm.set_start(plain.summary.y);
  std::vector<Vec> ys;
  warm.add_callback([&](const IterationState& s) {
    ys.push_back(*s.y);
    return true;
  });
  const Summary ws = warm.run();
  REQUIRE(ws.iterations == 30);
  CHECK_FALSE(bitwise_equal(ws.y, plain.summary.y));
}

TEST_CASE("file names the problem gives for scfw to write or read hold no control character") {
  json doc = task1(50, 1, "polyak", {{"plugin", "nonconvex"}}, 3, 12, 20);
  doc["report"] = {{"every", 10}, {"trace", "t\x7f.csv"}};
  CHECK_THROWS_WITH_AS(make(doc), "test.json: /report/trace: the file name holds a control character (shown as ?): \"t?.csv\"",
                       InputError);
  doc.erase("report");
  doc["output"] = {{"solution", "s\nx.csv"}};
  CHECK_THROWS_WITH_AS(read_output_options(doc, "test.json", ".", {}),
                       "test.json: /output/solution: the file name holds a control character (shown as ?): \"s?x.csv\"",
                       InputError);
  doc["output"] = {{"summary_json", std::string(50, '\t')}};
  CHECK_THROWS_WITH_AS(read_output_options(doc, "test.json", ".", {}),
                       ("test.json: /output/summary_json: the file name holds a control character (shown as ?): \"" +
                        std::string(40, '?') + "... (50 bytes)\"").c_str(),
                       InputError);
  doc.erase("output");
  doc["start"] = "a\x01";
  CHECK_THROWS_WITH_AS(read_output_options(doc, "test.json", ".", {}),
                       "test.json: /start: the file name holds a control character (shown as ?): \"a?\"", InputError);
}

TEST_CASE("a gap tolerance needs gap reports during the run") {
  json doc = task1(50, 1, "polyak", {{"plugin", "nonconvex"}}, 3, 12, 20);
  doc["stop"] = {{"gap_tolerance", 1e-3}};
  CHECK_THROWS_WITH_AS(make(doc),
                       "test.json: /stop/gap_tolerance: a gap tolerance needs gap reports during the run, but "
                       "\"report\": {\"every\"} is 0 with 50 iterations, so the gap is computed only after the last "
                       "one; set \"report\": {\"every\": N} with N < 50",
                       InputError);
  doc["report"] = {{"every", 50}};
  CHECK_THROWS_AS(make(doc), InputError);
  doc["report"] = {{"every", 10}};
  CHECK_NOTHROW(make(doc));
  Overrides over;
  over.gap_tolerance = 0.5;
  doc["report"] = {{"every", 0}};
  doc.erase("stop");
  CHECK_THROWS_WITH_AS(read_options(doc, "test.json", over),
                       "--gap-tolerance: a gap tolerance needs gap reports during the run, but \"report\": "
                       "{\"every\"} is 0 with 50 iterations, so the gap is computed only after the last one; set "
                       "\"report\": {\"every\": N} with N < 50",
                       InputError);
  // The Solver says the same to a library caller.
  Composition c = make(doc);
  SolverOptions o;
  o.iterations = 50;
  o.gap_tolerance = 1e-3;
  CHECK_THROWS_WITH_AS(Solver(c, o), "gap tolerance: needs gap reports during the run (report every N < 50 iterations), but report every is 0",
                       InputError);
}

namespace {

// f(x) = x with no exact evaluation: a gap is never computed for it.
class NoExactOracle final : public Oracle {
 public:
  int dim() const override { return 2; }
  int outputs() const override { return 2; }
  std::unique_ptr<Sample> make_sample() const override { return std::make_unique<NoSample>(); }
  void draw(Rng&, Sample&) const override {}
  void evaluate(const Sample&, const Vec& x, Vec* f, Jacobian* J) const override {
    if (f) *f = x;
    if (J) J->dense() = Mat::Identity(2, 2);
  }

 private:
  struct NoSample final : Sample {};
};

}  // namespace

TEST_CASE("a gap tolerance with an oracle that has no exact evaluation is refused") {
  Problem p;
  p.oracle = std::make_unique<NoExactOracle>();
  Method m;
  SolverOptions o;
  o.iterations = 10;
  o.report_every = 2;
  o.gap_tolerance = 1e-3;
  CHECK_THROWS_WITH_AS(Solver(p, m, o), "gap tolerance: the oracle has no exact evaluation, so no gap is ever computed",
                       InputError);
  o.gap_tolerance = 0;
  CHECK_NOTHROW(Solver(p, m, o));
}

TEST_CASE("trace: a run that ends early gets its final point, with the gap when it was computed") {
  const json doc = task1(40, 1, "polyak", {{"plugin", "nonconvex"}}, 3, 12, 20);
  for (const bool final_report : {true, false}) {
    Composition c = make(doc);
    SolverOptions o = test::options(40, 2, 5, final_report);
    Solver solver(c, o);
    std::ostringstream out;
    TraceCsv trace(out, "t.csv");
    solver.add_callback(trace);
    StopRequest stop([n = 0]() mutable { return ++n == 7; });
    solver.add_callback(stop);
    const Summary s = solver.run();
    REQUIRE(s.status == Status::Interrupted);
    REQUIRE(s.iterations == 7);
    std::vector<std::string> lines;
    std::istringstream in(out.str());
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    REQUIRE(lines.size() == 3);  // header, iteration 5, the final point 7
    CHECK(lines[0] == kTraceHeader);
    const auto last = split(lines[2]);
    REQUIRE(last.size() == 10);
    CHECK(last[0] == "7");
    if (final_report) {
      char gap[40];
      std::snprintf(gap, sizeof gap, "%.12g", s.final_gap);
      CHECK(last[2] == gap);
      CHECK(s.gap_iteration == 7);
    } else {
      CHECK(last[1].empty());
      CHECK(last[2].empty());
      CHECK(s.gap_iteration == 5);
      char best[40];
      std::snprintf(best, sizeof best, "%.12g", s.best_gap);
      CHECK(last[3] == best);
    }
  }
}

TEST_CASE("trace: a write that fails aborts the run and names the file") {
  std::ofstream full("/dev/full");
  REQUIRE(full.is_open());
  Composition c = make(task1(40, 1, "polyak", {{"plugin", "nonconvex"}}, 3, 12, 20));
  SolverOptions o;
  o.iterations = 40;
  o.report_every = 5;
  Solver solver(c, o);
  TraceCsv trace(full, "/dev/full");
  solver.add_callback(trace);
  const Summary s = solver.run();
  CHECK(s.status == Status::Failed);
  CHECK(s.iterations == 1);
  CHECK(trace.failed());
  CHECK(s.reason == "/dev/full: cannot write the trace file (No space left on device)");
}

TEST_CASE("outputs: never written over a device, written whole or not at all") {
  TempDir dir;
  Solution sol;
  sol.x.values = Vec::Zero(2);
  // A device (or a FIFO, a folder) is never replaced, /dev/full and /dev/null included.
  CHECK_THROWS_WITH_AS(write_json_file("/dev/full", json::object()),
                       "/dev/full: cannot write the summary file (it is a character device; scfw replaces only "
                       "regular files)", Error);
  CHECK_THROWS_WITH_AS(write_solution("/dev/null", sol),
                       "/dev/null: cannot write the solution file (it is a character device; scfw replaces only "
                       "regular files)", Error);
  const fs::path fifo = dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string fifo_message = fifo.string() + ": cannot write the trace file (it is a FIFO; scfw replaces only regular files)";
  CHECK_THROWS_WITH_AS(write_output_file(fifo, "trace file", [](std::ostream&) {}), fifo_message.c_str(), Error);
  CHECK(special_file_kind(dir.path) == "a directory");
  CHECK(special_file_kind(dir.path / "absent") == "");

  // A writer that fails half-way leaves the previous file and no temporary.
  const fs::path file = dir.path / "out.csv";
  write_output_file(file, "trace file", [](std::ostream& out) { out << "old\n"; });
  ::chmod(file.c_str(), 0640);
  CHECK_THROWS_WITH(write_output_file(file, "trace file",
                                      [](std::ostream& out) {
                                        out << std::string(1 << 20, 'x');
                                        throw Error("stopped");
                                      }),
                    "stopped");
  auto content = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  CHECK(content(file) == "old\n");
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 2);  // fifo, out.csv
  // A complete write replaces it and keeps its mode; through a symlink, the file it names.
  const fs::path link = dir.path / "link.csv";
  fs::create_symlink("out.csv", link);
  write_output_file(link, "trace file", [](std::ostream& out) { out << "new\n"; });
  CHECK(fs::is_symlink(link));
  CHECK(content(file) == "new\n");
  CHECK((fs::status(file).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));

  // A write the system refuses half-way (here a file size limit, as a full disk would): the
  // previous file stays. In a child process, which the limit must not outlive.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const struct rlimit limit {4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write_output_file(file, "solution file", [](std::ostream& out) { out << std::string(1 << 20, 'y'); });
    } catch (const Error& e) {
      const std::string expected = file.string() + ": cannot write the solution file (File too large)";
      ::_exit(e.what() == expected ? 0 : 3);
    }
    ::_exit(4);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(content(file) == "new\n");
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 3);
}

TEST_CASE("outputs: a run refuses outputs that would replace an input, another output or a device") {
  TempDir dir;
  const fs::path problem = dir.path / "p.json", trace = dir.path / "t.csv";
  write_output_file(problem, "problem", [](std::ostream& out) { out << "{}\n"; });
  fs::create_symlink("p.json", dir.path / "alias.json");
  CHECK_NOTHROW(check_outputs({{"trace", trace}, {"solution", dir.path / "s.json"}, {"summary", "-"}},
                              {{"the problem file", problem}}));
  const std::string onto_input =
      (dir.path / "alias.json").string() + ": the solution would overwrite the problem file, an input of this run";
  CHECK_THROWS_WITH_AS(check_outputs({{"trace", trace}, {"solution", dir.path / "alias.json"}}, {{"the problem file", problem}}),
                       onto_input.c_str(), InputError);
  const std::string twice = (dir.path / "." / "t.csv").string() + ": the trace and the solution name the same file; give each its own";
  CHECK_THROWS_WITH_AS(check_outputs({{"trace", trace}, {"solution", dir.path / "." / "t.csv"}}, {}), twice.c_str(),
                       InputError);
  CHECK_THROWS_WITH_AS(check_outputs({{"checkpoint", "/dev/null"}}, {}),
                       "/dev/null: is a character device, not a regular file: the checkpoint cannot be written there",
                       InputError);
}

TEST_CASE("solution: a name that is not UTF-8 is written as Latin-1 in JSON and reads back") {
  TempDir dir;
  Solution sol;
  sol.problem = "p";
  sol.x.values = Vec::Ones(2);
  sol.x.names = {"caf\xe9", "ok"};
  const fs::path file = dir.path / "s.json";
  write_solution(file, sol);
  const Labelled back = read_solution_x(file);
  REQUIRE(back.names.size() == 2);
  CHECK(back.names[0] == "caf\xc3\xa9");  // U+00E9
  CHECK(back.names[1] == "ok");
}

TEST_CASE("JSON summary: status, numbers and plugins of the run") {
  Composition c = make(portfolio(20));
  Solver solver(c, c.options);
  const Summary s = solver.run();
  const RunRecord rec = describe_run(registry(), c.problem, c.method, c.options, "9.9.9");
  const json j = to_json(s, rec);
  CHECK(j["status"] == "iteration_limit");
  CHECK(j["success"] == true);
  CHECK(j["message"] == s.message);
  CHECK(j["iterations"] == 20);
  CHECK(j["iterations_requested"] == 20);
  CHECK(j["seed"] == 2);
  CHECK(j["scfw_version"] == "9.9.9");
  CHECK(j["dim"] == 4);
  CHECK(j["outputs"] == 4);
  CHECK(j["objective"].get<double>() == s.final_objective);
  CHECK(j["final_gap"].get<double>() == s.final_gap);
  CHECK(j["best_gap"].get<double>() == s.best_gap);
  CHECK(j["gap_slack"].get<double>() == 0.0);
  CHECK(j["calls"]["draws"] == s.calls.draws);
  CHECK(j["glmo"]["solver"] == s.glmo_solver);
  REQUIRE(j["plugins"].size() == 6);
  CHECK(j["plugins"][0]["role"] == "oracle");
  CHECK(j["plugins"][0]["name"] == "portfolio_returns");
  CHECK(j["plugins"][0]["library"] == registry().find(Kind::Oracle, "portfolio_returns")->library_name);
  CHECK(j["plugins"][0]["version"] == registry().find(Kind::Oracle, "portfolio_returns")->library_version);
  CHECK(status_token(Status::Interrupted) == std::string("interrupted"));
}
