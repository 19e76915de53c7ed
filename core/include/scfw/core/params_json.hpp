// scfw core: a JSON block validated against a component's declared parameters, and the small
// message helpers every reader of the problem file shares. Validation lives here and only here:
// the composer and Registry::make (the one way to run a factory) both call it, so every factory
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

/// Helpers for one-line messages about JSON input, shared by the validation above and the composer.
namespace json_input {
/// A JSON Pointer reference token (RFC 6901): "~" -> "~0", "/" -> "~1".
std::string pointer_token(const std::string& key);
/// pointer + "/" + the key's reference token.
std::string child(const std::string& pointer, const std::string& key);
/// The value as compact JSON, shortened when long (a whole data array is no help in one line).
std::string show(const nlohmann::json& v);
/// "\"a\", \"b\"": the names sorted, without duplicates.
std::string quoted_list(std::vector<std::string> names);
/// The declared name the user most likely meant by `name`, or "".
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);
/// "an" before a vowel, else "a".
const char* article(const std::string& word);
/// Throws InputError("<source>: <pointer>: <what>").
[[noreturn]] void input_error(const std::string& source, const std::string& pointer, const std::string& what);
/// Throws InputError("<source>: <pointer>: expected <what>, got <value>").
[[noreturn]] void expected(const std::string& source, const std::string& pointer, const std::string& what,
                           const nlohmann::json& got);
/// An integer value: a JSON integer, or a float with an integral value (3.0).
bool as_integer(const nlohmann::json& v, std::int64_t& out);
}  // namespace json_input

}  // namespace scfw
