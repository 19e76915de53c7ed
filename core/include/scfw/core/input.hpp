// scfw core: helpers for reading JSON input and reporting bad input, shared by the composer
// (problem.cpp) and `scfw compare`'s experiment files, so both print the same messages.
//
// Every bad-input error is one line "<file>: <JSON pointer>: <what>" (InputError).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scfw/core/registry.hpp"

namespace scfw::input {

/// A JSON Pointer reference token (RFC 6901): "~" -> "~0", "/" -> "~1".
std::string pointer_token(const std::string& key);
/// `pointer` + "/" + the escaped key.
std::string child(const std::string& pointer, const std::string& key);

/// The value as compact JSON, shortened to 60 characters (a whole data array is no help in one line).
std::string show(const nlohmann::json& v);

/// A piece of the input quoted in a message: whole up to 40 bytes, else its first 40 bytes and
/// "... (N bytes)" (a 10 MB token is not echoed whole into a one-line message). The same rule as
/// scfw::excerpt of the SDK's data_file.hpp, which plugins' loaders use.
std::string excerpt(std::string_view text);

/// A file or folder name the file gives for scfw to write or read (an output file, a trace, a
/// start, compare's output folder): InputError "<source>: <pointer>: the file name holds a control
/// character (shown as ?): \"<excerpt>\"" when it holds one, as data files' names are refused
/// (scfw::check_data_path): every message about the file would start with it.
void check_file_name(const std::string& source, const std::string& pointer, const std::string& name);

/// "a character device", "a FIFO", "a socket", "a block device", "a symbolic link", "a directory",
/// "a regular file", or "an unknown kind of file", for "is not a regular file (...)".
std::string file_type_name(const std::filesystem::file_status& st);

/// "\"a\", \"b\", \"c\"": sorted and without duplicates unless `sorted` is false.
std::string quoted_list(std::vector<std::string> names, bool sorted = true);

/// The candidate the user most likely meant by `name`, or "" when none is close: edit distance
/// <= 2 (and less than the typed name's length, so "x" does not suggest "r"), case ignored; else
/// one name a prefix of or contained in the other ("iter" -> "iterations").
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

/// "a" or "an" before `word`.
const char* article(const std::string& word);

/// Throws InputError "<source>: <pointer>: <what>" ("<input>" for an empty source).
[[noreturn]] void input_error(const std::string& source, const std::string& pointer, const std::string& what);
/// input_error with "expected <what>, got <show(got)>".
[[noreturn]] void expected(const std::string& source, const std::string& pointer, const std::string& what,
                           const nlohmann::json& got);

/// An integer value: a JSON integer, or a float with an integral value (3.0). False otherwise
/// (and for values beyond int64).
bool as_integer(const nlohmann::json& v, std::int64_t& out);
/// An integer >= min at `pointer`, else InputError "expected an integer >= min, got ...".
std::int64_t integer_at_least(const nlohmann::json& v, const std::string& source, const std::string& pointer,
                              std::int64_t min);

/// The registered plugin a block {"plugin": NAME, ...} of role `kind` names. InputError at
/// `pointer` (or `pointer`/plugin) when the block is not an object, has no name, or names a plugin
/// of another role or none (with the closest names).
const RegisteredComponent& find_plugin(const Registry& registry, Kind kind, const nlohmann::json& block,
                                       const std::string& source, const std::string& pointer);

}  // namespace scfw::input
