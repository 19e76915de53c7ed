// scfw compare: several methods on one problem, over seeds and iteration budgets. A library of
// its own beside the app (libscfw_compare), built on libscfw_core; the stages live in one file
// each: experiment.cpp (the file and its K expressions), run.cpp (the worker threads),
// summarize.cpp (statistics and slopes), write.cpp (CSV files and plot data), plot.cpp (gnuplot).
//
// An experiment file holds the problem blocks of a problem file at its top level (oracle, outer,
// domain, glmo), a list of methods (each a label, a tracker block and a schedule block), the seeds
// and the iteration budgets K:
//
//   {
//     "name": "Task 1 synthetic",
//     "note": "clipped: C = 20, tuned on K = 1000",
//     "oracle":  { "plugin": "least_squares_tasks", "synthetic": { "tasks": 10, "dim": 100 } },
//     "outer":   { "plugin": "max" },
//     "domain":  { "plugin": "l1_ball", "radius": 5 },
//     "glmo":    { "plugin": "clp" },
//     "methods": [
//       { "label": "vanilla", "tracker": { "plugin": "vanilla" },
//         "schedule": { "plugin": "constant", "gamma": "K^-0.75", "beta": 1, "rho": 1 } },
//       { "label": "Variant I", "tracker": { "plugin": "momentum", "value": "polyak" },
//         "schedule": { "plugin": "nonconvex" } }
//     ],
//     "seeds": 10,                       // seeds 1..10, or a list [3, 7, 11]
//     "iterations": [1000, 3000, 10000], // the budgets K (one integer is a list of one)
//     "report": { "points": 50 },        // exact gaps per run: every ceil(K / points) iterations
//     "out": "results/task1"             // default output folder (--out wins)
//   }
//
// Budget-dependent numbers. Any *number* parameter of a tracker or schedule block may be given as
// a string expression in K, evaluated for each budget before the block is composed: a product or
// quotient of factors, each a number or K with an optional power whose exponent is a signed number
// or a parenthesised fraction — "K^-0.75", "K^(-3/4)", "2*K^-0.5", "1/K", "0.3". String and
// choice parameters are never evaluated ("value": "polyak" stays a string).
//
// Every (method, seed, K) triple is one run. The problem (oracle, outer, domain) is composed once
// per worker thread and every run on that worker composes only its method (tracker, schedule,
// GLMO) on it with compose_method() (problem.hpp): the oracle's data is read or generated once per
// worker, not once per run. The oracle and outer function keep no state between calls; the
// domain may (a warm Lanczos vector, a warm Clp basis), so each run renews it from its block —
// cheap — and no run can see another's state. Each run is single-threaded and seeded by its own
// seed, so every number but the timings is independent of `jobs`, and bitwise identical to
// composing the whole problem afresh for each run (CompareOptions::fresh_problem).
//
// Bad experiment files raise InputError "<file>: <JSON pointer>: <what>", like problem files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scfw/core/problem.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/core/solver.hpp"

