// `scfw compare` (apps/scfw/compare): worker-count independence, the problem composed once per
// worker giving the same numbers as composing everything per run, summary statistics against the
// per-run traces, the across-K slope, K expressions, gnuplot run without a shell, and the
// one-line errors of bad experiment files.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "scfw/compare/compare.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/error.hpp"
#include "plugin_support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using scfw::test::registry;

json small_experiment() {
  return json::parse(R"({
    "name": "small",
    "oracle":  { "plugin": "least_squares_tasks", "batch": 1,
                 "synthetic": { "tasks": 3, "dim": 12, "rows_per_task": 40, "seed": 2 } },
    "outer":   { "plugin": "max" },
    "domain":  { "plugin": "l1_ball", "radius": 2 },
    "glmo":    { "plugin": "clp" },
    "methods": [
      { "label": "vanilla", "tracker": { "plugin": "vanilla" },
        "schedule": { "plugin": "constant", "gamma": "K^-0.75", "beta": 1, "rho": 1 } },
      { "label": "Variant I", "tracker": { "plugin": "momentum", "value": "polyak" },
        "schedule": { "plugin": "nonconvex" } }
    ],
    "seeds": 3,
    "iterations": [40, 120],
    "report": { "points": 8 }
  })");
}

fs::path scratch(const std::string& name) {
  fs::path p = fs::path(SCFW_BINARY_DIR) / "test_compare_out" / name;
  fs::remove_all(p);
  return p;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool q = false;
  for (char c : line) {
    if (c == '"') q = !q;
    else if (c == ',' && !q) out.push_back(cur), cur.clear();
    else cur += c;
  }
  out.push_back(cur);
  return out;
}

