// Shared by the fuzz targets of tests/fuzz: the registry of the built plugins, a private work
// folder, and the one verdict every target applies to an input.
//
// The contract under test (issue #12's goal): whatever the bytes, composing a problem ends in
// success, in an scfw::Error (a run-time failure of a plugin, such as Clp giving up while
// bounding a polytope: exit 1), or in an scfw::InputError (exit 2) whose message is one short
// line naming where: check_message() below. Any other exception, and a message that breaks a
// rule, aborts with the reason, which libFuzzer and the corpus replay report as a crash, as they
// do a sanitizer report, a signal or a hang.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scfw/core/registry.hpp"

namespace scfw_fuzz {

/// Every plugin of the build (SCFW_FUZZ_PLUGIN_DIR, or the folder compiled in), loaded once.
const scfw::Registry& registry();

/// A folder of this process under $TMPDIR (default /dev/shm, else /tmp), created at the first call, removed at
/// exit. It also holds small valid data files (data.libsvm, prices.csv, u.data, polytope.csv)
/// that fuzzed problem files can name.
const std::filesystem::path& work_dir();

/// Writes the bytes to work_dir()/name (replacing the file) and returns the path.
std::filesystem::path write_file(const std::string& name, const std::uint8_t* data, std::size_t size);

/// The longest message of an InputError, in bytes, not counting the paths of the files it names
/// (a user's path is as long as it is). A message is a fixed sentence, a location and at most a
/// few quoted pieces of input, each cut to 40 bytes and its size (scfw::excerpt); the longest
/// reachable, an unknown top-level key of 40 '/' (80 bytes as ~1) with the list of the thirteen
/// top-level keys, has 267 bytes with "problem.json", a memory estimate with a worker's share
/// 246: 300 leaves room for a longer number or name, and fits four lines of an 80-column terminal.
inline constexpr std::size_t kMaxMessageBytes = 300;

/// compose_document's default bound on d for composing the method too.
inline constexpr int kMaxMethodDim = 64;

/// The verdict on the message of an InputError: one line (no control character: C0, DEL, and,
/// UTF-8 encoded, C1, U+2028, U+2029), starting with the path of one of `files` (relative to
/// work_dir(); "*<name>" accepts <name> or any absolute path, a data file the fuzzed file names),
/// followed by a line number or a JSON pointer; a message about a data file as a whole ("no
/// entries") may have neither, one about a problem or experiment file only for the whole-file
/// cases of json_reader.cpp and compose() (not an object, not a regular file); at most
/// kMaxMessageBytes bytes besides the paths. Aborts with the reason and
/// the message otherwise.
void check_message(const char* target, const std::vector<std::string>& files, const std::string& what);

/// Runs `body` (which composes something) and applies the verdict. `files` are the file names
/// one of which an InputError's message must contain (the problem file's, the data file's; ""
/// accepts any message).
/// Returns normally on success and on scfw errors; aborts on anything else.
void expect_scfw_outcome(const char* target, std::initializer_list<std::string> files, void (*body)(void*),
                         void* arg);

template <class F>
void check(const char* target, std::initializer_list<std::string> files, F&& body) {
  expect_scfw_outcome(
      target, files, [](void* f) { (*static_cast<F*>(f))(); }, &body);
}

/// A document composed as if read from work_dir()/problem.json (relative paths resolve in
/// work_dir()): its problem (oracle, outer function, domain: the data file is read and the memory
/// estimated), then, when the oracle's d is at most `max_method_dim`, the method on it (tracker,
/// schedule, the GLMO chosen and set up). Everything is destroyed before returning. Setting up
/// the GLMOs grows with d (an LP of d variables, built by every GLMO the host's choice probes)
/// and took three quarters of an input's time in the udata target when it ran for every d
/// (docs/journal/reliability-history.md, "Executions per second"); small data files reach it.
void compose_document(const nlohmann::json& doc, int max_method_dim = kMaxMethodDim);

}  // namespace scfw_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
