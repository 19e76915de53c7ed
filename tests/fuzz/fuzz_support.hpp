// Shared by the fuzz targets of tests/fuzz: the registry of the built plugins, a private work
// folder, and the one verdict every target applies to an input.
//
// The contract under test: whatever the bytes, composing a problem ends in success, in an
// scfw::InputError whose message names a file, or in an scfw::Error (a run-time
// failure of a plugin, such as Clp giving up while bounding a polytope). Any other exception
// aborts with a message, which libFuzzer and the corpus replay report as a crash, as they do a
// sanitizer report, a signal or a hang.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "scfw/core/registry.hpp"

namespace scfw_fuzz {

/// Every plugin of the build (SCFW_FUZZ_PLUGIN_DIR, or the folder compiled in), loaded once.
const scfw::Registry& registry();

/// A folder of this process under $TMPDIR (default /tmp), created at the first call, removed at
/// exit. It also holds small valid data files (data.libsvm, prices.csv, u.data, polytope.csv)
/// that fuzzed problem files can name.
const std::filesystem::path& work_dir();

/// Writes the bytes to work_dir()/name (replacing the file) and returns the path.
std::filesystem::path write_file(const std::string& name, const std::uint8_t* data, std::size_t size);

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

/// compose() of a document as if read from work_dir()/problem.json (relative paths resolve in
/// work_dir()). The composition is destroyed before returning.
void compose_document(const nlohmann::json& doc);

}  // namespace scfw_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
