// scfw core: a JSON block validated against a component's declared parameters (the message
// helpers it uses are diagnostics.hpp's, shared with the composer and `scfw compare`).
// Validation lives here and only here: the composer calls it once per block and hands the
// parameters to Registry::make, which calls it itself when given a JSON block, so every factory
// receives parameters with defaults filled in, ranges checked and unknown keys refused.
//
// Each error is an InputError whose message is one line "<file>: <JSON pointer>: <what>".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scfw/params.hpp"

namespace scfw {

/// Validates `value` against the declarations and returns the typed parameters (defaults filled
/// in). `pointer` is the JSON pointer of the block (e.g. "/domain"); the "plugin" key is skipped.
/// Unknown keys are refused as "unknown parameter of OWNER" with the closest declared name;
/// the four-argument form uses the last segment of `pointer` as the owner.
Params validate_params(const std::vector<ParamSpec>& specs, const nlohmann::json& value,
                       const std::string& source, const std::string& pointer);
Params validate_params(const std::vector<ParamSpec>& specs, const nlohmann::json& value,
                       const std::string& source, const std::string& pointer, const std::string& owner);
/// The same for a block that is not a plugin's (e.g. "/report"): a "plugin" key is unknown too.
Params validate_object(const std::vector<ParamSpec>& specs, const nlohmann::json& value,
                       const std::string& source, const std::string& pointer, const std::string& owner);

}  // namespace scfw
