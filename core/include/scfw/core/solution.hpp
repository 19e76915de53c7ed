// scfw core: what a run hands back besides its summary — the solution y_K with the names the
// problem knows, the inner values f(y_K), optionally the iterate of the best reported gap — and
// reading a solution file back as a warm start. The formats are documented in docs/outputs.md.
//
//   scfw::Solution sol = scfw::make_solution(composed.problem, summary, &best);
//   scfw::write_solution("out/solution.csv", sol);            // CSV, or JSON for *.json
//   scfw::Labelled start = scfw::read_solution_x("out/solution.csv");
//   solver.set_start(scfw::check_start(composed.problem, start, "out/solution.csv"));
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"

namespace scfw {

/// The "output" block and "start" key of a problem file, with the command line's overrides.
struct OutputOptions {
  std::string solution;      ///< solution file ("": none): JSON when it ends in .json, else CSV
  std::string summary_json;  ///< JSON summary file ("": none, "-": stdout)
  bool best_iterate = false; ///< also write the iterate of the best reported gap
  std::string start;         ///< warm start file ("": y_0 from the domain)
  double progress = 0;       ///< plain progress lines on stderr at most every this many seconds (0: off)
};

struct OutputOverrides {
  std::optional<std::string> solution, summary_json, start;
  std::optional<bool> best_iterate;
  std::optional<double> progress;
};

/// Reads "output": {"solution", "summary_json", "best_iterate", "progress"} (paths relative to the
/// current directory, like "report": {"trace"}) and "start" (relative to `base_dir`, the problem
/// file's folder, like data files), then the overrides (command-line paths are taken as given).
/// Bad values: InputError "<file>: <pointer>: <what>".
OutputOptions read_output_options(const nlohmann::json& doc, const std::string& source,
                                  const std::filesystem::path& base_dir, const OutputOverrides& overrides = {});

/// A vector with optional names (empty: no names; else one per value).
struct Labelled {
  std::vector<std::string> names;
  Vec values;
};

struct Solution {
  std::string problem;         ///< the problem's name
  std::string status;          ///< Summary::message
  long iterations = 0;         ///< k of y_k
  Labelled x;                  ///< y_K, named by Oracle::variable_names()
  std::vector<int> shape;      ///< Domain::shape(): [rows, cols] of a matrix domain (row-major), or empty
  bool has_f = false;          ///< false when the oracle has no exact evaluation
  Labelled f;                  ///< f(y_K), named by Oracle::output_names()
  bool has_objective = false;
  double objective = 0;        ///< F(f(y_K), y_K) when has_f
  bool has_best = false;       ///< the best-gap iterate was asked for and a gap was reported
  long best_iteration = 0;
  double best_gap = 0;
  Labelled best;               ///< the iterate where the smallest gap was reported
  Factors factors;             ///< y_K as factors, when the run kept them (factors.hpp)
};

/// Keeps a copy of the iterate at the smallest reported gap (also a final report made after the
/// run stopped early, which callbacks do not see: on_end takes y_K then).
class BestIterate final : public Callback {
 public:
  CallbackResult on_iteration(const IterationState& s) override;
  void on_end(const Summary& s) override;
  bool has() const { return has_; }
  long iteration() const { return iteration_; }
  double gap() const { return gap_; }
  const Vec& y() const { return y_; }

 private:
  bool has_ = false;
  long iteration_ = 0;
  double gap_ = 0;
  Vec y_;
};

/// The solution of a finished run: y_K and its names, f(y_K) with the oracle's exact evaluation
/// (when it has one), the domain's shape, and the best-gap iterate when `best` has one.
Solution make_solution(const Problem& problem, const Summary& summary, const BestIterate* best = nullptr);

/// Writes the solution as JSON when `path` ends in ".json", else as CSV (docs/outputs.md), numbers
/// with 17 significant digits so that reading it back gives the same doubles. Creates the parent
/// folders. Throws Error "<path>: cannot write the solution file (<reason>)" when any write fails.
void write_solution(const std::filesystem::path& path, const Solution& solution);

/// The CSV form of write_solution, to a stream (a host that sends it elsewhere first).
void write_solution_csv(std::ostream& out, const Solution& solution);

/// The x part of a solution file (CSV or JSON by extension). Malformed file: InputError
/// "<path>: <line or pointer>: <what>".
Labelled read_solution_x(const std::filesystem::path& path);

/// Checks a start against the problem: dimension, names (when both sides have them), finite
/// values, and membership of the domain (Domain::contains with tolerance 1e-8). A start outside
/// X is refused with an upper bound on its distance to X (Frank-Wolfe projection with the
/// domain's LMO). Every refusal is an InputError "<source>: <what>". Returns the values.
Vec check_start(const Problem& problem, const Labelled& start, const std::string& source);

/// An upper bound on the Euclidean distance from `point` to the domain: ||point - p|| for the
/// point p reached by `steps` Frank-Wolfe steps (exact line search) on 0.5 ||x - point||^2.
double distance_upper_bound(const Domain& domain, const Vec& point, int steps = 500);

}  // namespace scfw
