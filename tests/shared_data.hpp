// The shared data folder (a9a, MovieLens-100K, the S&P 500 prices) for the test cases that read
// it: the environment variable SCFW_DATA_DIR when set, else ../shared/data beside the source tree
// (the compile definition SCFW_DATA_DIR, tests/CMakeLists.txt).
//
// Such a case is named "shared data: ..." and runs in a ctest entry of its own, <test>_data. When
// a file it needs is missing it says so ("skipped: <path> not found (...)") and returns; the
// executable then exits with 77 unless a check failed (doctest_main.cpp), which ctest reports as
// skipped (SKIP_RETURN_CODE), never as passed.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <doctest/doctest.h>

namespace scfw::test {

/// Set once a case found a shared data file missing; read by doctest_main.cpp.
bool& shared_data_missing();

inline std::string shared_data_dir() {
  if (const char* env = std::getenv("SCFW_DATA_DIR")) return env;
  return SCFW_DATA_DIR;
}

/// The path of `name` in the shared data folder when it exists; otherwise "" after recording the
/// skip, for the caller to return.
inline std::string shared_data_file(const std::string& name) {
  const std::string path = (std::filesystem::path(shared_data_dir()) / name).string();
  if (std::filesystem::exists(path)) return path;
  MESSAGE("skipped: " << path << " not found (set SCFW_DATA_DIR to the shared data folder)");
  shared_data_missing() = true;
  return {};
}

}  // namespace scfw::test
