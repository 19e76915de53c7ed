#include "scfw/host.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <type_traits>
#include <variant>

namespace fs = std::filesystem;

namespace scfw {

Host::Host(const std::vector<fs::path>& plugin_dirs)
    : registry_(std::make_unique<Registry>()), search_path_(Registry::search_path(plugin_dirs)) {
  registry_->load_path(search_path_);
  if (registry_->components().empty()) {
    std::string searched;
    for (const auto& d : search_path_) searched += (searched.empty() ? "" : ", ") + d.string();
    std::string msg = "no scfw plugins found (searched: " + (searched.empty() ? "no existing folder" : searched) + ")";
    if (!registry_->failures().empty())
      msg += "; skipped " + registry_->failures().front().path + ": " + registry_->failures().front().reason;
    throw Error(msg);
  }
}

Host::Host(Host&&) noexcept = default;
Host& Host::operator=(Host&&) noexcept = default;
Host::~Host() = default;

Composition Host::load_problem(const fs::path& file, const Overrides& overrides) const {
  return scfw::load_problem(*registry_, file, overrides);
}

Composition Host::compose(const nlohmann::json& problem, const std::string& source, const fs::path& base_dir,
                          const Overrides& overrides) const {
  return scfw::compose(*registry_, problem, source, base_dir, overrides);
}

Summary solve(Composition& c, const std::vector<Callback*>& callbacks) {
  Solver solver(c, c.options);
  for (Callback* cb : callbacks) solver.add_callback(*cb);
  std::unique_ptr<OutputFile> trace_file;
  std::optional<TraceCsv> trace;
  if (!c.options.trace.empty()) {
    trace_file = open_trace_file(c.options.trace);
    trace.emplace(*trace_file, c.options.trace);
    solver.add_callback(*trace);
  }
  Summary summary = solver.run();
  if (trace_file) {
    trace_file->close();  // the complete trace replaces the file only now (output_file.hpp)
    if (trace->failed()) throw Error(trace->error());
    if (trace_file->fail()) throw Error(c.options.trace + ": cannot write the trace file" + trace_file->reason());
  }
  return summary;
}

const char* param_type_token(ParamType type) {
  switch (type) {
    case ParamType::Number: return "number";
    case ParamType::Integer: return "integer";
    case ParamType::Boolean: return "boolean";
    case ParamType::String: return "string";
    case ParamType::Choice: return "choice";
    case ParamType::NumberList: return "number_list";
    case ParamType::Object: return "object";
  }
  return "?";
}

namespace {

nlohmann::json params_json(const Params& p) {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [name, v] : p.values()) o[name] = param_value_json(v);
  return o;
}

nlohmann::json spec_json(const ParamSpec& s) {
  nlohmann::json o;
  o["name"] = s.name;
  o["type"] = param_type_token(s.type);
  o["default"] = param_value_json(s.default_value);
  o["required"] = s.required;
  o["min"] = std::isfinite(s.min) ? nlohmann::json(s.min) : nlohmann::json(nullptr);
  o["max"] = std::isfinite(s.max) ? nlohmann::json(s.max) : nlohmann::json(nullptr);
  o["min_open"] = s.min_open;
  o["max_open"] = s.max_open;
  o["choices"] = s.choices;
  o["doc"] = s.doc;
  if (s.type == ParamType::Object) {
    nlohmann::json fields = nlohmann::json::array();
    for (const auto& f : s.fields) fields.push_back(spec_json(f));
    o["fields"] = std::move(fields);
  }
  return o;
}

}  // namespace

nlohmann::json param_value_json(const ParamValue& value) {
  return std::visit(
      [](const auto& x) -> nlohmann::json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, double>) {
          return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
        } else if constexpr (std::is_same_v<T, std::shared_ptr<const Params>>) {
          return x ? params_json(*x) : nlohmann::json(nullptr);
        } else {
          return nlohmann::json(x);
        }
      },
      value);
}

nlohmann::json plugin_json(const RegisteredComponent& c) {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& s : c.info.params) params.push_back(spec_json(s));
  return {{"name", c.info.name},
          {"kind", to_string(c.info.kind)},
          {"version", c.library_version},
          {"library", c.library_path},
          {"library_name", c.library_name},
          {"summary", c.info.summary},
          {"parameters", std::move(params)}};
}

std::vector<const RegisteredComponent*> sorted_components(const Registry& registry) {
  std::vector<const RegisteredComponent*> out;
  for (const auto& c : registry.components()) out.push_back(&c);
  std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) {
    if (a->info.kind != b->info.kind) return static_cast<int>(a->info.kind) < static_cast<int>(b->info.kind);
    return a->info.name < b->info.name;
  });
  return out;
}

}  // namespace scfw