std::vector<std::map<std::string, std::string>> read_csv(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  const auto header = split_csv(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const auto cells = split_csv(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

std::string error_of(const json& doc) {
  try {
    const scfw::Experiment e = scfw::parse_experiment(registry(), doc, "exp.json", ".");
    scfw::compare_check(registry(), e);
  } catch (const scfw::InputError& err) {
    return err.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("K expressions") {
  CHECK(scfw::evaluate_k_expression("K^-0.75", 10000) == doctest::Approx(1e-3).epsilon(1e-14));
  CHECK(scfw::evaluate_k_expression("K^(-3/4)", 10000) == doctest::Approx(1e-3).epsilon(1e-14));
  CHECK(scfw::evaluate_k_expression(" 2 * K^-0.5 ", 100) == doctest::Approx(0.2).epsilon(1e-14));
  CHECK(scfw::evaluate_k_expression("1/K", 8) == 0.125);
  CHECK(scfw::evaluate_k_expression("0.3", 8) == 0.3);
  CHECK(scfw::evaluate_k_expression("K", 8) == 8.0);
  CHECK_THROWS_AS(scfw::evaluate_k_expression("K^^2", 8), std::invalid_argument);
  CHECK_THROWS_AS(scfw::evaluate_k_expression("", 8), std::invalid_argument);
  CHECK_THROWS_AS(scfw::evaluate_k_expression("K+1", 8), std::invalid_argument);
}

TEST_CASE("across-K slope: least squares on log10, by hand") {
  // log10 x = 0, 1, 2; log10 y = 0, -1, -1: mean (1, -2/3); cov = (-1)(2/3) + 0 + (1)(-1/3) = -1;
  // var = 2 -> slope -1/2, intercept -2/3 + 1/2 = -1/6.
  CHECK(scfw::loglog_slope({1, 10, 100}, {1, 0.1, 0.1}) == doctest::Approx(-0.5).epsilon(1e-14));
  CHECK(scfw::loglog_intercept({1, 10, 100}, {1, 0.1, 0.1}) == doctest::Approx(-1.0 / 6).epsilon(1e-13));
  // An exact power law: 3 K^-1/4.
  std::vector<double> k{1000, 3000, 10000}, g;
  for (double x : k) g.push_back(3 * std::pow(x, -0.25));
  CHECK(scfw::loglog_slope(k, g) == doctest::Approx(-0.25).epsilon(1e-12));
  CHECK(std::pow(10.0, scfw::loglog_intercept(k, g)) == doctest::Approx(3).epsilon(1e-12));
  // One K: no slope.
  CHECK(std::isnan(scfw::loglog_slope({1000}, {0.1})));
  double m = 0, s = 0;
  scfw::mean_std({1, 2, 3, 4}, m, s);
  CHECK(m == 2.5);
  CHECK(s == doctest::Approx(std::sqrt(5.0 / 3.0)).epsilon(1e-15));
}

TEST_CASE("1 and 2 workers give bitwise identical summaries; summary.csv matches the traces") {
  const scfw::Experiment e = scfw::parse_experiment(registry(), small_experiment(), "small.json", ".");
  REQUIRE(e.methods.size() == 2);
  REQUIRE(e.seeds.size() == 3);
  REQUIRE(e.budgets == std::vector<long>{40, 120});

  scfw::CompareOptions o1;
  o1.jobs = 1;
  o1.plots = false;
  o1.out = scratch("jobs1");
  scfw::CompareOptions o2 = o1;
  o2.jobs = 2;
  o2.out = scratch("jobs2");
  const scfw::CompareResult r1 = scfw::run_compare(registry(), e, o1);
  const scfw::CompareResult r2 = scfw::run_compare(registry(), e, o2);
  REQUIRE(r1.failed == 0);
  REQUIRE(r2.failed == 0);
  REQUIRE(r1.rows.size() == 4);
  REQUIRE(r2.rows.size() == 4);
  for (size_t i = 0; i < r1.rows.size(); ++i) {
    CHECK(r1.rows[i].label == r2.rows[i].label);
    CHECK(r1.rows[i].K == r2.rows[i].K);
    CHECK(r1.rows[i].runs == 3);
    CHECK(r1.rows[i].final_gap_mean == r2.rows[i].final_gap_mean);
    CHECK(r1.rows[i].final_gap_std == r2.rows[i].final_gap_std);
    CHECK(r1.rows[i].final_gap_min == r2.rows[i].final_gap_min);
    CHECK(r1.rows[i].final_gap_max == r2.rows[i].final_gap_max);
    CHECK(r1.rows[i].best_gap_mean == r2.rows[i].best_gap_mean);
    CHECK(r1.rows[i].best_gap_std == r2.rows[i].best_gap_std);
    CHECK(r1.rows[i].objective_mean == r2.rows[i].objective_mean);
  }
  for (size_t i = 0; i < r1.slopes.size(); ++i) {
    CHECK(r1.slopes[i].final_slope == r2.slopes[i].final_slope);
    CHECK(r1.slopes[i].best_slope == r2.slopes[i].best_slope);
  }
  // Distinct seeds give distinct runs (the seed reaches the solver).
  CHECK(r1.rows[0].final_gap_std > 0);

  // summary.csv against the traces: final gap = the last row's gap, best = its best_gap.
  const auto summary = read_csv(o1.out / "summary.csv");
  REQUIRE(summary.size() == 4);
  for (const auto& row : summary) {
    const std::string label = row.at("method");
    const long K = std::stol(row.at("K"));
    std::vector<double> finals, bests;
    for (const auto& run : r1.runs) {
      if (e.methods[run.method].label != label || run.K != K) continue;
      const auto trace = read_csv(o1.out / run.trace);
      REQUIRE(!trace.empty());
      CHECK(std::stol(trace.back().at("iteration")) == K);
      finals.push_back(std::stod(trace.back().at("gap")));
      bests.push_back(std::stod(trace.back().at("best_gap")));
      CHECK(trace.size() == 8);  // every ceil(K / 8) iterations, K a multiple of 8
    }
    REQUIRE(finals.size() == 3);
    double fm = 0, fs_ = 0, bm = 0, bs = 0;
    scfw::mean_std(finals, fm, fs_);
    scfw::mean_std(bests, bm, bs);
    // The traces carry 12 significant digits.
    CHECK(std::stod(row.at("final_gap_mean")) == doctest::Approx(fm).epsilon(1e-10));
    CHECK(std::stod(row.at("final_gap_std")) == doctest::Approx(fs_).epsilon(1e-8));
    CHECK(std::stod(row.at("best_gap_mean")) == doctest::Approx(bm).epsilon(1e-10));
    CHECK(std::stod(row.at("best_gap_std")) == doctest::Approx(bs).epsilon(1e-8));
    CHECK(std::stod(row.at("final_gap_min")) == doctest::Approx(*std::min_element(finals.begin(), finals.end())).epsilon(1e-10));
  }
  // The slope column is the fit of the per-K means.
  for (const auto& sl : r1.slopes) {
    std::vector<double> k, f;
    for (const auto& row : r1.rows)
      if (row.label == sl.label) k.push_back(static_cast<double>(row.K)), f.push_back(row.final_gap_mean);
    CHECK(sl.final_slope == scfw::loglog_slope(k, f));
  }
  CHECK(fs::exists(o1.out / "plot" / "gap_K120.dat"));
  CHECK(fs::exists(o1.out / "plot" / "rate.dat"));

  // The printed table: the objective beside the gap, the mean of the runs' final objectives
  // (the traces' last rows, 12 significant digits) to 6 digits.
  std::istringstream table(scfw::format_compare_table(r1));
  std::string line;
  std::getline(table, line);
  CHECK(line.rfind("METHOD", 0) == 0);
  CHECK(line.find("RUNS  OBJECTIVE (mean)  FINAL GAP (mean +- std)") != std::string::npos);
  for (const auto& row : r1.rows) {
    REQUIRE(std::getline(table, line));
    double sum = 0;
    int count = 0;
    for (const auto& run : r1.runs)
      if (e.methods[run.method].label == row.label && run.K == row.K) {
        sum += std::stod(read_csv(o1.out / run.trace).back().at("objective"));
        ++count;
      }
    REQUIRE(count == 3);
    CHECK(row.objective_mean == doctest::Approx(sum / count).epsilon(1e-10));
    char objective[32];
    std::snprintf(objective, sizeof objective, "%.6g", row.objective_mean);
    const std::string prefix = row.label;
    CHECK(line.rfind(prefix, 0) == 0);
    CHECK(line.find("  " + std::string(objective) + "  ") != std::string::npos);
  }
}

TEST_CASE("--resume: runs whose summaries match are read back, the rest run; the numbers as a full run's") {
  const scfw::Experiment e = scfw::parse_experiment(registry(), small_experiment(), "small.json", ".");
  scfw::CompareOptions o;
  o.jobs = 2;
  o.plots = false;
  o.out = scratch("resume");
  const scfw::CompareResult full = scfw::run_compare(registry(), e, o);
  REQUIRE(full.failed == 0);
  REQUIRE(full.runs.size() == 12);
  CHECK(full.resumed == 0);
  auto summary_of = [&](const scfw::CompareRun& r) {
    return o.out / "summaries" / fs::path(r.trace).filename().replace_extension(".json");
  };
  auto read = [](const fs::path& f) { return json::parse(std::ifstream(f)); };
  auto write = [](const fs::path& f, const json& j) { std::ofstream(f) << j.dump(1); };
  // Each summary records its run's document and the libraries' hash.
  const json first = read(summary_of(full.runs[0]));
  CHECK(first.at("experiment_run") == scfw::run_document(registry(), e, full.runs[0].method, full.runs[0].K, full.runs[0].seed));
  const std::string hash = first.at("libraries_hash").get<std::string>();
  CHECK(hash.rfind("fnv1a64:", 0) == 0);
  CHECK(hash.size() == 8 + 16);

  // Four runs that must run again: no summary, a summary of another run document, one of other
  // libraries, and a damaged one; and one whose trace is gone.
  fs::remove(summary_of(full.runs[0]));
  json other = read(summary_of(full.runs[1]));
  other["experiment_run"]["seed"] = 99;
  write(summary_of(full.runs[1]), other);
  json rebuilt = read(summary_of(full.runs[2]));
  rebuilt["libraries_hash"] = "fnv1a64:0000000000000000";
  write(summary_of(full.runs[2]), rebuilt);
  std::ofstream(summary_of(full.runs[3])) << "{\"final_gap\": 1,";
  fs::remove(o.out / full.runs[4].trace);

  o.resume = true;
  const scfw::CompareResult resumed = scfw::run_compare(registry(), e, o);
  CHECK(resumed.failed == 0);
  CHECK(resumed.resumed == 7);
  CHECK_FALSE(resumed.interrupted);
  REQUIRE(resumed.runs.size() == full.runs.size());
  for (size_t i = 0; i < full.runs.size(); ++i) {
    CAPTURE(i);
    CHECK(resumed.runs[i].final_gap == full.runs[i].final_gap);
    CHECK(resumed.runs[i].best_gap == full.runs[i].best_gap);
    CHECK(resumed.runs[i].final_objective == full.runs[i].final_objective);
    CHECK(resumed.runs[i].iterations == full.runs[i].iterations);
    // A run read back keeps its own timings.
    if (i >= 5) CHECK(resumed.runs[i].seconds == full.runs[i].seconds);
  }
  REQUIRE(resumed.rows.size() == full.rows.size());
  for (size_t i = 0; i < full.rows.size(); ++i) {
    CHECK(resumed.rows[i].final_gap_mean == full.rows[i].final_gap_mean);
    CHECK(resumed.rows[i].final_gap_std == full.rows[i].final_gap_std);
    CHECK(resumed.rows[i].best_gap_mean == full.rows[i].best_gap_mean);
    CHECK(resumed.rows[i].objective_mean == full.rows[i].objective_mean);
  }
  CHECK(read(summary_of(full.runs[1])).at("experiment_run").at("seed") == full.runs[1].seed);

  // Now every summary matches: nothing runs, and no worker composes the problem.
  const scfw::CompareResult again = scfw::run_compare(registry(), e, o);
  CHECK(again.resumed == 12);
  CHECK(again.problems_composed == 0);
  CHECK(again.rows[0].final_gap_mean == full.rows[0].final_gap_mean);

  // Another schedule for the first method: its six runs run again, the second method's are kept.
  json changed = small_experiment();
  changed["methods"][0]["schedule"]["gamma"] = "K^-0.7";
  const scfw::Experiment e2 = scfw::parse_experiment(registry(), changed, "small.json", ".");
  const scfw::CompareResult half = scfw::run_compare(registry(), e2, o);
  CHECK(half.resumed == 6);
  for (const auto& r : half.runs)
    if (r.method == 1) CHECK(r.final_gap == full.runs[&r - half.runs.data()].final_gap);
  CHECK(half.rows[0].final_gap_mean != full.rows[0].final_gap_mean);
}

TEST_CASE("--resume: a file with part of the methods and budgets runs pieces the whole file keeps") {
  // A run's document holds its own method, K and seed, not the file's lists: a design can be run
  // in pieces of any order (here Variant I at K = 40 first) and finished by the whole file.
  json part = small_experiment();
  part["methods"] = json::array({small_experiment()["methods"][1]});
  part["iterations"] = {40};
  scfw::CompareOptions o;
  o.jobs = 2;
  o.plots = false;
  o.out = scratch("resume_part");
  const scfw::CompareResult first =
      scfw::run_compare(registry(), scfw::parse_experiment(registry(), part, "part.json", "."), o);
  REQUIRE(first.failed == 0);
  REQUIRE(first.runs.size() == 3);
  o.resume = true;
  const scfw::CompareResult whole =
      scfw::run_compare(registry(), scfw::parse_experiment(registry(), small_experiment(), "small.json", "."), o);
  CHECK(whole.failed == 0);
  CHECK(whole.resumed == 3);
  for (const auto& r : whole.runs)
    if (r.method == 1 && r.K == 40) {
      CAPTURE(r.seed);
      CHECK(r.final_gap == first.runs[r.seed - 1].final_gap);
      CHECK(r.seconds == first.runs[r.seed - 1].seconds);  // read back, not run again
    }
}

TEST_CASE("--resume: a data file changed in place runs every run again") {
  const fs::path dir = scratch("resume_data");
  fs::create_directories(dir);
  const fs::path csv = dir / "box.csv";
  // The box |x_i| <= radius as the polytope's rows a^T x <= b.
  auto write_box = [&](int radius) {
    std::ofstream out(csv);
    for (int sign : {1, -1})
      for (int i = 0; i < 12; ++i) {
        for (int j = 0; j < 12; ++j) out << (i == j ? sign : 0) << ",";
        out << radius << "\n";
      }
  };
  write_box(2);
  json doc = small_experiment();
  doc["domain"] = {{"plugin", "polytope"}, {"file", csv.string()}};
  doc["iterations"] = {40};
  const scfw::Experiment e = scfw::parse_experiment(registry(), doc, "small.json", ".");
  scfw::CompareOptions o;
  o.jobs = 2;
  o.plots = false;
  o.out = dir / "out";
  const scfw::CompareResult full = scfw::run_compare(registry(), e, o);
  REQUIRE(full.failed == 0);
  REQUIRE(full.runs.size() == 6);
  auto summary = [&](const scfw::CompareRun& r) {
    return json::parse(std::ifstream(o.out / "summaries" / fs::path(r.trace).filename().replace_extension(".json")));
  };
  // Each summary fingerprints the data file: its canonical path, size and FNV-1a hash.
  const json files = summary(full.runs[0]).at("data_files");
  REQUIRE(files.size() == 1);
  CHECK(files[0].at("path") == fs::canonical(csv).string());
  CHECK(files[0].at("bytes") == fs::file_size(csv));
  CHECK(files[0].at("fnv1a64").get<std::string>().size() == 16);
  for (const auto& r : full.runs) CHECK(summary(r).at("data_files") == files);

  o.resume = true;
  CHECK(scfw::run_compare(registry(), e, o).resumed == 6);
  // The same size, other contents (radius 3): nothing is kept, and the new runs see the new box.
  write_box(3);
  REQUIRE(fs::file_size(csv) == files[0].at("bytes").get<std::uintmax_t>());
  const scfw::CompareResult changed = scfw::run_compare(registry(), e, o);
  CHECK(changed.resumed == 0);
  CHECK(changed.failed == 0);
  CHECK(summary(changed.runs[0]).at("data_files")[0].at("fnv1a64") != files[0].at("fnv1a64"));
  bool moved = false;
  for (size_t i = 0; i < full.runs.size(); ++i) moved = moved || changed.runs[i].final_gap != full.runs[i].final_gap;
  CHECK(moved);
  // Those summaries match the file as it is now.
  CHECK(scfw::run_compare(registry(), e, o).resumed == 6);
  // A data file that is gone: nothing is kept, and the runs fail to compose as without --resume.
  fs::remove(csv);
  CHECK_THROWS_AS(scfw::run_compare(registry(), e, o), scfw::InputError);
}

TEST_CASE("a run document: K expressions evaluated, report every ceil(K / points)") {
  const scfw::Experiment e = scfw::parse_experiment(registry(), small_experiment(), "small.json", ".");
  const json doc = scfw::run_document(registry(), e, 0, 120, 7);
  CHECK(doc["schedule"]["gamma"].get<double>() == doctest::Approx(std::pow(120.0, -0.75)).epsilon(1e-15));
  CHECK(doc["seed"] == 7);
  CHECK(doc["iterations"] == 120);
  CHECK(doc["report"]["every"] == 15);
  CHECK(doc["tracker"]["plugin"] == "vanilla");
}

TEST_CASE("bad experiment files: one line <file>: <pointer>: <what>") {
  json d = small_experiment();
  d.erase("methods");
  CHECK(error_of(d) ==
        "exp.json: /methods: missing; expected a list of {\"label\": ..., \"tracker\": {...}, \"schedule\": {...}}");

  d = small_experiment();
  d["seed"] = 3;
  CHECK(error_of(d) == "exp.json: /seed: unknown key; did you mean \"seeds\"?");

  d = small_experiment();
  d["tracker"] = {{"plugin", "vanilla"}};
  CHECK(error_of(d) ==
        "exp.json: /tracker: unknown key; an experiment gives the tracker and schedule of each method in \"methods\"");

  d = small_experiment();
  d["iterations"] = {100, 0};
  CHECK(error_of(d) == "exp.json: /iterations/1: expected an integer >= 1, got 0");

  d = small_experiment();
  d["iterations"] = {100, 100};
  CHECK(error_of(d) == "exp.json: /iterations/1: K = 100 is listed twice");

  d = small_experiment();
  d["seeds"] = 0;
  CHECK(error_of(d) == "exp.json: /seeds: expected a number of seeds >= 1 or a list of seeds, got 0");

  d = small_experiment();
  d["methods"][1]["label"] = "vanilla";
  CHECK(error_of(d) == "exp.json: /methods/1/label: label \"vanilla\" is used twice");

  d = small_experiment();
  d["methods"][0]["schedle"] = d["methods"][0]["schedule"];
  CHECK(error_of(d) == "exp.json: /methods/0/schedle: unknown key; did you mean \"schedule\"?");

  d = small_experiment();
  d["methods"][0]["schedule"]["gamma"] = "K^^2";
  CHECK(error_of(d) ==
        "exp.json: /methods/0/schedule/gamma: expected a number or an expression in K such as \"K^-0.75\", got "
        "\"K^^2\" (expected a number or K at character 3)");

  d = small_experiment();
  d["methods"][0]["schedule"]["gamma"] = "K^0.5";  // > 1 at every K: out of (0, 1]
  const std::string range_error = error_of(d);
  CHECK(range_error.rfind("exp.json: /methods/0/schedule/gamma: expected ", 0) == 0);

  d = small_experiment();
  d["methods"][1]["tracker"]["value"] = "polak";
  CHECK(error_of(d).rfind("exp.json: /methods/1/tracker/value: expected ", 0) == 0);

  d = small_experiment();
  d["methods"][1]["tracker"]["plugin"] = "momentun";
  CHECK(error_of(d).rfind("exp.json: /methods/1/tracker/plugin: unknown tracker plugin \"momentun\"; closest: \"momentum\"", 0) ==
        0);

  d = small_experiment();
  d["report"] = {{"every", 10}};
  CHECK(error_of(d) == "exp.json: /report/every: unknown parameter of report; its parameters are \"points\"");

  // What the file holds shows cut to 40 bytes with control characters as '?' or a byte in hex,
  // so that the message stays one short line; keys are escaped as JSON pointer tokens.
  d = small_experiment();
  d["report"] = {{"e\x01/x", 10}};
  CHECK(error_of(d) == "exp.json: /report/e?~1x: unknown parameter of report; its parameters are \"points\"");
  d = small_experiment();
  d[std::string(50, '\x7f')] = 1;
  CHECK(error_of(d) == "exp.json: /" + std::string(40, '?') + "... (50 bytes): unknown key; expected one of \"name\", "
                       "\"note\", \"oracle\", \"outer\", \"domain\", \"glmo\", \"methods\", \"seeds\", \"iterations\", \"report\", \"out\"");
  d = small_experiment();
  d["methods"][0]["x\ny"] = 1;
  CHECK(error_of(d) == "exp.json: /methods/0/x?y: unknown key; a method has \"label\", \"tracker\" and \"schedule\"");
  d = small_experiment();
  d["methods"][0]["schedule"]["gamma"] = "K\x7f";
  CHECK(error_of(d) ==
        "exp.json: /methods/0/schedule/gamma: expected a number or an expression in K such as \"K^-0.75\", got "
        "\"K\\u007f\" (unexpected byte 0x7F at character 2)");
  d = small_experiment();
  d["methods"][0]["schedule"]["gamma"] = "K*1" + std::string(100, '.');
  CHECK(error_of(d) ==
        "exp.json: /methods/0/schedule/gamma: expected a number or an expression in K such as \"K^-0.75\", got "
        "\"K*1" + std::string(53, '.') + "... ('1" + std::string(39, '.') + "... (101 bytes)' is not a number)");

  d = small_experiment();
  d["out"] = "results\n";
  CHECK(error_of(d) == "exp.json: /out: the file name holds a control character (shown as ?): \"results?\"");

  // The problem blocks are checked by the composer, with their pointers in the experiment file.
  d = small_experiment();
  d["domain"]["radius"] = -1;
  CHECK(error_of(d) == "exp.json: /domain/radius: expected a number in (0, 1e10], got -1");
}

TEST_CASE("plots: gnuplot writes the SVGs, and markup characters in names print as written") {
  // gnuplot's enhanced text reads & ^ _ @ ~ { } as markup: "S&P" printed as "S P" before the
  // names were escaped. Skipped (with a message) where gnuplot is not installed.
  json doc = small_experiment();
  doc["name"] = "S&P_1 {x}";
  doc["methods"][1]["label"] = "Variant_I";
  doc["iterations"] = json::array({40, 80});
  const scfw::Experiment e = scfw::parse_experiment(registry(), doc, "small.json", ".");
  scfw::CompareOptions o;
  o.jobs = 2;
  o.out = scratch("plots");
  const scfw::CompareResult r = scfw::run_compare(registry(), e, o);
  REQUIRE(r.failed == 0);
  if (!r.plot_warning.empty()) {
    MESSAGE("skipped: no plots were drawn: " << r.plot_warning);
    return;
  }
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  for (const char* name : {"gap_K40.svg", "gap_K80.svg", "rate.svg"}) {
    CAPTURE(name);
    const std::string svg = slurp(o.out / name);
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK(svg.find("Produced by GNUPLOT") != std::string::npos);
    // the title, as written (gnuplot's SVG terminal writes a title's & unescaped)
    CHECK((svg.find(">S&P_1 {x}<") != std::string::npos || svg.find(">S&amp;P_1 {x}<") != std::string::npos));
    CHECK(svg.find("Variant_I") != std::string::npos);      // a key entry, as written
    CHECK(fs::file_size(o.out / (std::string(name).substr(0, std::string(name).size() - 4) + ".png")) > 1000);
  }
}

namespace {

/// Every number `compare` wrote but the timings: summary.csv without its sec_per_iter_* columns,
/// runs.csv without "seconds", slopes.csv, and each trace without "seconds"; by file name.
std::map<std::string, std::string> numbers_written(const fs::path& out) {
  std::map<std::string, std::string> files;
  auto strip = [&](const fs::path& file, auto timing) {
    std::string text;
    for (const auto& row : read_csv(file)) {
      for (const auto& [column, value] : row)
        if (!timing(column)) text += column + "=" + value + ";";
      text += "\n";
    }
    REQUIRE(!text.empty());
    return text;
  };
  files["summary.csv"] = strip(out / "summary.csv", [](const std::string& c) { return c.rfind("sec_per_iter", 0) == 0; });
  files["runs.csv"] = strip(out / "runs.csv", [](const std::string& c) { return c == "seconds"; });
  files["slopes.csv"] = strip(out / "slopes.csv", [](const std::string&) { return false; });
  for (const auto& entry : fs::directory_iterator(out / "traces"))
    files["traces/" + entry.path().filename().string()] =
        strip(entry.path(), [](const std::string& c) { return c == "seconds"; });
  return files;
}

/// Runs `doc` three ways — everything composed per run on 1 worker, the problem composed once
/// per worker on 1 and on 2 workers — and checks that every number written is the same.
void check_composed_once_is_bitwise_fresh(const json& doc, const std::string& name) {
  const scfw::Experiment e = scfw::parse_experiment(registry(), doc, name + ".json", ".");
  scfw::CompareOptions fresh;
  fresh.jobs = 1;
  fresh.plots = false;
  fresh.fresh_problem = true;
  fresh.out = scratch(name + "-fresh");
  scfw::CompareOptions once1 = fresh;
  once1.fresh_problem = false;
  once1.out = scratch(name + "-once1");
  scfw::CompareOptions once2 = once1;
  once2.jobs = 2;
  once2.out = scratch(name + "-once2");

  const scfw::CompareResult rf = scfw::run_compare(registry(), e, fresh);
  const scfw::CompareResult r1 = scfw::run_compare(registry(), e, once1);
  const scfw::CompareResult r2 = scfw::run_compare(registry(), e, once2);
  const size_t runs = e.methods.size() * e.seeds.size() * e.budgets.size();
  REQUIRE(rf.failed == 0);
  REQUIRE(r1.failed == 0);
  REQUIRE(r2.failed == 0);
  REQUIRE(rf.runs.size() == runs);
  // Fresh: one problem per run; once: one per worker.
  CHECK(rf.problems_composed == runs);
  CHECK(r1.problems_composed == 1);
  CHECK(r2.problems_composed == 2);

  for (const auto* r : {&r1, &r2}) {
    for (size_t i = 0; i < runs; ++i) {
      CAPTURE(i);
      CHECK(r->runs[i].final_gap == rf.runs[i].final_gap);  // bitwise
      CHECK(r->runs[i].best_gap == rf.runs[i].best_gap);
      CHECK(r->runs[i].final_objective == rf.runs[i].final_objective);
      CHECK(r->runs[i].iterations == rf.runs[i].iterations);
    }
  }
  const auto expect = numbers_written(fresh.out);
  CHECK(expect.size() == 3 + runs);
  for (const auto& out : {once1.out, once2.out}) {
    const auto got = numbers_written(out);
    REQUIRE(got.size() == expect.size());
    for (const auto& entry : expect) {
      const std::string& file = entry.first;  // not a structured binding: CAPTURE's lambda takes
      CAPTURE(file);                          // it by reference, which clang 14 refuses
      CHECK(got.at(file) == entry.second);
    }
  }
}

}  // namespace

TEST_CASE("the problem composed once per worker: every number bitwise as composing each run afresh (nuclear_ball)") {
  // The nuclear ball's LMO starts its Lanczos iteration from the previous call's vector: a run
  // after another on the same domain object would start elsewhere. Column generation prices
  // through that LMO at every GLMO call.
  const json doc = json::parse(R"({
    "name": "nuclear",
    "oracle": { "plugin": "matrix_completion", "groups": 6, "synthetic": { "rows": 12, "cols": 8 } },
    "outer":  { "plugin": "norm", "p": "1" },
    "domain": { "plugin": "nuclear_ball", "rows": 12, "cols": 8, "radius": 4 },
    "glmo":   { "plugin": "column_generation", "tolerance": 0.05 },
    "methods": [
      { "label": "momentum", "tracker": { "plugin": "momentum" }, "schedule": { "plugin": "nonconvex" } },
      { "label": "vanilla", "tracker": { "plugin": "vanilla" },
        "schedule": { "plugin": "constant", "gamma": "K^-0.75", "beta": 1, "rho": 1 } }
    ],
    "seeds": 2,
    "iterations": [20, 40],
    "report": { "points": 5 }
  })");
  check_composed_once_is_bitwise_fresh(doc, "nuclear");
}

TEST_CASE("the problem composed once per worker: every number bitwise as composing each run afresh (polytope)") {
  // The polytope's LMO keeps Clp's basis between calls; column generation calls it at every
  // GLMO solve. X = {x in [-1, 1]^6 : sum x <= 3}.
  json doc = json::parse(R"({
    "name": "polytope",
    "oracle": { "plugin": "least_squares_tasks", "batch": 1,
                "synthetic": { "tasks": 3, "dim": 6, "rows_per_task": 30, "sparsity": 3, "seed": 2 } },
    "outer":  { "plugin": "max" },
    "glmo":   { "plugin": "column_generation" },
    "methods": [
      { "label": "Variant I", "tracker": { "plugin": "momentum", "value": "polyak" }, "schedule": { "plugin": "nonconvex" } },
      { "label": "STORM", "tracker": { "plugin": "storm" }, "schedule": { "plugin": "storm" } }
    ],
    "seeds": 2,
    "iterations": [30, 60],
    "report": { "points": 6 }
  })");
  doc["domain"] = scfw::test::box_cut_polytope();
  check_composed_once_is_bitwise_fresh(doc, "polytope");
}

TEST_CASE("gnuplot's path is a PATH lookup, and programs run without a shell") {
  // find_program walks $PATH; a name with a '/' is taken as it is.
  const fs::path sh = scfw::find_program("sh");
  REQUIRE(!sh.empty());
  CHECK(sh.filename() == "sh");
  CHECK(scfw::find_program("scfw-no-such-program-anywhere").empty());
  CHECK(scfw::find_program(sh.string()) == sh);

  const fs::path dir = scratch("spawn");
  fs::create_directories(dir);
  // The arguments reach the program as they are: no shell splits, expands or redirects them.
  const int rc = scfw::run_program({"printf", "%s|", "a b", "$HOME", "*", ">x"}, dir / "out.txt", dir / "err.txt");
  CHECK(rc == 0);
  std::ifstream in(dir / "out.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "a b|$HOME|*|>x|");
  CHECK(!fs::exists(dir / "x"));
  // The exit status comes back; a program that is not there is -1 with the reason.
  CHECK(scfw::run_program({"sh", "-c", "exit 3"}, dir / "out.txt", dir / "err.txt") == 3);
  std::string why;
  CHECK(scfw::run_program({"scfw-no-such-program-anywhere"}, dir / "out.txt", dir / "err.txt", &why) == -1);
  CHECK(why == "scfw-no-such-program-anywhere: No such file or directory");
}

// ---------------------------------------------------------------------------------------------
// Hostile experiment files (issue #12): labels that name the same trace files or contain path
// separators, and an output folder that cannot be created, refused at validation.

TEST_CASE("labels naming the same trace files, or with a path separator, are refused with their pointer") {
  json d = small_experiment();
  d["methods"][0]["label"] = "a b";
  d["methods"][1]["label"] = "a_b";
  CHECK(error_of(d) == "exp.json: /methods/1/label: label \"a_b\" names the same trace files (traces/a_b-K...csv) as "
                       "/methods/0/label \"a b\"; file names keep a label's letters, digits, '-' and '.', anything "
                       "else becomes '_'");
  d["methods"][0]["label"] = "a/b";
  CHECK(error_of(d) == "exp.json: /methods/0/label: label \"a/b\": a label cannot contain '/', '\\', quotes or control "
                       "characters (it names trace files and is written into CSV files and plot scripts)");
  d["methods"][0]["label"] = "x\ny";
  CHECK(error_of(d) == "exp.json: /methods/0/label: label \"x?y\": a label cannot contain '/', '\\', quotes or control "
                       "characters (it names trace files and is written into CSV files and plot scripts)");
  d["methods"][0]["label"] = std::string(5000, 'q') + "\"";
  CHECK(error_of(d) == "exp.json: /methods/0/label: label \"" + std::string(40, 'q') +
                           "... (5001 bytes)\": a label cannot contain '/', '\\', quotes or control characters (it "
                           "names trace files and is written into CSV files and plot scripts)");
}

TEST_CASE("check_output_folder: a file in the way and a read-only file system refused, nothing left behind") {
  const fs::path base = scratch("check_out");
  fs::create_directories(base);
  std::ofstream(base / "file.txt") << "x";
  CHECK_THROWS_WITH_AS(scfw::check_output_folder(base / "file.txt" / "out"),
                       ((base / "file.txt" / "out").string() + ": cannot create the output folder (" +
                        (base / "file.txt").string() + " is not a folder)")
                           .c_str(),
                       scfw::InputError);
  CHECK_THROWS_WITH_AS(scfw::check_output_folder("/proc/scfw-out"),
                       "/proc/scfw-out: cannot create the output folder (No such file or directory)", scfw::InputError);
  // A folder that can be made: nothing is created.
  scfw::check_output_folder(base / "new" / "deeper");
  scfw::check_output_folder(base);
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(base)) left.push_back(entry.path().filename().string());
  CHECK(left == std::vector<std::string>{"file.txt"});
}
