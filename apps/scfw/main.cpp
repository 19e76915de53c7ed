// scfw — the host app. Git-style subcommands around libscfw_core: argument parsing and
// printing only; loading, composing and solving live in the core library.
//
//   scfw run FILE        solve and print a summary
//   scfw validate FILE   compose only
//   scfw plugins         list the plugins found
//   scfw describe NAME   a plugin's parameters
//   scfw compare FILE    methods x seeds x budgets on one problem: traces, summary, plots
//   scfw plot TRACE...   objective and gap against the iteration, drawn by gnuplot (plot_command.cpp)
//
// Exit codes: 0 ok, 1 the run failed (or an output could not be written, or a check of
// `validate --check` failed), 2 bad input or bad usage, 128 + the signal when interrupted: 130 SIGINT (Ctrl-C), 143 SIGTERM, 129 SIGHUP.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/program_options.hpp>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "plot_command.hpp"
#include "run_checkpoint.hpp"
#include "scfw/format_bound.hpp"
#include "scfw/compare/compare.hpp"
#include "scfw/core/diagnostics.hpp"
#include "scfw/core/distributed.hpp"
#include "scfw/core/format.hpp"
#include "scfw/core/memory_limit.hpp"
#include "scfw/core/plugin_check.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/core/report.hpp"
#include "scfw/core/solution.hpp"
#include "scfw/core/solver.hpp"
#include "scfw/core/stopping.hpp"
#include "scfw/core/summary_json.hpp"
#include "scfw/data_file.hpp"
#include "scfw/error.hpp"
#include "scfw/host.hpp"

#ifndef SCFW_VERSION
#define SCFW_VERSION "0"
#endif

namespace po = boost::program_options;
namespace fs = std::filesystem;
using json = nlohmann::json;
using scfw::format_number;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;
// Interrupted by a signal: 128 + its number, the shell's convention (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
constexpr int kExitSignalBase = 128;

constexpr const char* kTopUsage =
    "usage: scfw <command> [<args>]\n"
    "       scfw <command> --help\n"
    "       scfw --version\n"
    "\n"
    "Solves min_{x in X} F(f(x), x) with the Hybrid Momentum Stochastic Frank-Wolfe method.\n"
    "\n"
    "commands:\n"
    "  run FILE        solve the problem described by a JSON file and print a summary\n"
    "  validate FILE   compose the problem (load plugins, check every parameter) without solving\n"
    "  plugins         list the plugins found on the search path\n"
    "  describe NAME   show a plugin's summary and parameters (types, defaults, ranges)\n"
    "  compare FILE    run several methods over seeds and budgets K; summary table and plots\n"
    "  plot TRACE...   draw the objective and the gap against the iteration of runs (PNG, SVG)\n"
    "\n"
    "Plugins are searched in: each --plugin-path DIR, each directory of $SCFW_PLUGIN_PATH\n"
    "(':'-separated), then <scfw>/../lib/scfw/plugins.\n"
    "Exit codes: 0 ok, 1 the run failed, an output could not be written or a check of\n"
    "validate --check failed, 2 bad input or bad usage, 130/143/129 interrupted by\n"
    "SIGINT/SIGTERM/SIGHUP (docs/outputs.md).\n";

/// Bad command-line usage: the command's usage goes to stderr, exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One line, whatever a plugin put in its message.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}

// ---------------------------------------------------------------------------------------------
// Command-line parsing shared by the subcommands

struct Command {
  const char* name;
  const char* synopsis;     // "FILE [options]"
  const char* description;  // what it does, a few lines
};

const Command kRun{"run", "FILE [options]",
                   "Loads the plugins, composes the problem in FILE and solves it with the Hybrid Momentum\n"
                   "Stochastic Frank-Wolfe method; prints the summary to stdout. A progress line is drawn\n"
                   "on stderr when it is a terminal (--progress: plain lines instead, e.g. in logs). Ctrl-C,\n"
                   "SIGTERM or SIGHUP stop the run after the current iteration (status interrupted, exit 130,\n"
                   "143 or 129); the trace gets the final point, the solution and summary files are written.\n"
                   "Outputs (--solution, --summary-json, --start): docs/outputs.md.\n"};
const Command kValidate{"validate", "FILE [options]",
                        "Composes the problem in FILE (loads the plugins, checks every block against the\n"
                        "plugin's declared parameters, builds the plugin objects) without solving it.\n"
                        "--check also runs the conformance checks on the composed plugins (docs/plugins.md,\n"
                        "\"Checking a composed problem\"): a line per check with its worst discrepancy; exit 1\n"
                        "and the first failure, naming the plugin and the check, when one fails.\n"};
const Command kPlugins{"plugins", "[options]",
                       "Lists the plugins found on the search path: kind, name, version, library file,\n"
                       "summary. --json prints them with their declared parameters.\n"};
const Command kDescribe{"describe", "NAME [options]",
                        "Shows the plugin(s) called NAME: kind, library, version, summary and each\n"
                        "parameter's type, default, range and documentation.\n"};

const Command kCompare{"compare", "EXPERIMENT.json [options]",
                       "Runs every (method, seed, K) of the experiment file on its problem, on --jobs worker\n"
                       "threads (each run single-threaded and seeded, so results do not depend on --jobs), and\n"
                       "writes to the output folder: traces/*.csv, summary.csv (per method and K: final gap\n"
                       "mean/std/min/max over seeds, best gap, seconds per iteration by phase, across-K slope),\n"
                       "slopes.csv, runs.csv, gap_K<K>.{svg,png} and objective_K<K>.{svg,png} (the gap and the\n"
                       "objective against the iteration, mean and min-max band) and, for two budgets or more,\n"
                       "rate.{svg,png} (gap against K with fitted slopes and K^-1/4, K^-1/3 lines; gnuplot).\n"
                       "Schedule and tracker numbers may be expressions in K: \"gamma\": \"K^-0.75\".\n"
                       "An interrupted experiment continues with --resume: each run's summary records its\n"
                       "problem document and a hash of the libraries, and the runs whose summaries match\n"
                       "are read back instead of run again.\n"
                       "See docs/results.md for the file format.\n"};

