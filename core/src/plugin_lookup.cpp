#include "scfw/core/plugin_lookup.hpp"

#include <nlohmann/json.hpp>

#include "scfw/core/diagnostics.hpp"

namespace scfw {

using diagnostics::article;
using diagnostics::excerpt;
using diagnostics::expected;
using diagnostics::input_error;
using diagnostics::quoted_list;

const RegisteredComponent& find_plugin(const Registry& registry, Kind kind, const nlohmann::json& block,
                                       const std::string& source, const std::string& pointer) {
  const std::string k = to_string(kind);
  if (!block.is_object()) input_error(source, pointer, "expected an object {\"plugin\": NAME, ...}");
  const std::string plugin_ptr = pointer + "/plugin";
  auto p = block.find("plugin");
  if (p == block.end())
    input_error(source, plugin_ptr, "missing; expected the name of " + std::string(article(k)) + " " + k + " plugin");
  if (!p->is_string())
    expected(source, plugin_ptr, "the name of " + std::string(article(k)) + " " + k + " plugin", *p);
  const std::string full_name = p->get<std::string>();
  if (const RegisteredComponent* c = registry.find(kind, full_name)) return *c;
  const std::string name = excerpt(full_name);
  const auto others = registry.find_any_kind(full_name);
  if (!others.empty()) {
    const std::string other = to_string(others.front()->info.kind);
    input_error(source, plugin_ptr,
                "\"" + name + "\" is " + article(other) + " " + other + " plugin, not " + article(k) + " " + k +
                    " plugin");
  }
  // No suggestions for a name far longer than any plugin's: the edit distance costs its length
  // times each candidate's, and nothing is close to it anyway.
  const bool suggest = full_name.size() <= 256;
  const auto closest = suggest ? registry.closest(kind, full_name) : std::vector<std::string>{};
  std::string what = "unknown " + k + " plugin \"" + name + "\"";
  if (suggest && closest.empty())
    what += "; no " + k + " plugins are loaded (check --plugin-path or SCFW_PLUGIN_PATH)";
  else if (!closest.empty())
    what += "; closest: " + quoted_list(closest, false);
  input_error(source, plugin_ptr, what);
}

}  // namespace scfw
