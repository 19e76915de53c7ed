// The plots (apps/scfw/compare): `scfw plot`'s trace reader and gnuplot script (the runs named,
// the iteration, objective and gap columns drawn, a logarithmic axis only where it helps, bad
// traces refused word for word), and `scfw compare`'s objective plots and rate plot (one label
// per budget, the x range equal to the budgets, no rate plot for a single budget). gnuplot is not
// run here: the drawings themselves are checked by tests/cli/cli_plot.sh.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "plugin_support.hpp"
#include "scfw/compare/compare.hpp"
#include "scfw/compare/trace_plot.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path scratch(const std::string& name) {
  fs::path p = fs::path(SCFW_BINARY_DIR) / "test_plots_out" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

fs::path write(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
  return file;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* kHeader = "iteration,objective,gap,best_gap,seconds,gamma,beta,rho,glmo_value,glmo_iterations\n";

/// The rows of datablock `name` in a gnuplot script: its lines between "<name> << EOD" and "EOD".
std::vector<std::string> datablock(const std::string& script, const std::string& name) {
  std::vector<std::string> rows;
  std::istringstream in(script);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == name + " << EOD") inside = true;
    else if (inside && line == "EOD") break;
    else if (inside) rows.push_back(line);
  }
  return rows;
}

/// The text of the script from the line that starts with `from` up to the next line that starts
/// with `to` (or the end).
std::string section(const std::string& script, const std::string& from, const std::string& to) {
  const size_t a = script.find("\n" + from);
  REQUIRE(a != std::string::npos);
  const size_t b = script.find("\n" + to, a + 1);
  return script.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

std::string read_error(const fs::path& file) {
  try {
    scfw::read_trace(file);
  } catch (const scfw::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("scfw plot: the script for two traces names both runs and draws iteration against objective and gap") {
  const fs::path dir = scratch("two");
  // Columns found by name: the second trace has its columns in another order and CRLF endings.
  write(dir / "vanilla.csv", std::string(kHeader) +
                                 "10,2.5,1.25,1.25,0.1,0.1,1,1,0.5,0\n"
                                 "20,2,0.5,0.5,0.2,0.1,1,1,0.5,0\n"
                                 "30,1.75,0.0625,0.0625,0.3,0.1,1,1,0.5,0\n");
  write(dir / "momentum.csv",
        "gap,seconds,iteration,objective\r\n"
        "0.75,0.1,10,3\r\n"
        "0.25,0.2,20,2.25\r\n"
        ",0.3,30,\r\n");  // a last row without a report
  const auto traces = scfw::read_traces({dir / "vanilla.csv", dir / "momentum.csv"});
  REQUIRE(traces.size() == 2);
  CHECK(traces[0].label == "vanilla");
  CHECK(traces[1].label == "momentum");
  CHECK(traces[1].iteration == std::vector<long>{10, 20, 30});
  CHECK(traces[1].objective[1] == 2.25);
  CHECK(std::isnan(traces[1].gap[2]));

  const std::string s = scfw::trace_plot_script(traces, scfw::PlotFormat::png, dir / "out.png");
  CHECK(s.find("set terminal pngcairo size 900,760 ") != std::string::npos);
  CHECK(s.find("set output \"" + (dir / "out.png").string() + "\"\n") != std::string::npos);
  // Each run's iteration, objective and gap, as read (NaN where the row has none).
  CHECK(datablock(s, "$run1") == std::vector<std::string>{"10 2.5 1.25", "20 2 0.5", "30 1.75 0.0625"});
  CHECK(datablock(s, "$run2") == std::vector<std::string>{"10 3 0.75", "20 2.25 0.25", "30 NaN NaN"});
  // The upper panel draws column 2 (the objective) of each run, the lower one column 3 (the gap),
  // its key naming the runs by their stems.
  const std::string upper = section(s, "# the objective", "# the gap");
  const std::string lower = section(s, "# the gap", "unset multiplot");
  CHECK(upper.find("$run1 using 1:2 with linespoints") != std::string::npos);
  CHECK(upper.find("$run2 using 1:2 with linespoints") != std::string::npos);
  CHECK(upper.find("using 1:3") == std::string::npos);
  CHECK(upper.find("title \"") == std::string::npos);
  CHECK(lower.find("$run1 using 1:3 with linespoints pt 7 ps 0.6 lw 2 lc rgb '#d62728' title \"vanilla\"") !=
        std::string::npos);
  CHECK(lower.find("$run2 using 1:3 with linespoints pt 7 ps 0.6 lw 2 lc rgb '#ff7f0e' title \"momentum\"") !=
        std::string::npos);
  CHECK(lower.find("using 1:2") == std::string::npos);
  // The gap spans 1.25 / 0.0625 = 20: a logarithmic axis labelled in 1-2-5 steps; the objective
  // (1.75 to 3) stays linear, and so does the iteration (10 to 30).
  CHECK(lower.find("set logscale y\n") != std::string::npos);
  CHECK(lower.find("set ytics (0.1, 0.2, 0.5, 1)\n") != std::string::npos);
  CHECK(upper.find("unset logscale y\n") != std::string::npos);
  CHECK(s.find("set logscale x") == std::string::npos);

  // Equal stems: each run is named by its path instead.
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  fs::copy_file(dir / "vanilla.csv", dir / "a" / "run.csv");
  fs::copy_file(dir / "vanilla.csv", dir / "b" / "run.csv");
  const auto same = scfw::read_traces({dir / "a" / "run.csv", dir / "b" / "run.csv"});
  CHECK(same[0].label == (dir / "a" / "run.csv").string());
  CHECK(same[1].label == (dir / "b" / "run.csv").string());
}

TEST_CASE("scfw plot: a negative objective keeps a linear axis; long runs get a logarithmic iteration axis") {
  const fs::path dir = scratch("negative");
  std::string text = kHeader;
  for (int k = 1; k <= 1000; ++k) {
    const double obj = -0.5 + 1.0 / std::sqrt(k), gap = std::pow(k, -0.5);
    text += std::to_string(k) + "," + std::to_string(obj) + "," + std::to_string(gap) + ",,,,,,,\n";
  }
  write(dir / "cvar.csv", text);
  const auto traces = scfw::read_traces({dir / "cvar.csv"});
  const std::string s = scfw::trace_plot_script(traces, scfw::PlotFormat::svg, dir / "cvar.svg");
  CHECK(s.find("set terminal svg size 720,608 ") != std::string::npos);
  CHECK(s.find("set logscale x\n") != std::string::npos);  // iterations 1 to 1000
  CHECK(section(s, "# the objective", "# the gap").find("unset logscale y\n") != std::string::npos);
  const std::string lower = section(s, "# the gap", "unset multiplot");
  CHECK(lower.find("set logscale y\n") != std::string::npos);
  CHECK(lower.find("set format y '%g'\n") != std::string::npos);  // 0.0316 to 1: under two decades
  // Two decades (1e-4 to 1e-2, as Task 2's gaps): labels in 1-2-5 steps, not only 1e-4, 1e-3, 1e-2.
  std::string two = kHeader;
  for (int k = 1; k <= 100; ++k) two += std::to_string(k) + ",1," + std::to_string(1e-2 / k) + ",,,,,,,\n";
  write(dir / "two.csv", two);
  const std::string t = scfw::trace_plot_script(scfw::read_traces({dir / "two.csv"}), scfw::PlotFormat::svg, dir / "two.svg");
  CHECK(section(t, "# the gap", "unset multiplot").find("set ytics (0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01)\n") !=
        std::string::npos);
  // Three decades or more (1 to 1e-4): a label at each power of ten.
  std::string four = kHeader;
  for (int k = 1; k <= 100; ++k) four += std::to_string(k) + ",1," + std::to_string(1.0 / (k * k)) + ",,,,,,,\n";
  write(dir / "four.csv", four);
  const std::string f = scfw::trace_plot_script(scfw::read_traces({dir / "four.csv"}), scfw::PlotFormat::svg, dir / "four.svg");
  CHECK(section(f, "# the gap", "unset multiplot").find("set format y '10^{%L}'\n") != std::string::npos);
  // More than 60 rows: lines without points.
  CHECK(lower.find("$run1 using 1:3 with lines lw 2 ") != std::string::npos);

  CHECK(scfw::log_scale_helps({1, 10}, 10));
  CHECK(!scfw::log_scale_helps({1, 9.99}, 10));
  CHECK(!scfw::log_scale_helps({-1, 10, 100}, 10));
  CHECK(!scfw::log_scale_helps({0, 10, 100}, 10));
  CHECK(scfw::log_scale_helps({NAN, 0.5, 50, INFINITY}, 10));
  CHECK(!scfw::log_scale_helps({NAN}, 10));
}

TEST_CASE("scfw plot: files that are not traces are refused with one located line") {
  const fs::path dir = scratch("bad");
  const std::string d = dir.string() + "/";
  // A solution CSV is not a trace.
  write(dir / "solution.csv", "kind,name,value\nobjective,,0.5\nx,a,1\n");
  CHECK(read_error(dir / "solution.csv") ==
        d + "solution.csv: line 1: not a trace CSV: the header has no column \"iteration\" (a trace has the columns "
            "iteration, objective and gap; this header is \"kind,name,value\")");
  write(dir / "nogap.csv", "iteration,objective,best_gap\n1,2,3\n");
  CHECK(read_error(dir / "nogap.csv") ==
        d + "nogap.csv: line 1: not a trace CSV: the header has no column \"gap\" (a trace has the columns iteration, "
            "objective and gap; this header is \"iteration,objective,best_gap\")");
  write(dir / "empty.csv", "");
  CHECK(read_error(dir / "empty.csv") == d + "empty.csv: the file is empty, not a trace CSV");
  write(dir / "header.csv", kHeader);
  CHECK(read_error(dir / "header.csv") == d + "header.csv: the trace is empty: a header and no rows");
  write(dir / "short.csv", std::string(kHeader) + "10,2,1,1,0.1,0.1,1,1,0.5,0\n20,2,1\n");
  CHECK(read_error(dir / "short.csv") == d + "short.csv: line 3: 3 fields, the header has 10");
  write(dir / "word.csv", std::string(kHeader) + "10,2,one,1,0.1,0.1,1,1,0.5,0\n");
  CHECK(read_error(dir / "word.csv") == d + "word.csv: line 2: column \"gap\": expected a number, got \"one\"");
  write(dir / "iter.csv", std::string(kHeader) + "-1,2,1,1,0.1,0.1,1,1,0.5,0\n");
  CHECK(read_error(dir / "iter.csv") ==
        d + "iter.csv: line 2: column \"iteration\": expected an integer >= 0, got \"-1\"");
  write(dir / "noexact.csv", std::string(kHeader) + "10,,,,0.1,0.1,1,1,,0\n");
  CHECK(read_error(dir / "noexact.csv") ==
        d + "noexact.csv: no row has a finite objective (objective and gap come from the exact evaluation, which "
            "this run's oracle does not have)");
  CHECK(read_error(dir / "missing.csv") == d + "missing.csv: cannot open file (No such file or directory)");
  CHECK(read_error(dir) == dir.string() + ": is a directory");

  CHECK(scfw::plot_format("a.PNG") == scfw::PlotFormat::png);
  CHECK(scfw::plot_format("a.svg") == scfw::PlotFormat::svg);
  CHECK_THROWS_WITH_AS(scfw::plot_format("a.pdf"), "expected a file name ending in .png or .svg, got 'a.pdf'",
                       std::invalid_argument);
}

namespace {

json small_experiment(const json& iterations) {
  // Two methods on a small Task 1 instance: the data and the runs take well under a second.
  json e = {{"name", "plots"}, {"seeds", 2}, {"report", {{"points", 8}}}};
  e["oracle"] = {{"plugin", "least_squares_tasks"}, {"batch", 1},
                 {"synthetic", {{"tasks", 3}, {"dim", 12}, {"rows_per_task", 40}, {"seed", 2}}}};
  e["outer"] = {{"plugin", "max"}};
  e["domain"] = {{"plugin", "l1_ball"}, {"radius", 2}};
  e["methods"] = json::array();
  e["methods"].push_back({{"label", "vanilla"}, {"tracker", {{"plugin", "vanilla"}}},
                          {"schedule", {{"plugin", "constant"}, {"gamma", "K^-0.75"}, {"beta", 1}, {"rho", 1}}}});
  e["methods"].push_back({{"label", "Variant I"}, {"tracker", {{"plugin", "momentum"}, {"value", "polyak"}}},
                          {"schedule", {{"plugin", "nonconvex"}}}});
  e["iterations"] = iterations;
  return e;
}

scfw::CompareResult run(const json& doc, const fs::path& out) {
  const scfw::Experiment e = scfw::parse_experiment(scfw::test::registry(), doc, "plots.json", ".");
  scfw::CompareOptions o;
  o.jobs = 2;
  o.out = out;
  o.plots = false;  // the scripts are written all the same
  return scfw::run_compare(scfw::test::registry(), e, o);
}

}  // namespace

TEST_CASE("compare: an objective plot per K beside the gap plot, from the traces' objectives") {
  const fs::path out = scratch("compare-objective");
  const scfw::CompareResult r = run(small_experiment(json::array({40, 120})), out);
  REQUIRE(r.failed == 0);
  for (long K : {40, 120}) {
    const std::string k = std::to_string(K);
    CAPTURE(K);
    const std::string script = slurp(out / "plot" / ("objective_K" + k + ".png.gp"));
    CHECK(script.find("set output \"" + (out / ("objective_K" + k + ".png")).string() + "\"") != std::string::npos);
    CHECK(script.find("set ylabel 'objective F(f(y), y)'") != std::string::npos);
    CHECK(script.find("title \"vanilla\"") != std::string::npos);
    CHECK(script.find("title \"Variant I\"") != std::string::npos);
    CHECK(fs::exists(out / "plot" / ("objective_K" + k + ".svg.gp")));
    // The data: per method and iteration, the mean, min and max of the runs' objectives.
    std::map<long, std::vector<double>> at;
    for (const auto& run : r.runs) {
      if (run.method != 0 || run.K != K) continue;
      std::ifstream in(out / run.trace);
      std::string line;
      std::getline(in, line);
      while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string it, obj;
        std::getline(fields, it, ',');
        std::getline(fields, obj, ',');
        at[std::stol(it)].push_back(std::stod(obj));
      }
    }
    REQUIRE(at.size() >= 8);
    std::istringstream dat(slurp(out / "plot" / ("objective_K" + k + ".dat")));
    std::string line;
    std::getline(dat, line);
    CHECK(line == "# vanilla");
    for (const auto& entry : at) {
      REQUIRE(std::getline(dat, line));
      std::istringstream fields(line);
      long it = 0;
      double mean = 0, lo = 0, hi = 0;
      fields >> it >> mean >> lo >> hi;
      CHECK(it == entry.first);
      CHECK(mean == (entry.second[0] + entry.second[1]) / 2);
      CHECK(lo == std::min(entry.second[0], entry.second[1]));
      CHECK(hi == std::max(entry.second[0], entry.second[1]));
    }
  }
}

TEST_CASE("compare: the rate plot labels every K, spans the budgets, keeps its key under the x label") {
  const fs::path out = scratch("compare-rate");
  REQUIRE(run(small_experiment(json::array({40, 80, 120})), out).failed == 0);
  const std::string script = slurp(out / "plot" / "rate.png.gp");
  CHECK(script.find("set xrange [40:120]\n") != std::string::npos);
  CHECK(script.find("set xtics (\"40\" 40, \"80\" 80, \"120\" 120)\n") != std::string::npos);
  // The key in the bottom margin, which holds the tic labels, the x label and the key's rows.
  CHECK(script.find("set bmargin 6.6\nset key at screen 0.5, screen 0.01 center bottom vertical maxrows 2 ") !=
        std::string::npos);
  CHECK(script.find("set key below") == std::string::npos);
}

TEST_CASE("compare: no rate plot for a single K, and none left from an earlier run in the folder") {
  const fs::path out = scratch("compare-one-K");
  REQUIRE(run(small_experiment(json::array({40, 120})), out).failed == 0);
  REQUIRE(fs::exists(out / "plot" / "rate.png.gp"));
  REQUIRE(fs::exists(out / "plot" / "rate.dat"));
  REQUIRE(run(small_experiment(40), out).failed == 0);
  for (const char* f : {"rate.dat", "rate.png.gp", "rate.svg.gp"}) {
    CAPTURE(f);
    CHECK(!fs::exists(out / "plot" / f));
  }
  CHECK(!fs::exists(out / "rate.png"));
  CHECK(fs::exists(out / "plot" / "gap_K40.png.gp"));
  CHECK(fs::exists(out / "plot" / "objective_K40.png.gp"));
}