const Command kPlot{"plot", scfw_app::kPlotSynopsis, scfw_app::kPlotDescription};

std::string usage_line(const Command& c) {
  return std::string("usage: scfw ") + c.name + " " + c.synopsis + "\n";
}

void print_help(const Command& c, const po::options_description& visible) {
  std::cout << usage_line(c) << "\n" << c.description << "\n" << visible;
}

po::options_description plugin_path_option() {
  po::options_description o;
  o.add_options()("plugin-path", po::value<std::vector<std::string>>()->composing(),
                  "DIR: also load the plugin libraries in DIR (searched first; repeatable)");
  return o;
}

po::options_description memory_limit_option() {
  po::options_description o;
  o.add_options()("memory-limit", po::value<std::string>()->value_name("SIZE"),
                  "refuse, before allocating, a run that would hold more than SIZE (512MiB, 8GiB, 1e9; default: "
                  "SCFW_MEMORY_LIMIT, else 80% of the machine's memory; docs/memory.md)");
  return o;
}

/// --memory-limit when given (InputError on a bad size: exit 2).
std::optional<std::uint64_t> memory_limit(const po::variables_map& vm) {
  if (!vm.count("memory-limit")) return std::nullopt;
  return scfw::parse_size(vm["memory-limit"].as<std::string>(), "--memory-limit");
}

/// Parses `args` against `visible` plus one optional positional `positional_name`.
po::variables_map parse(const std::vector<std::string>& args, const po::options_description& visible,
                        const char* positional_name) {
  po::options_description all;
  all.add(visible);
  po::positional_options_description pos;
  if (positional_name) {
    all.add_options()(positional_name, po::value<std::string>(), "");
    pos.add(positional_name, 1);
  }
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    // Boost's message quotes the argument as given: control characters shown as '?', cut.
    throw UsageError(scfw::excerpt(e.what(), 200));
  }
  return vm;
}

std::vector<std::string> plugin_paths(const po::variables_map& vm) {
  if (!vm.count("plugin-path")) return {};
  return vm["plugin-path"].as<std::vector<std::string>>();
}

// ---------------------------------------------------------------------------------------------
// Plugins

/// Loads every library on the search path and reports each failure once on stderr.
void load_plugins(scfw::Registry& registry, const std::vector<std::string>& extra) {
  std::vector<fs::path> dirs;
  for (const auto& d : extra) {
    std::error_code ec;
    if (!fs::is_directory(d, ec))
      std::cerr << "scfw: warning: plugin path " << d << " is not a directory\n";
    dirs.emplace_back(d);
  }
  auto report_failures = [&] {
    for (const auto& f : registry.failures())
      std::cerr << "scfw: warning: skipped " << f.path << ": " << one_line(f.reason) << '\n';
    for (const auto& w : registry.warnings()) std::cerr << "scfw: warning: " << one_line(w.message) << '\n';
  };
  try {
    registry.load_path(scfw::Registry::search_path(dirs));
  } catch (...) {
    report_failures();
    throw;
  }
  report_failures();
}

int kind_order(scfw::Kind k) { return static_cast<int>(k); }

using scfw::sorted_components;

const char* kind_title(scfw::Kind k) {
  switch (k) {
    case scfw::Kind::Oracle: return "oracle";
    case scfw::Kind::Outer: return "outer function";
    case scfw::Kind::Domain: return "domain";
    case scfw::Kind::Glmo: return "GLMO";
    case scfw::Kind::Tracker: return "tracker";
    case scfw::Kind::Schedule: return "schedule";
  }
  return "?";
}

const char* type_token(scfw::ParamType t) { return scfw::param_type_token(t); }

json value_to_json(const scfw::ParamValue& v) { return scfw::param_value_json(v); }

std::string format_default(const scfw::ParamSpec& s) {
  if (s.required) return "(required)";
  if (std::holds_alternative<std::monostate>(s.default_value)) return "-";
  if (auto d = std::get_if<double>(&s.default_value)) return format_number(*d);
  return value_to_json(s.default_value).dump();
}

std::string format_range(const scfw::ParamSpec& s) {
  if (s.type == scfw::ParamType::Choice) {
    std::string out;
    for (size_t i = 0; i < s.choices.size(); ++i) out += (i ? " | " : "") + s.choices[i];
    return out;
  }
  const bool numeric = s.type == scfw::ParamType::Number || s.type == scfw::ParamType::Integer ||
                       s.type == scfw::ParamType::NumberList;
  if (!numeric || (std::isinf(s.min) && std::isinf(s.max))) return "-";
  return std::string(s.min_open || std::isinf(s.min) ? "(" : "[") + scfw::format_bound(s.min) + ", " +
         scfw::format_bound(s.max) + (s.max_open || std::isinf(s.max) ? ")" : "]");
}

