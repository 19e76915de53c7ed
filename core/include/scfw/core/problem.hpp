// scfw core: a problem file composed into plugin objects.
//
// What a file describes falls apart in three:
//   Problem        the problem {Oracle, OuterFunction, Domain}: blocks "oracle", "outer", "domain";
//   Method         how it is solved {Tracker, Schedule, Glmo, gap Glmo}: "tracker", "schedule", "glmo";
//   SolverOptions  the run's settings: "seed", "iterations", "report", "stop" (options.hpp).
// compose_problem(), compose_method() and read_options() compose each on its own, so that one
// problem (its data read once) can be run with many methods and seeds; compose() does all three
// for a whole problem file.
//
// Every block is validated against the declared parameters of the plugin it names before the
// plugin's factory runs. Each error is an InputError whose message is one line
// "<file>: <JSON pointer>: <what>".
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scfw/core/checked.hpp"
#include "scfw/core/options.hpp"
#include "scfw/core/params_json.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/host_arrays.hpp"
#include "scfw/memory.hpp"
#include "scfw/roles.hpp"

namespace scfw {

class Ranks;  // distributed.hpp

/// Overrides from the command line; they win over the file.
struct Overrides {
  std::optional<long> iterations;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> trace;
  std::optional<double> gap_tolerance;
  std::optional<double> time_limit;
  std::optional<long> report_every;  ///< "report": {"every"}: >= 0 (0: after the last iteration only)
  /// The account the run is charged to, with its limit (memory_limit.hpp: memory_account());
  /// none: SCFW_MEMORY_LIMIT or the default limit.
  std::optional<MemoryAccount> memory;
  /// The ranks over which an oracle with Capability::Sharded holds its rows (`mpirun scfw run`:
  /// ranks(), distributed.hpp); null: the oracle holds them all.
  const Ranks* shard = nullptr;
  /// Arrays passed by name in place of data files (host_arrays.hpp), read by the plugins whose
  /// blocks name them ("array": "R"). The table is shared with the composed problem; the data it
  /// points to stays the caller's and must outlive the Composition, unchanged. Null: none.
  std::shared_ptr<const HostArrays> arrays;
};

/// (role, plugin name) pairs, in the order of a problem file: "oracle" -> "least_squares_tasks".
using PluginNames = std::vector<std::pair<std::string, std::string>>;

/// The problem min_{x in X} F(f(x), x): the oracle of f, the outer function F and the domain X,
/// wrapped by the host (checked.hpp). The oracle and the outer function keep no state between
/// calls, so one Problem serves any number of runs, one at a time (the wrappers count calls and
/// are not thread-safe). The domain's LMO may keep a warm start (nuclear_ball's Lanczos vector,
/// polytope's Clp basis): renew_domain() builds a fresh one from the same block.
struct Problem {
  std::string source;  ///< the problem file (for messages)
  std::string name;
  std::filesystem::path base_dir;  ///< relative data paths in its blocks (and the method's) resolve against it

  std::unique_ptr<Oracle> oracle;
  std::unique_ptr<OuterFunction> outer;
  std::unique_ptr<Domain> domain;

  PluginNames plugins;             ///< oracle, outer, domain
  std::vector<std::string> notes;  ///< choices the host made about the problem, for the summary
  /// The data files its plugins read while it was composed (through open_data_file), each once,
  /// in the order first read: a checkpoint records their fingerprints (docs/checkpoint.md).
  std::vector<std::string> data_files;
  /// The arrays passed in place of data files (Overrides::arrays), or null: the factories were
  /// given them, a checkpoint records a fingerprint of each (docs/checkpoint.md).
  std::shared_ptr<const HostArrays> arrays;

  /// Calls counted by the host wrappers around every plugin object of the problem and of the
  /// methods composed on it.
  std::shared_ptr<CallCounters> counters;

  /// Builds the domain anew from its block (the Registry the problem was composed with must be
  /// alive). Any Method composed on the old domain must be gone first.
  void renew_domain();

  int dim() const { return oracle ? oracle->dim() : 0; }
  int outputs() const { return oracle ? oracle->outputs() : 0; }

  /// A new domain from the same block, its charges on `account` (null: on none). Set by
  /// compose_problem().
  std::function<std::unique_ptr<Domain>(MemoryAccount* account)> make_domain;

