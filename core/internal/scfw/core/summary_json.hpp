// scfw core: the machine-readable run summary (`scfw run --summary-json FILE`, and summary.json
// next to each trace of `scfw compare`). Its fields are documented in docs/outputs.md.
//
//   scfw::RunRecord rec = scfw::describe_run(registry, composed, options, SCFW_VERSION);
//   scfw::write_json_file("out/summary.json", scfw::to_json(summary, rec));
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scfw/core/problem.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/core/solver.hpp"

namespace scfw {

/// What a Summary does not know about the run it summarizes.
struct RunRecord {
  struct Plugin {
    std::string role, name, library, version;  ///< library and version empty for host-made ("product")
  };
  std::string scfw_version;
  std::string problem, source;
  std::uint64_t seed = 0;
  long iterations_requested = 0;
  long report_every = 0;
  double gap_tolerance = 0, time_limit = 0;
  int dim = 0, outputs = 0;
  std::vector<Plugin> plugins;
  /// The estimate of what the run holds (Method::memory, docs/memory.md) and the limit it was
  /// checked against (UINT64_MAX: none).
  std::uint64_t memory_bytes = 0, memory_limit_bytes = UINT64_MAX;
};

/// The record of a composed problem and method run with `options`; the plugins' libraries and
/// versions are looked up in `registry`.
RunRecord describe_run(const Registry& registry, const Problem& problem, const Method& method,
                       const SolverOptions& options, const std::string& scfw_version);

/// "iteration_limit", "gap_tolerance", "time_limit", "stopped", "interrupted", "failed".
const char* status_token(Status s);

/// The summary as one JSON object (non-finite numbers as null).
nlohmann::json to_json(const Summary& summary, const RunRecord& record);

/// Writes `value` (indented, newline-terminated) to `path` ("-": stdout), creating the parent
/// folders. Throws Error "<path>: cannot write the summary file (<reason>)" when a write fails.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& value);

}  // namespace scfw