/// A plain text table: columns padded to their widest cell, the last one left ragged.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<size_t> width;
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  for (const auto& r : rows) {
    std::string line = indent;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line.append(width[i] - r[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
}

void add_param_rows(std::vector<std::vector<std::string>>& rows, const std::vector<scfw::ParamSpec>& specs,
                    const std::string& prefix) {
  for (const auto& s : specs) {
    std::string type = s.type == scfw::ParamType::NumberList ? "number list" : type_token(s.type);
    rows.push_back({prefix + s.name, type, format_default(s), format_range(s), s.doc});
    if (s.type == scfw::ParamType::Object) add_param_rows(rows, s.fields, prefix + s.name + ".");
  }
}

// ---------------------------------------------------------------------------------------------
// SIGINT, SIGTERM, SIGHUP: a flag (the signal's number) that a solver callback reads to stop the run.
// An atomic that needs no lock, so that the handler may write it and `scfw compare`'s worker
// threads read it without a data race.

std::atomic<int> g_interrupted{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler writes g_interrupted");

extern "C" void on_stop_signal(int signo) { g_interrupted.store(signo, std::memory_order_relaxed); }

/// Installs the handler for the lifetime of the object. SA_RESETHAND: a second signal kills the
/// process the usual way, for a run stuck inside one long plugin call.
class SigintGuard {
 public:
  SigintGuard() {
    struct sigaction sa{};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (int i = 0; i < kSignals; ++i) installed_[i] = sigaction(kSignal[i], &sa, &previous_[i]) == 0;
  }
  ~SigintGuard() {
    for (int i = 0; i < kSignals; ++i)
      if (installed_[i]) sigaction(kSignal[i], &previous_[i], nullptr);
  }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

 private:
  static constexpr int kSignals = 3;
  static constexpr int kSignal[kSignals] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[kSignals]{};
  bool installed_[kSignals] = {};
};

/// The exit code of a run stopped by signal `signo`.
int interrupted_exit(int signo) { return kExitSignalBase + signo; }

const char* signal_name(int signo) {
  switch (signo) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
  }
  return "a signal";
}

// ---------------------------------------------------------------------------------------------
// Subcommands

std::string required_positional(const po::variables_map& vm, const char* name, const char* what) {
  if (!vm.count(name)) throw UsageError(std::string("missing ") + what);
  return vm[name].as<std::string>();
}

/// A command-line number >= 0 (a finite one), else a usage error naming the option.
double nonnegative_number(const po::variables_map& vm, const char* option) {
  const std::string& s = vm[option].as<std::string>();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || !end || *end != '\0' || !std::isfinite(v) || v < 0)
    throw UsageError(std::string("--") + option + ": expected a number >= 0, got '" + scfw::excerpt(s) + "'");
  return v;
}

/// A command-line integer >= `least`, else a usage error naming the option.
long integer_at_least(const po::variables_map& vm, const char* option, long least) {
  const std::string& s = vm[option].as<std::string>();
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < least)
    throw UsageError(std::string("--") + option + ": expected an integer >= " + std::to_string(least) + ", got '" +
                     scfw::excerpt(s) + "'");
  return v;
}

/// A file name given to an option. One holding a control character is refused, as the problem
/// file's keys for files are: every message about a file starts with its name, on one line.
std::string file_option(const po::variables_map& vm, const char* option) {
  const std::string& s = vm[option].as<std::string>();
  if (scfw::has_control_character(s))
    throw UsageError(std::string("--") + option + ": the file name holds a control character (shown as ?): '" +
                     scfw::excerpt(s) + "'");
  return s;
}

