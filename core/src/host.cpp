#include "scfw/host.hpp"

#include <fstream>
#include <optional>

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
  std::unique_ptr<std::ofstream> trace_file;
  std::optional<TraceCsv> trace;
  if (!c.options.trace.empty()) {
    trace_file = open_trace_file(c.options.trace);
    trace.emplace(*trace_file);
    solver.add_callback(*trace);
  }
  return solver.run();
}

}  // namespace scfw
