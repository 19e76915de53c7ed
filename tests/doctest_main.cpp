#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

namespace scfw::test {
// Declared in shared_data.hpp.
bool& shared_data_missing();
bool& shared_data_missing() {
  static bool missing = false;
  return missing;
}
}  // namespace scfw::test

// doctest's own main, but for exit code 77 (ctest's "skipped", tests/CMakeLists.txt) when a case
// found the shared data missing and no check failed.
int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int failed = context.run();
  if (context.shouldExit() || failed != 0) return failed;
  return scfw::test::shared_data_missing() ? 77 : 0;
}