int cmd_run(const std::vector<std::string>& args) {
  po::options_description visible("options");
  visible.add_options()("help,h", "print this help")(
      "iterations", po::value<std::string>()->value_name("K"),
      "number of iterations K (overrides \"iterations\" in FILE)")(
      "seed", po::value<std::string>()->value_name("S"), "random seed (overrides \"seed\" in FILE)")(
      "trace", po::value<std::string>()->value_name("OUT.csv"),
      "write a CSV row per gap report to OUT.csv (overrides \"report\": {\"trace\"})")(
      "gap-tolerance", po::value<std::string>()->value_name("EPS"),
      "stop at the first reported gap <= EPS (overrides \"stop\": {\"gap_tolerance\"})")(
      "time-limit", po::value<std::string>()->value_name("SECONDS"),
      "stop after SECONDS of solving (overrides \"stop\": {\"time_limit\"})")(
      "report-every", po::value<std::string>()->value_name("N"),
      "report the exact gap every N iterations, 0: after the last only (overrides \"report\": {\"every\"})")(
      "solution", po::value<std::string>()->value_name("FILE"),
      "write y_K with its names and f(y_K) to FILE: JSON for *.json, else CSV (overrides \"output\": {\"solution\"})")(
      "best-iterate", "also write the iterate of the best reported gap into the solution file")(
      "summary-json", po::value<std::string>()->value_name("FILE"),
      "write the summary as JSON to FILE, '-' for stdout (overrides \"output\": {\"summary_json\"})")(
      "start", po::value<std::string>()->value_name("FILE"),
      "warm start: y_0 from the x of a solution file (overrides \"start\")")(
      "progress", po::value<std::string>()->value_name("SECONDS"),
      "plain progress lines on stderr at most every SECONDS (for logs; overrides \"output\": {\"progress\"})")(
      "quiet,q", "no progress line; print the one-line summary instead of the full one");
  visible.add(plugin_path_option());
  visible.add(memory_limit_option());
  visible.add(scfw_app::checkpoint_options());
  const po::variables_map vm = parse(args, visible, "file");
  if (vm.count("help")) {
    print_help(kRun, visible);
    return kExitOk;
  }
  const std::string file = required_positional(vm, "file", "FILE (the problem's JSON file)");

  scfw::Overrides overrides;
  if (vm.count("iterations")) overrides.iterations = integer_at_least(vm, "iterations", 1);
  if (vm.count("seed")) {
    const std::string& s = vm["seed"].as<std::string>();
    std::uint64_t seed = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), seed);
    if (ec != std::errc() || p != s.data() + s.size())
      throw UsageError("--seed: expected an integer in [0, 2^64), got '" + scfw::excerpt(s) + "'");
    overrides.seed = seed;
  }
  if (vm.count("trace")) overrides.trace = file_option(vm, "trace");
  if (vm.count("report-every")) overrides.report_every = integer_at_least(vm, "report-every", 0);
  if (vm.count("gap-tolerance")) overrides.gap_tolerance = nonnegative_number(vm, "gap-tolerance");
  if (vm.count("time-limit")) overrides.time_limit = nonnegative_number(vm, "time-limit");
  overrides.memory = scfw::memory_account(memory_limit(vm));
  const bool quiet = vm.count("quiet") > 0;
  scfw::OutputOverrides output_overrides;
  if (vm.count("solution")) output_overrides.solution = file_option(vm, "solution");
  if (vm.count("summary-json")) output_overrides.summary_json = file_option(vm, "summary-json");
  if (vm.count("start")) output_overrides.start = file_option(vm, "start");
  for (const char* option : {"checkpoint", "resume"})
    if (vm.count(option)) file_option(vm, option);
  if (vm.count("best-iterate")) output_overrides.best_iterate = true;
  if (vm.count("progress")) {
    output_overrides.progress = nonnegative_number(vm, "progress");
    if (*output_overrides.progress <= 0) throw UsageError("--progress: expected a number of seconds > 0, got '" +
                                                          scfw::excerpt(vm["progress"].as<std::string>()) + "'");
  }

  // Under mpirun (docs/scaling.md): the oracle's rows are shared out over the ranks, every rank
  // runs the same iterations, and rank 0 alone prints and writes files.
  const scfw::Ranks& mpi = scfw::ranks();
  if (mpi.size() > 1) {
    if (vm.count("checkpoint") || vm.count("resume"))
      throw UsageError("--checkpoint, --resume: not available over several MPI ranks");
    overrides.shard = &mpi;  // compare never shards: its ranks each hold whole problems
  }
  const bool quiet_rank = !mpi.root();
  if (quiet_rank) output_overrides.progress.reset();

  scfw::Registry registry;
  load_plugins(registry, plugin_paths(vm));
  const json doc = scfw::read_json_file(file);
  const fs::path base_dir = fs::path(file).parent_path();
  scfw::OutputOptions outputs = scfw::read_output_options(doc, file, base_dir, output_overrides);
  scfw::Composition composed = scfw::compose(registry, doc, file, base_dir, overrides);
  if (mpi.size() > 1 && composed.options.time_limit > 0)
    throw UsageError("--time-limit, \"stop\": {\"time_limit\"}: not available over several MPI ranks (each rank's "
                     "clock would stop at another iteration)");
  if (quiet_rank) {
    composed.options.trace.clear();
    outputs.summary_json.clear();
    outputs.progress = 0;
  }
  const scfw::SolverOptions& options = composed.options;
  // Before anything is written: no output may replace a special file, an input or another output
  // (output_file.hpp). A run resumed from CK may write its checkpoints to CK again.
  {
    auto given = [&](const char* option) { return vm.count(option) ? vm[option].as<std::string>() : std::string(); };
    const std::vector<scfw::RunPath> written{{"trace", options.trace},
                                             {"solution", outputs.solution},
                                             {"summary", outputs.summary_json}};
    std::vector<scfw::RunPath> all_written = written;
    all_written.push_back({"checkpoint", given("checkpoint")});
    scfw::check_outputs(all_written, {{"the problem file", file}, {"the start point", outputs.start}});
    scfw::check_outputs(written, {{"the checkpoint being resumed", given("resume")}});
  }
  scfw::Solver solver(composed, options);
  scfw::CheckpointRequest checkpoint_request;
  try {
    checkpoint_request = scfw_app::checkpoint_request(vm);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  auto checkpoint = std::make_unique<scfw::RunCheckpoint>(registry, doc, composed, SCFW_VERSION, checkpoint_request);
  // A resumed run continues from its checkpoint's y; a start point is for a new run only.
  if (checkpoint->resumed() && vm.count("start"))
    throw UsageError("--start and --resume: a resumed run continues from its checkpoint; give one of them");
  if (!outputs.start.empty() && !checkpoint->resumed())
    solver.set_start(scfw::check_start(composed.problem, scfw::read_solution_x(outputs.start), outputs.start));

  // The trace: header when the run begins, one row per gap report, renamed into place at the end.
  std::unique_ptr<scfw::OutputFile> trace_file;
  std::unique_ptr<scfw::TraceCsv> trace;
  if (!options.trace.empty() && checkpoint->resumed()) {
    solver.add_callback(checkpoint->continue_trace(options.trace));
  } else if (!options.trace.empty()) {
    trace_file = scfw::open_trace_file(options.trace);
    trace = std::make_unique<scfw::TraceCsv>(*trace_file, options.trace);
    solver.add_callback(*trace);
  }
  scfw::BestIterate best;
  if (outputs.best_iterate) solver.add_callback(best);
  std::unique_ptr<scfw::ProgressLog> progress_log;
  if (outputs.progress > 0) {
    progress_log = std::make_unique<scfw::ProgressLog>(std::cerr, outputs.progress, options.time_limit);
    solver.add_callback(*progress_log);
  }
  std::unique_ptr<scfw::ProgressLine> progress;
  if (!quiet && !quiet_rank && !progress_log && isatty(STDERR_FILENO)) {
    progress = std::make_unique<scfw::ProgressLine>(std::cerr, 0.1, options.time_limit);
    solver.add_callback(*progress);
  }
  // After the trace and the progress line, so that they have seen the iteration it stops after.
  g_interrupted.store(0);
  // Over several ranks a signal reaches them at different moments (mpirun passes SIGTERM on to
  // each, and a scheduler may signal one rank): each iteration the ranks take the largest signal
  // number any of them has seen, one small reduction, so that every rank stops after the same
  // iteration and the collectives of the outputs (f(y_K) in the solution) meet.
  scfw::StopRequest interrupt([&mpi] {
    const int seen = g_interrupted.load(std::memory_order_relaxed);
    if (mpi.size() == 1) return seen != 0;
    const int agreed = mpi.max(seen);
    if (agreed != 0 && seen == 0) g_interrupted.store(agreed, std::memory_order_relaxed);
    return agreed != 0;
  });
  solver.add_callback(interrupt);
  checkpoint->attach(solver);

  scfw::Summary summary;
  {
    SigintGuard guard;
    try {
      summary = solver.run();
    } catch (...) {
      if (progress) progress->finish();  // the error message starts on a fresh line
      throw;
    }
  }
  if (progress) progress->finish();
  const bool json_to_stdout = outputs.summary_json == "-";  // stdout is the JSON then
  if (json_to_stdout || quiet_rank) {
    // the JSON summary, written below, is all that goes to stdout
  } else if (quiet) {
    std::cout << summary.brief() << '\n';
    for (const auto& note : summary.notes)  // the full summary prints them among its notes
      if (note.starts_with("warning: ")) std::cerr << "scfw: " << note << '\n';
  } else {
    // What ran, then how it went.
    const scfw::Problem& problem = composed.problem;
    std::cout << "problem         " << problem.name << " (seed " << options.seed << ")\n";
    std::cout << "plugins        ";
    for (const auto& [role, plugin] : composed.plugins()) std::cout << ' ' << role << ' ' << plugin << ';';
    std::cout << " d = " << problem.dim() << ", n = " << problem.outputs() << "\n";
    const std::string full = summary.full();
    std::cout << full << (full.ends_with('\n') ? "" : "\n") << checkpoint->summary();
  }
  std::cout.flush();
  // The outputs: a write that fails ends the run with exit 1 and the file's name.
  if (trace) {
    trace_file->close();
    if (trace->failed()) throw scfw::Error(trace->error());
    if (trace_file->fail()) throw scfw::Error(options.trace + ": cannot write the trace file" + trace_file->reason());
  }
  checkpoint->finish_trace();
  // The files this run wrote, named at the end of the summary and in the JSON summary.
  std::vector<std::pair<std::string, std::string>> files;
  if (trace) files.emplace_back("trace", options.trace);
  if (summary.status != scfw::Status::Failed) {
    if (!outputs.solution.empty()) {
      // Every rank: f(y_K) in the solution sums over the ranks' rows (a collective).
      const auto solution = scfw::make_solution(composed.problem, summary, outputs.best_iterate ? &best : nullptr);
      if (!quiet_rank) scfw::write_solution(outputs.solution, solution);
      files.emplace_back("solution", outputs.solution);
    }
    if (!outputs.summary_json.empty()) {
      json doc = scfw::to_json(
          summary, scfw::describe_run(registry, composed.problem, composed.method, options, SCFW_VERSION));
      doc["files"] = json::object();
      for (const auto& [kind, path] : files) doc["files"][kind] = path;
      scfw::write_json_file(outputs.summary_json, doc);
      if (!json_to_stdout) files.emplace_back("summary_json", outputs.summary_json);
    }
  }
  if (!json_to_stdout && !quiet && !quiet_rank && !files.empty()) {
    std::cout << "files          ";
    for (const auto& [kind, path] : files) std::cout << ' ' << kind << ' ' << path << ';';
    std::cout << '\n';
  }
  if (summary.status == scfw::Status::Failed) return kExitFailure;
  if (const int signo = g_interrupted.load(); summary.status == scfw::Status::Interrupted && signo) {
    if (!quiet_rank) std::cerr << "scfw: interrupted by " << signal_name(signo) << '\n';
    return interrupted_exit(signo);
  }
  return kExitOk;
}

