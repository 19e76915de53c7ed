// scfw core: the diagnostics of bad input — JSON pointers, excerpts, "did you mean", located
// one-line errors — and the small value readers that report through them, shared by the
// composer (composer.cpp), parameter validation, the JSON reader, solution files and `scfw
// compare`'s experiment files, so that all print the same messages.
//
// Every bad-input error is one line "<file>: <JSON pointer>: <what>" (InputError).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace scfw::diagnostics {

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

}  // namespace scfw::diagnostics

namespace scfw {

/// Levenshtein distance, for "did you mean" suggestions (defined in the SDK, data_file.hpp, whose
/// data-file messages suggest near names too).
size_t edit_distance(const std::string& a, const std::string& b);
/// Up to `count` candidates closest to `name`, nearest first, only those reasonably close.
std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       size_t count = 3);

}  // namespace scfw
