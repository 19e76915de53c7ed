#include "scfw/core/summary_json.hpp"

#include <cmath>
#include <iostream>

#include "scfw/core/output_file.hpp"
#include "scfw/core/solution.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace scfw {

namespace {

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

bool kind_of_role(const std::string& role, Kind& kind) {
  static const std::pair<const char*, Kind> roles[] = {
      {"oracle", Kind::Oracle}, {"outer", Kind::Outer},     {"domain", Kind::Domain},
      {"glmo", Kind::Glmo},     {"tracker", Kind::Tracker}, {"schedule", Kind::Schedule}};
  for (const auto& [name, k] : roles)
    if (role == name) {
      kind = k;
      return true;
    }
  return false;
}

}  // namespace

RunRecord describe_run(const Registry& registry, const Problem& problem, const Method& method,
                       const SolverOptions& options, const std::string& scfw_version) {
  RunRecord r;
  r.scfw_version = scfw_version;
  r.problem = problem.name;
  r.source = problem.source;
  r.seed = options.seed;
  r.iterations_requested = options.iterations;
  r.report_every = options.report_every;
  r.gap_tolerance = options.gap_tolerance;
  r.time_limit = options.time_limit;
  r.dim = problem.dim();
  r.outputs = problem.outputs();
  r.memory_bytes = method.memory.held();
  r.memory_limit_bytes = method.memory.limit();
  PluginNames names = problem.plugins;
  names.insert(names.end(), method.plugins.begin(), method.plugins.end());
  for (const auto& [role, name] : names) {
    RunRecord::Plugin p{role, name, "", ""};
    Kind kind{};
    if (kind_of_role(role, kind))
      if (const RegisteredComponent* c = registry.find(kind, name)) {
        p.library = c->library_name;
        p.version = c->library_version;
      }
    r.plugins.push_back(std::move(p));
  }
  return r;
}

const char* status_token(Status s) {
  switch (s) {
    case Status::IterationLimit: return "iteration_limit";
    case Status::GapTolerance: return "gap_tolerance";
    case Status::TimeLimit: return "time_limit";
    case Status::Stopped: return "stopped";
    case Status::Interrupted: return "interrupted";
    case Status::Failed: return "failed";
  }
  return "?";
}

json to_json(const Summary& s, const RunRecord& r) {
  json o;
  o["scfw_version"] = r.scfw_version;
  o["problem"] = r.problem;
  o["source"] = r.source;
  o["status"] = status_token(s.status);
  o["success"] = succeeded(s.status);
  o["message"] = s.message;
  o["reason"] = s.reason;
  o["seed"] = r.seed;
  o["dim"] = r.dim;
  o["outputs"] = r.outputs;
  o["iterations"] = s.iterations;
  o["iterations_requested"] = r.iterations_requested;
  o["stop"] = {{"gap_tolerance", r.gap_tolerance}, {"time_limit", r.time_limit}};
  o["report_every"] = r.report_every;
  o["has_gap"] = s.has_gap;
  o["objective"] = s.has_gap ? number(s.final_objective) : json(nullptr);
  o["final_gap"] = s.has_gap ? number(s.final_gap) : json(nullptr);
  o["best_gap"] = s.has_gap ? number(s.best_gap) : json(nullptr);
  o["gap_slack"] = s.has_gap ? number(s.gap_slack) : json(nullptr);
  o["seconds"] = s.seconds;
  o["times"] = {{"oracle", s.times.oracle}, {"tracker", s.times.tracker}, {"glmo", s.times.glmo},
                {"update", s.times.update},  {"gap", s.times.gap}};
  o["calls"] = {{"draws", s.calls.draws},
                {"values", s.calls.values},
                {"jacobians", s.calls.jacobians},
                {"exact", s.calls.exact},
                {"hessian", s.calls.hessian},
                {"glmo_solves", s.calls.glmo_solves},
                {"outer_values", s.calls.outer_values}};
  o["glmo"] = {{"solver", s.glmo_solver},
               {"iterations", s.glmo_iterations},
               {"max_iterations", s.glmo_max_iterations}};
  o["notes"] = s.notes;
  json plugins = json::array();
  for (const auto& p : r.plugins)
    plugins.push_back({{"role", p.role}, {"name", p.name}, {"library", p.library}, {"version", p.version}});
  o["plugins"] = std::move(plugins);
  o["memory"] = {{"estimate_bytes", r.memory_bytes}, {"estimate", format_bytes(r.memory_bytes)},
                 {"limit_bytes", r.memory_limit_bytes == UINT64_MAX ? json(nullptr) : json(r.memory_limit_bytes)}};
  return o;
}

void write_json_file(const fs::path& path, const json& value) {
  // Text from the system (a library path, a message quoting a file name) may not be UTF-8:
  // replaced (U+FFFD), never an exception after the run.
  const std::string text = value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) throw Error("stdout: cannot write the summary");
    return;
  }
  write_output_file(path, "summary file", [&](std::ostream& out) { out << text; });
}

}  // namespace scfw