int cmd_validate(const std::vector<std::string>& args) {
  po::options_description visible("options");
  visible.add_options()("help,h", "print this help")(
      "check", "also check the plugins as composed: Jacobian by finite differences, the outer model against "
               "its value, the domain's LMO, saved state (docs/plugins.md)");
  visible.add(plugin_path_option());
  visible.add(memory_limit_option());
  const po::variables_map vm = parse(args, visible, "file");
  if (vm.count("help")) {
    print_help(kValidate, visible);
    return kExitOk;
  }
  const std::string file = required_positional(vm, "file", "FILE (the problem's JSON file)");
  scfw::Overrides overrides;
  overrides.memory = scfw::memory_account(memory_limit(vm));
  scfw::Registry registry;
  load_plugins(registry, plugin_paths(vm));
  const scfw::Composition composed = scfw::load_problem(registry, file, overrides);
  const scfw::Problem& problem = composed.problem;

  std::string parts;
  for (const auto& [role, name] : composed.plugins()) {
    if (!parts.empty()) parts += ", ";
    parts += role + " " + name;
    if (role == "oracle" && problem.oracle)
      parts += " d=" + std::to_string(problem.dim()) + " n=" + std::to_string(problem.outputs());
  }
  std::cout << file << ": ok (" << parts << ")\n";
  const scfw::MemoryAccount& memory = composed.method.memory;
  std::cout << "memory: about " << scfw::format_bytes(memory.held()) << " held by the run (limit "
            << (memory.limit() == scfw::MemoryAccount::kNoLimit ? std::string("none") : scfw::format_bytes(memory.limit()))
            << ")\n";
  if (!vm.count("check")) return kExitOk;

  // The plugins as composed (plugin_check.hpp): a line per check; the first failure on stderr.
  std::cout.flush();
  const json doc = scfw::read_json_file(file);
  const auto checks = scfw::check_plugins(registry, doc, file, fs::path(file).parent_path(), overrides);
  const scfw::PluginCheck* first_failure = nullptr;
  size_t skipped = 0;
  for (const auto& c : checks) {
    std::cout << "check: " << scfw::format_check(c) << '\n';
    if (c.verdict == scfw::PluginCheck::Verdict::Fail && !first_failure) first_failure = &c;
    if (c.verdict == scfw::PluginCheck::Verdict::Skipped) ++skipped;
  }
  std::cout.flush();
  if (first_failure) {
    const std::string detail = first_failure->detail.substr(0, first_failure->detail.find('\n'));
    std::cerr << "error: " << file << ": check failed: " << first_failure->role << " " << first_failure->plugin << ": "
              << first_failure->name << (detail.empty() ? "" : ": " + one_line(detail)) << '\n';
    return kExitFailure;
  }
  std::cout << file << ": " << checks.size() - skipped << " checks passed"
            << (skipped ? ", " + std::to_string(skipped) + " skipped" : std::string()) << '\n';
  return kExitOk;
}

