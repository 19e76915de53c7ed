// scfw core: a problem file composed into plugin objects.
//
// The file has one block per role, {"plugin": NAME, ...parameters}, plus "name", "seed",
// "iterations" and "report". Every block is validated against the declared parameters of the
// plugin it names before the plugin's factory runs. Each error is an InputError whose message is
// one line "<file>: <JSON pointer>: <what>".
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scfw/core/checked.hpp"
#include "scfw/core/params_json.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/roles.hpp"

namespace scfw {

struct ReportOptions {
  long every = 0;       ///< exact gap every `every` iterations (0: only at the end)
  std::string trace;    ///< CSV path ("" = none), relative to the current directory
};

/// Overrides from the command line; they win over the file.
struct Overrides {
  std::optional<long> iterations;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> trace;
};

/// The composed run: the problem {Oracle, OuterFunction, Domain} and the method
/// {Tracker, Schedule, Glmo}. `gap_glmo` is a second instance of the same GLMO block, so that
/// gap reports never disturb the algorithm's warm starts.
struct Problem {
  std::string source;  ///< the problem file (for messages)
  std::string name;
  std::uint64_t seed = 1;
  long iterations = 1000;
  ReportOptions report;

  std::unique_ptr<Oracle> oracle;
  std::unique_ptr<OuterFunction> outer;
  std::unique_ptr<Domain> domain;
  std::unique_ptr<Glmo> glmo;
  std::unique_ptr<Glmo> gap_glmo;
  std::unique_ptr<Tracker> tracker;
  std::unique_ptr<Schedule> schedule;

  /// The plugin names used in each role, for the summary: "oracle" -> "least_squares_tasks".
  std::vector<std::pair<std::string, std::string>> plugins;

  /// Choices the host made for the user (e.g. a GLMO selected automatically), for the summary.
  std::vector<std::string> notes;

  /// Calls counted by the host wrappers around every plugin object.
  std::shared_ptr<CallCounters> counters;
};

/// Reads and parses a JSON file. Malformed JSON: InputError
/// "<file>: line L, column C: <parser message>". A missing file: InputError "<file>: cannot open file".
nlohmann::json read_json_file(const std::filesystem::path& file);

/// Composes a problem document. `source` names the file in messages; relative data paths in
/// parameters resolve against `base_dir`. The host wraps every plugin object so that dimensions
/// are checked at each call and calls are counted (see checked.hpp).
Problem compose(const Registry& registry, const nlohmann::json& doc, const std::string& source,
                const std::filesystem::path& base_dir, const Overrides& overrides = {});

/// read_json_file + compose, with base_dir = the file's folder.
Problem load_problem(const Registry& registry, const std::filesystem::path& file,
                     const Overrides& overrides = {});

}  // namespace scfw
