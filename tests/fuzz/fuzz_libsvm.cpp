// Fuzz target: a LIBSVM file read by the least_squares_tasks oracle ("file", split into 2
// tasks), composed with max over an l1 ball.
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  scfw_fuzz::write_file("fuzzed.libsvm", data, size);
  const nlohmann::json doc = {
      {"oracle", {{"plugin", "least_squares_tasks"}, {"file", "fuzzed.libsvm"}, {"tasks", 2}}},
      {"outer", {{"plugin", "max"}}},
      {"domain", {{"plugin", "l1_ball"}, {"radius", 1}}}};
  scfw_fuzz::check("libsvm", {"fuzzed.libsvm", "problem.json"}, [&] { scfw_fuzz::compose_document(doc); });
  return 0;
}