int cmd_plugins(const std::vector<std::string>& args) {
  po::options_description visible("options");
  visible.add_options()("help,h", "print this help")(
      "json", "print a JSON array: name, kind, version, library, summary, parameters");
  visible.add(plugin_path_option());
  const po::variables_map vm = parse(args, visible, nullptr);
  if (vm.count("help")) {
    print_help(kPlugins, visible);
    return kExitOk;
  }
  scfw::Registry registry;
  load_plugins(registry, plugin_paths(vm));
  const auto components = sorted_components(registry);

  if (vm.count("json")) {
    json out = json::array();
    for (const auto* c : components) out.push_back(scfw::plugin_json(*c));
    std::cout << out.dump(2) << '\n';
    return kExitOk;
  }
  if (components.empty()) {
    std::cerr << "scfw: no plugins found; give a folder with --plugin-path or $SCFW_PLUGIN_PATH\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows{{"KIND", "NAME", "VERSION", "LIBRARY", "SUMMARY"}};
  for (const auto* c : components)
    rows.push_back({scfw::to_string(c->info.kind), c->info.name, c->library_version,
                    c->library_path, c->info.summary});
  print_table(std::cout, rows, "");
  return kExitOk;
}

int cmd_describe(const std::vector<std::string>& args) {
  po::options_description visible("options");
  visible.add_options()("help,h", "print this help");
  visible.add(plugin_path_option());
  const po::variables_map vm = parse(args, visible, "name");
  if (vm.count("help")) {
    print_help(kDescribe, visible);
    return kExitOk;
  }
  const std::string name = required_positional(vm, "name", "NAME (a plugin name; 'scfw plugins' lists them)");
  scfw::Registry registry;
  load_plugins(registry, plugin_paths(vm));

  auto found = registry.find_any_kind(name);
  if (found.empty() && name == "product") {
    // Composed by the host from factor blocks (core/src/composer.cpp), not a plugin.
    std::cout << "product (domain, JSON block \"domain\")\n";
    print_table(std::cout,
                {{"summary", "X = X_1 x ... x X_p, the factor domains side by side in the order given"},
                 {"library", "host (composed by scfw itself; no plugin file)"}},
                "  ");
    std::cout << "  parameters:\n";
    print_table(std::cout,
                {{"NAME", "TYPE", "DEFAULT", "RANGE", "DOC"},
                 {"factors", "array", "-", "length >= 1",
                  "the factor domains, each a domain block {\"plugin\": NAME, ...} with its own \"dim\""}},
                "    ");
    return kExitOk;
  }
  if (found.empty()) {
    std::vector<std::string> names;
    for (const auto& c : registry.components()) names.push_back(c.info.name);
    const auto close = scfw::closest_names(name, names, 3);
    std::string msg = "unknown plugin \"" + scfw::excerpt(name) + "\"";
    if (names.empty()) {
      msg += ": no plugins were found (give a folder with --plugin-path or $SCFW_PLUGIN_PATH)";
    } else {
      if (!close.empty()) {
        msg += "; did you mean ";
        for (size_t i = 0; i < close.size(); ++i)
          msg += (i == 0 ? "" : (i + 1 == close.size() ? " or " : ", ")) + ("\"" + close[i] + "\"");
        msg += "?";
      }
      msg += " ('scfw plugins' lists them all)";
    }
    throw scfw::InputError(msg);
  }
  std::stable_sort(found.begin(), found.end(),
                   [](auto* a, auto* b) { return kind_order(a->info.kind) < kind_order(b->info.kind); });
  bool first = true;
  for (const auto* c : found) {
    if (!first) std::cout << '\n';
    first = false;
    std::cout << c->info.name << " (" << kind_title(c->info.kind) << ", JSON block \""
              << scfw::to_string(c->info.kind) << "\")\n";
    print_table(std::cout,
                {{"summary", c->info.summary},
                 {"library", c->library_name + " " + c->library_version},
                 {"file", c->library_path}},
                "  ");
    if (c->info.params.empty()) {
      std::cout << "  parameters: none\n";
      continue;
    }
    std::cout << "  parameters:\n";
    std::vector<std::vector<std::string>> rows{{"NAME", "TYPE", "DEFAULT", "RANGE", "DOC"}};
    add_param_rows(rows, c->info.params, "");
    print_table(std::cout, rows, "    ");
  }
  return kExitOk;
}

int cmd_compare(const std::vector<std::string>& args) {
  po::options_description visible("options");
  visible.add_options()("help,h", "print this help")(
      "out", po::value<std::string>()->value_name("DIR"), "output folder (overrides \"out\" in the file)")(
      "jobs,j", po::value<std::string>()->value_name("N"),
      "worker threads, 1 to 4096 (default: the number of hardware threads)")(
      "no-plots", "write the plot data and scripts but do not run gnuplot")(
      "solutions", "also keep each run's solution (y_K, f(y_K), the objective) in solutions/<run>.csv")(
      "check", "validate the experiment (compose every method once) without running it")(
      "resume",
      "keep the runs already finished in the output folder under this experiment and these plugin and scfw "
      "libraries (their summaries say so); run the rest")(
      "fresh-problem",
      "compose the whole problem anew for every run instead of once per worker (same numbers, slower; for checks)")(
      "quiet,q", "no progress line, no table");
  visible.add(plugin_path_option());
  visible.add(memory_limit_option());
  const po::variables_map vm = parse(args, visible, "file");
  if (vm.count("help")) {
    print_help(kCompare, visible);
    return kExitOk;
  }
  const std::string file = required_positional(vm, "file", "EXPERIMENT.json (the experiment file)");
  const std::string out_option = vm.count("out") ? file_option(vm, "out") : std::string();
  unsigned jobs = 0;
  constexpr unsigned kMaxJobs = 4096;  // worker threads of one process
  if (vm.count("jobs")) {
    const std::string& s = vm["jobs"].as<std::string>();
    unsigned j = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), j);
    if (ec != std::errc() || p != s.data() + s.size() || j < 1 || j > kMaxJobs)
      throw UsageError("--jobs: expected an integer in [1, " + std::to_string(kMaxJobs) + "], got '" +
                       scfw::excerpt(s) + "'");
    jobs = j;
  }
  // Under mpirun each rank runs its share of the runs on its own threads (docs/scaling.md); the
  // default shares the node's hardware threads among the ranks on it, and rank 0 alone prints.
  const scfw::Ranks& mpi = scfw::ranks();
  unsigned per_node = 1;
  if (const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"); local && mpi.size() > 1)
    per_node = std::max(1, std::atoi(local));
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency() / per_node);
  const bool quiet = vm.count("quiet") > 0 || !mpi.root();

  scfw::Registry registry;
  load_plugins(registry, plugin_paths(vm));
  scfw::Experiment experiment = scfw::load_experiment(registry, file);
  {
    // Each worker composes its own problem: the limit is shared by the workers that will run.
    const size_t runs = experiment.methods.size() * experiment.seeds.size() * experiment.budgets.size();
    const auto workers = static_cast<unsigned>(std::clamp<size_t>(runs, 1, jobs));
    experiment.memory = scfw::memory_account(memory_limit(vm), workers);
  }
  scfw::compare_check(registry, experiment);
  const fs::path out = vm.count("out") ? fs::path(out_option)
                                       : fs::path(experiment.out.empty() ? "compare-" + fs::path(file).stem().string()
                                                                         : experiment.out);
  if (vm.count("check")) {
    scfw::check_output_folder(out);
    std::cout << file << ": ok (" << experiment.methods.size() << " methods x " << experiment.seeds.size()
              << " seeds x " << experiment.budgets.size() << " budgets = "
              << experiment.methods.size() * experiment.seeds.size() * experiment.budgets.size() << " runs)\n";
    return kExitOk;
  }

  scfw::CompareOptions options;
  options.jobs = jobs;
  options.plots = vm.count("no-plots") == 0;
  options.fresh_problem = vm.count("fresh-problem") > 0;
  options.solutions = vm.count("solutions") > 0;
  options.resume = vm.count("resume") > 0;
  options.out = out;
  const bool tty = !quiet && isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  if (tty) {
    options.on_progress = [start](size_t done, size_t total) {
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double left = done ? el * static_cast<double>(total - done) / static_cast<double>(done) : 0;
      std::fprintf(stderr, "\rcompare: %zu/%zu runs finished (%.0f%%), %.0fs elapsed, ~%.0fs left   ", done, total,
                   100.0 * static_cast<double>(done) / static_cast<double>(total), el, left);
      std::fflush(stderr);
    };
  } else if (!quiet) {
    // Off a terminal (a batch job, a CI log): one plain line per finished run.
    options.on_progress = [start](size_t done, size_t total) {
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double left = done ? el * static_cast<double>(total - done) / static_cast<double>(done) : 0;
      std::fprintf(stderr, "compare: %zu/%zu runs done, %.1fs elapsed, ETA %.0fs\n", done, total, el, left);
      std::fflush(stderr);
    };
  }
  g_interrupted.store(0);
  options.stop_requested = [] { return g_interrupted.load(std::memory_order_relaxed) != 0; };
  if (!quiet)
    std::cerr << "compare: " << experiment.name << ": " << experiment.methods.size() << " methods x "
              << experiment.seeds.size() << " seeds x " << experiment.budgets.size() << " budgets on " << jobs
              << " worker" << (jobs == 1 ? "" : "s")
              << (mpi.size() > 1 ? " per rank x " + std::to_string(mpi.size()) + " MPI ranks (progress: rank 0's share)" : "")
              << " -> " << options.out.string() << '\n';
  scfw::CompareResult result;
  {
    SigintGuard guard;
    try {
      result = scfw::run_compare(registry, experiment, options);
    } catch (...) {
      if (tty) std::fputc('\n', stderr);
      throw;
    }
  }
  if (tty) std::fputc('\n', stderr);
  if (!mpi.root()) return kExitOk;  // rank 0 reports (and exits 1 when a run failed)
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!quiet && options.resume)
    std::fprintf(stderr, "compare: resumed %zu of %zu runs from their summaries in %s\n", result.resumed,
                 result.runs.size(), options.out.string().c_str());
  if (!quiet)
    std::fprintf(stderr, "compare: %zu runs in %.1f s; composing: %.2f s (the problem %zu time%s)\n",
                 result.runs.size() - result.resumed, wall, result.compose_seconds, result.problems_composed,
                 result.problems_composed == 1 ? "" : "s");
  if (!quiet) std::cout << scfw::format_compare_table(result);
  for (const auto& r : result.runs)
    if (!r.ok && !r.error.empty())
      std::cerr << "scfw: run " << experiment.methods[r.method].label << " K=" << r.K << " seed=" << r.seed
                << " failed: " << one_line(r.error) << '\n';
  if (!result.plot_warning.empty() && options.plots) std::cerr << "scfw: warning: " << result.plot_warning << '\n';
  if (!quiet)
    std::cout << "wrote " << (options.out / "summary.csv").string() << " and the plots in " << options.out.string()
              << (options.solutions ? "; each run's solution in " + (options.out / "solutions").string() : std::string())
              << '\n';
  std::cout.flush();
  if (const int signo = g_interrupted.load(); result.interrupted && signo) return interrupted_exit(signo);
  if (result.failed > 0) return kExitFailure;
  return kExitOk;
}