  /// What the problem's data and any run on it hold, charged before it was allocated
  /// (docs/memory.md): the oracle's data, the domain's workspaces, V and the iterates.
  MemoryAccount memory;
};

/// The method: the tracker of (z, V), the step schedule, and the GLMO with a second instance of
/// the same block for the gap reports (so that they never disturb the algorithm's warm starts).
/// Composed on a Problem (the GLMO is set up on its outer function and domain, the tracker bound
/// to its oracle): a Method must not outlive its Problem. Each run needs a fresh Method (trackers
/// and warm-started GLMOs keep state).
struct Method {
  std::unique_ptr<Tracker> tracker;
  std::unique_ptr<Schedule> schedule;
  std::unique_ptr<Glmo> glmo;
  std::unique_ptr<Glmo> gap_glmo;

  PluginNames plugins;             ///< glmo, tracker, schedule
  std::vector<std::string> notes;  ///< choices the host made (e.g. a GLMO selected automatically)

  /// The problem's charges, then the method's: the tracker's copies, the samples, the GLMOs.
  /// held() is the estimate of what a run of this method holds (docs/memory.md).
  MemoryAccount memory;
};

/// A whole problem file: the problem, a method on it, and the run's options.
struct Composition {
  Problem problem;  // declared first: destroyed after the method that refers to it
  Method method;
  SolverOptions options;

  /// The six roles' plugins, in the order of a problem file.
  PluginNames plugins() const;
  /// The problem's notes, then the method's.
  std::vector<std::string> notes() const;
};

/// A method block as found in a document: `value` is nullptr when the block is absent (the
/// role's default plugin, or for the GLMO the host's choice); `pointer` names it in messages.
struct MethodBlock {
  const nlohmann::json* value = nullptr;
  std::string pointer;
};

/// Reads and parses a JSON file. Malformed JSON: InputError
/// "<file>: line L, column C: <parser message>". A missing file: InputError "<file>: cannot open file".
nlohmann::json read_json_file(const std::filesystem::path& file);

/// `text` parsed as read_json_file parses a file's contents (`name` starts every message): a
/// syntax error located by line and column, a duplicate key, or objects and arrays nested
/// deeper than 256 levels, each an InputError line. Every JSON scfw reads goes through here.
nlohmann::json parse_json_text(std::string_view text, const std::string& name);

/// InputError "<name>: the file has N bytes; <what> limited to L bytes (M MiB)[: <advice>]" when
/// the file `name` is larger than `limit` bytes (`what` ends with "are" or "is"). A file that
/// cannot be sized is left to the reader's own "cannot open" message.
void check_file_size(const std::string& name, std::uintmax_t limit, const std::string& what,
                     const std::string& advice = "");

/// The problem of a document: its "oracle", "outer" and "domain" blocks (other keys are not
/// looked at) and "name" (default: the stem of `source`). Relative data paths resolve against
/// `base_dir`. Its memory is charged to a copy of `memory` (nullptr: memory_account(), the limit
/// of SCFW_MEMORY_LIMIT or the default); a charge over the limit is an InputError at the block.
/// `shard` and `arrays` as Overrides::shard and Overrides::arrays.
Problem compose_problem(const Registry& registry, const nlohmann::json& doc, const std::string& source,
                        const std::filesystem::path& base_dir, const MemoryAccount* memory = nullptr,
                        const Ranks* shard = nullptr, std::shared_ptr<const HostArrays> arrays = {});

/// A method on `problem` from its tracker, schedule and glmo blocks (each validated before any
/// factory runs). Messages name `problem.source` and each block's pointer.
Method compose_method(const Registry& registry, Problem& problem, const MethodBlock& tracker,
                      const MethodBlock& schedule, const MethodBlock& glmo);

/// The run's options from a document's "seed", "iterations", "report" and "stop", then the
/// overrides. Bad values: InputError at their pointer (the file's) or naming the option (--...).
SolverOptions read_options(const nlohmann::json& doc, const std::string& source, const Overrides& overrides = {});

/// A whole problem file: unknown top-level keys rejected, every block validated before any
/// factory runs, then the problem, the method and the options. The host wraps every plugin
/// object so that dimensions are checked at each call and calls are counted (see checked.hpp).
Composition compose(const Registry& registry, const nlohmann::json& doc, const std::string& source,
                    const std::filesystem::path& base_dir, const Overrides& overrides = {});

/// read_json_file + compose, with base_dir = the file's folder.
Composition load_problem(const Registry& registry, const std::filesystem::path& file,
                         const Overrides& overrides = {});

}  // namespace scfw