namespace scfw {

struct CompareMethod {
  std::string label;
  nlohmann::json tracker;   ///< the block as written ({"plugin": ..., ...})
  nlohmann::json schedule;  ///< the block as written; numbers may be expressions in K
};

struct Experiment {
  std::string source;              ///< the experiment file (for messages)
  std::filesystem::path base_dir;  ///< relative data paths resolve against it
  std::string name;
  std::string note;
  nlohmann::json problem;  ///< {"oracle", "outer", "domain", "glmo"} blocks as written
  std::vector<CompareMethod> methods;
  std::vector<std::uint64_t> seeds;
  std::vector<long> budgets;  ///< K values, increasing, distinct
  long report_points = 50;    ///< exact gaps per run: every ceil(K / points) iterations
  std::string out;            ///< default output folder ("" = "compare-<file stem>")
  /// The account each composed problem starts from, with its limit: the run's limit divided by
  /// the workers (memory_limit.hpp). None: memory_account(), the limit of SCFW_MEMORY_LIMIT or the default.
  std::optional<MemoryAccount> memory;
  /// Arrays passed by name in place of data files (Overrides::arrays), given to every run's
  /// problem; the data stays the caller's, alive and unchanged until run_compare returns. Null: none.
  std::shared_ptr<const HostArrays> arrays;
};

/// Parses and validates an experiment document: its own keys, then every method's tracker and
/// schedule block against the declared parameters (K expressions checked for every budget).
/// The problem blocks are validated by compose() when the first run is built (compare_check).
Experiment parse_experiment(const Registry& registry, const nlohmann::json& doc, const std::string& source,
                            const std::filesystem::path& base_dir);
/// read_json_file + parse_experiment, base_dir = the file's folder.
Experiment load_experiment(const Registry& registry, const std::filesystem::path& file);

/// Evaluates a K expression ("K^-0.75", "2*K^-0.5", "1/K", "0.3"). Throws std::invalid_argument
/// with a short reason when it does not parse.
double evaluate_k_expression(const std::string& expr, long K);

/// The problem document of one run: the problem blocks, the method's blocks with their K
/// expressions evaluated, "seed", "iterations": K and "report": {"every": ceil(K / points)}.
nlohmann::json run_document(const Registry& registry, const Experiment& e, size_t method, long K,
                            std::uint64_t seed);

/// Composes the problem once and every method on it once (first budget): validates the problem
/// blocks and the method blocks' factories. Messages point into the experiment file
/// ("/methods/2/schedule/...").
void compare_check(const Registry& registry, const Experiment& e);

/// For `compare --check`: InputError "<out>: cannot create the output folder (<why>)" when `out`
/// (and out/traces) could not be created or written: a file in the way, no permission, a
/// read-only file system. Leaves nothing behind (the probe folder it makes is removed).
void check_output_folder(const std::filesystem::path& out);

/// The problem of the experiment (its "oracle", "outer", "domain" blocks).
Problem compose_experiment_problem(const Registry& registry, const Experiment& e);
/// Method `method` at budget K on `problem` (its K expressions evaluated), with its blocks'
/// pointers in the experiment file.
Method compose_experiment_method(const Registry& registry, const Experiment& e, Problem& problem, size_t method,
                                 long K);
/// The whole problem document of one run (run_document) composed by compose(), everything
/// built afresh: what every run did before the problem was composed once per worker.
Composition compose_fresh(const Registry& registry, const Experiment& e, size_t method, long K, std::uint64_t seed);
/// The options of one run: K iterations, the seed, a gap report every ceil(K / points).
SolverOptions run_options(const Experiment& e, long K, std::uint64_t seed);

/// Least-squares slope of log(y) against log(x) (pairs with non-positive or non-finite values are
/// skipped). NaN when fewer than two distinct x remain.
double loglog_slope(const std::vector<double>& x, const std::vector<double>& y);
/// The same fit's intercept: log10(y) ~ intercept + slope * log10(x).
double loglog_intercept(const std::vector<double>& x, const std::vector<double>& y);

struct CompareRun {
  size_t method = 0;
  long K = 0;
  std::uint64_t seed = 0;
  std::string trace;  ///< the trace CSV written (relative to the output folder)
  bool ok = false;
  std::string error;
  double final_gap = 0, best_gap = 0, final_objective = 0, seconds = 0;
  long iterations = 0;
  PhaseTimes times;
  double compose_seconds = 0;  ///< composing for this run: its method, plus the problem when it was composed for it
};

/// One row of summary.csv: a method at one budget, over the seeds.
struct CompareRow {
  std::string label;
  long K = 0;
  size_t runs = 0;
  double final_gap_mean = 0, final_gap_std = 0, final_gap_min = 0, final_gap_max = 0;
  double best_gap_mean = 0, best_gap_std = 0;
  double objective_mean = 0;
  PhaseTimes per_iteration;  ///< seconds per iteration by phase, mean over seeds
  double final_slope = 0, best_slope = 0;  ///< the method's across-K slopes (same on each row)
};

struct CompareSlope {
  std::string label;
  double final_slope = 0, best_slope = 0;
  double final_intercept = 0, best_intercept = 0;
};

struct CompareOptions {
  unsigned jobs = 0;            ///< worker threads (0 = std::thread::hardware_concurrency())
  std::filesystem::path out;    ///< output folder
  bool plots = true;            ///< run gnuplot (when found on PATH)
  /// Called (from a worker, under a lock) after each finished run: done, total.
  std::function<void(size_t, size_t)> on_progress;
  /// Polled between runs and after every iteration; returning true stops the runs (status
  /// interrupted) and schedules no more.
  std::function<bool()> stop_requested;
  /// Compose the whole problem anew for every run, as `compare` did before it composed the
  /// problem once per worker: the same numbers, more time (for checks and measurements).
  bool fresh_problem = false;
  /// Also write each run's solution (y_K, f(y_K), the objective; the CSV of `scfw run
  /// --solution`) to solutions/<run>.csv beside traces/<run>.csv.
  bool solutions = false;
  /// Keep the runs that already finished in `out` under this experiment and this build: a run
  /// whose summaries/<run>.json records the same run document (run_document()) and the same
  /// libraries_hash, and ended at its iteration limit with a gap, is read back from its summary
  /// instead of run; the others run (and overwrite what was there). Every number but the
  /// timings is what a full run gives (the same build, the same input), so an interrupted
  /// experiment completes in pieces. The data files are trusted to be unchanged.
  bool resume = false;
};

struct CompareResult {
  std::vector<CompareRun> runs;  ///< ordered by (method, K, seed)
  std::vector<CompareRow> rows;  ///< ordered by (method, K)
  std::vector<CompareSlope> slopes;
  std::vector<std::filesystem::path> files;  ///< summary, plots (written files)
  std::string plot_warning;                  ///< why no plots were drawn ("" = drawn)
  size_t failed = 0;
  bool interrupted = false;
  size_t resumed = 0;            ///< runs read back from their summaries (CompareOptions::resume)
  size_t problems_composed = 0;  ///< times the problem (oracle, outer, domain) was composed
  double compose_seconds = 0;    ///< summed over the runs (see CompareRun::compose_seconds)
};

// The stages of run_compare, in order. `out` is the absolute output folder.

/// Runs every (method, seed, K) on `jobs` workers, each trace written to out/<run.trace>; fills
/// result.runs (ordered by (method, K, seed)), failed, interrupted and the compose figures.
void run_all(const Registry& registry, const Experiment& e, const std::filesystem::path& out,
             const CompareOptions& options, CompareResult& result);
/// Per (method, K): statistics over the seeds of the runs that succeeded; per method: the
/// across-K slopes. Fills result.rows and result.slopes.
void summarize(const Experiment& e, CompareResult& result);
/// summary.csv, slopes.csv, runs.csv and the plot data (plot/gap_K<K>.dat, plot/objective_K<K>.dat,
/// and plot/rate.dat for two budgets or more).
void write_tables(const Experiment& e, const std::filesystem::path& out, CompareResult& result);
/// The gnuplot scripts (plot/*.gp) and, when `options.plots` and gnuplot is on PATH, the SVG and
/// PNG files: gap_K<K> and objective_K<K> per budget, and rate (gap against K) for two budgets or
/// more (with a single budget, rate files left by an earlier run in `out` are removed);
/// result.plot_warning says why not.
void plot(const Experiment& e, const std::filesystem::path& out, const CompareOptions& options, CompareResult& result);

/// The file `program` would run as: the first executable <dir>/<program> for dir in $PATH
/// (`program` itself when it has a '/'). Empty when there is none.
std::filesystem::path find_program(const std::string& program);
/// Runs `argv` (argv[0] looked up on PATH) without a shell, its stdin from /dev/null and its
/// stdout and stderr to the given files; waits for it. Returns its exit status, 128 + signal
/// when a signal ended it, or -1 (with `*error` set) when it could not be started.
int run_program(const std::vector<std::string>& argv, const std::filesystem::path& stdout_file,
                const std::filesystem::path& stderr_file, std::string* error = nullptr);

/// run_all -> summarize -> write_tables -> plot: runs every (method, seed, K), writes <out>/traces/*.csv, <out>/summary.csv,
/// <out>/slopes.csv, and the plots (<out>/gap_K<K>.{svg,png}, <out>/objective_K<K>.{svg,png},
/// <out>/rate.{svg,png}) with their gnuplot scripts and data. A run that fails is recorded
/// (CompareRun::error) and the others go on; an InputError in any run (a bad block) is rethrown
/// after the workers stop.
CompareResult run_compare(const Registry& registry, const Experiment& e, const CompareOptions& options);

/// Sample mean and standard deviation (n - 1 in the denominator; 0 for one value).
void mean_std(const std::vector<double>& v, double& mean, double& stdev);

/// The printed table (method, K, final gap mean +- std, best gap mean, us/iteration, slopes).
std::string format_compare_table(const CompareResult& r);

}  // namespace scfw