int cmd_plot(const std::vector<std::string>& args) {
  try {
    return scfw_app::plot_command(args, [](const po::options_description& visible) { print_help(kPlot, visible); });
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

const Command* find_command(const std::string& name) {
  for (const Command* c : {&kRun, &kValidate, &kPlugins, &kDescribe, &kCompare, &kPlot})
    if (name == c->name) return c;
  return nullptr;
}

int dispatch(const Command& c, const std::vector<std::string>& args) {
  const std::string name = c.name;
  if (name == "run") return cmd_run(args);
  if (name == "validate") return cmd_validate(args);
  if (name == "plugins") return cmd_plugins(args);
  if (name == "compare") return cmd_compare(args);
  if (name == "plot") return cmd_plot(args);
  return cmd_describe(args);
}

}  // namespace

int main(int argc, char** argv) {
  const scfw::MpiSession mpi_session(argc, argv);  // MPI under mpirun only (docs/scaling.md)
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kTopUsage;
    return kExitBadInput;
  }
  const std::string command = args[0];
  if (command == "--help" || command == "-h") {
    std::cout << kTopUsage;
    return kExitOk;
  }
  if (command == "--version") {
    std::cout << "scfw " << SCFW_VERSION << " (plugin ABI " << scfw::kAbiVersion << ")\n";
    return kExitOk;
  }
  if (command == "help") {  // `scfw help run` == `scfw run --help`
    if (args.size() >= 2) {
      if (const Command* c = find_command(args[1])) return dispatch(*c, {"--help"});
    }
    std::cout << kTopUsage;
    return kExitOk;
  }
  const Command* cmd = find_command(command);
  if (!cmd) {
    std::string msg = "scfw: unknown command '" + scfw::excerpt(command) + "'";
    const auto close = scfw::closest_names(command, {"run", "validate", "plugins", "describe", "compare", "plot"}, 1);
    if (!close.empty() && scfw::edit_distance(command, close[0]) <= 3) msg += "; did you mean '" + close[0] + "'?";
    std::cerr << msg << "\n\n" << kTopUsage;
    return kExitBadInput;
  }
  args.erase(args.begin());
  // Over several MPI ranks an error is printed by rank 0 only (the ranks fail alike: they read
  // the same files, and a rank's bad share of the data fails all of them through Ranks::agree),
  // and every rank leaves at once without MPI_Finalize, so that mpirun never waits for a rank
  // that will not come: the job ends with the one line and the exit code.
  // An error that only this rank saw (a trace it cannot write, a plugin's failure outside the
  // sharded oracle) is printed by that rank, named, and ends the job through MPI_Abort: the other
  // ranks may be waiting for it in a collective.
  const bool ranks = scfw::ranks().size() > 1, loud = scfw::ranks().root();
  const std::string rank_name =
      ranks ? "rank " + std::to_string(scfw::ranks().rank()) + " of " + std::to_string(scfw::ranks().size()) + ": " : "";
  bool alone = false;  // this rank's own error (set by the handlers below)
  auto failed = [&](int code) {
    if (ranks && alone) scfw::MpiSession::abort_job(code);
    if (ranks) scfw::MpiSession::exit_now(code);
    return code;
  };
  try {
    return dispatch(*cmd, args);
  } catch (const UsageError& e) {
    if (loud)
      std::cerr << "scfw " << cmd->name << ": " << one_line(e.what()) << '\n'
                << usage_line(*cmd) << "Run 'scfw " << cmd->name << " --help' for the options.\n";
    return failed(kExitBadInput);
  } catch (const scfw::InputError& e) {
    if (loud) std::cerr << "error: " << one_line(e.what()) << '\n';
    return failed(kExitBadInput);
  } catch (const scfw::Error& e) {
    alone = ranks && !scfw::error_agreed();
    if (loud || alone) std::cerr << "error: " << (alone ? rank_name : "") << one_line(e.what()) << '\n';
    return failed(kExitFailure);
  } catch (const std::exception& e) {
    alone = ranks && !scfw::error_agreed();
    if (loud || alone) std::cerr << "error: " << (alone ? rank_name : "") << one_line(e.what()) << '\n';
    return failed(kExitFailure);
  }
}
