// scfw core: the plugin a block names, found in the registry with the composer's messages
// (shared with `scfw compare`'s experiment files).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "scfw/core/registry.hpp"

namespace scfw {

/// The registered plugin a block {"plugin": NAME, ...} of role `kind` names. InputError at
/// `pointer` (or `pointer`/plugin) when the block is not an object, has no name, or names a plugin
/// of another role or none (with the closest names).
const RegisteredComponent& find_plugin(const Registry& registry, Kind kind, const nlohmann::json& block,
                                       const std::string& source, const std::string& pointer);

}  // namespace scfw
