// scfw: the API for host applications — a program of your own that loads the plugins, composes a
// problem from a file or from a JSON value, runs the solver with callbacks and reads the result.
// It is a thin layer over the engine (registry.hpp, problem.hpp, solver.hpp, report.hpp,
// stopping.hpp), which this header includes, so everything below stays available. docs/api.md
// has a whole program and how to build it against an installed scfw (find_package(scfw), target
// scfw::core).
//
//   scfw::Host host;                                             // the installed plugins
//   scfw::Composition c = host.load_problem("problem.json");     // or host.compose(json)
//   scfw::Solver solver(c, c.options);
//   solver.add_callback(my_callback);                             // any scfw::Callback
//   scfw::Summary s = solver.run();
//   s.status, s.final_objective, s.final_gap, s.y                 // y_K
//
// Errors, all derived from scfw::Error (scfw/error.hpp): scfw::InputError for bad input — its
// what() is one line "<file>: <JSON pointer>: <what>" — and scfw::Error for a run that fails (a
// plugin failure names the iteration; the callbacks have seen a Failed summary first).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scfw/core/loop.hpp"
#include "scfw/core/options.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/core/report.hpp"
#include "scfw/core/solution.hpp"
#include "scfw/core/solver.hpp"
#include "scfw/core/stopping.hpp"
#include "scfw/error.hpp"

namespace scfw {

/// The plugins of one process, loaded once, and the problems composed with them. A Composition
/// refers to plugin objects made through this Host's registry: keep the Host alive as long as
/// any Composition made with it (libraries are never unloaded, but Problem::renew_domain uses the
/// registry). Movable, not copyable. Once built, it may compose on several threads at once, one
/// Composition per thread (`scfw compare` does so).
class Host {
 public:
  /// Loads every plugin library on the standard search path, in order: each of `plugin_dirs`,
  /// each directory of $SCFW_PLUGIN_PATH (':'-separated), then the plugins installed with scfw
  /// (<prefix>/lib/scfw/plugins beside the libscfw_core.so in use, so an install found by
  /// find_package(scfw) needs no environment variable). Missing directories are skipped. A
  /// library that is not a usable plugin is skipped and listed in failures(). Throws Error when
  /// no plugin at all was found (the message names the folders searched), and InputError when
  /// two libraries register the same name for the same role.
  explicit Host(const std::vector<std::filesystem::path>& plugin_dirs = {});

  Host(Host&&) noexcept;
  Host& operator=(Host&&) noexcept;
  ~Host();

  /// A problem file: every block checked against its plugin's declared parameters, then the
  /// problem, the method and the options (Composition::options, which `overrides` win over).
  /// Relative data paths resolve against the file's folder. Throws InputError.
  Composition load_problem(const std::filesystem::path& file, const Overrides& overrides = {}) const;

  /// The same from a JSON value built in code (the structure of a problem file). `source` names
  /// it in error messages ("<source>: /domain/radius: ..."); relative data paths resolve against
  /// `base_dir`. Throws InputError.
  Composition compose(const nlohmann::json& problem, const std::string& source = "problem",
                      const std::filesystem::path& base_dir = ".", const Overrides& overrides = {}) const;

  /// The folders searched, in order (those that exist).
  const std::vector<std::filesystem::path>& search_path() const { return search_path_; }
  /// Libraries skipped while loading, with the reason.
  const std::vector<LoadFailure>& failures() const { return registry_->failures(); }
  /// The registry itself: its components (name, role, declared parameters) and Registry::make.
  const Registry& registry() const { return *registry_; }

 private:
  std::unique_ptr<Registry> registry_;
  std::vector<std::filesystem::path> search_path_;
};

/// Runs a composed problem with its own options (c.options) and the given callbacks, in this
/// order, after which the options' stopping rules run. When c.options.trace names a file, the
/// trace is written there as `scfw run` writes it (kTraceHeader, one row per gap report).
/// Callbacks are not owned. Returns the summary; Summary::y is y_K. Throws as Solver::run does,
/// and InputError when the trace file cannot be opened.
Summary solve(Composition& c, const std::vector<Callback*>& callbacks = {});

/// The token of a parameter type in JSON: "number", "integer", "boolean", "string", "choice",
/// "number_list", "object".
const char* param_type_token(ParamType type);
/// A parameter value as JSON: null when absent or not finite, an object for a nested block.
nlohmann::json param_value_json(const ParamValue& value);
/// A registered plugin as `scfw plugins --json` prints it: name, kind, version, library,
/// library_name, summary and parameters (each with name, type, default, required, min, max,
/// min_open, max_open, choices, doc, and fields for an object).
nlohmann::json plugin_json(const RegisteredComponent& component);
/// The registry's components sorted by role (in the order of a problem file), then by name.
std::vector<const RegisteredComponent*> sorted_components(const Registry& registry);

}  // namespace scfw
