// Fuzz target: a MovieLens-style u.data file (`row col value` lines, 1-based) read by the
// matrix_completion oracle, its shape from the largest indices, composed with the l1 norm over
// a box.
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  scfw_fuzz::write_file("fuzzed.data", data, size);
  const nlohmann::json doc = {
      {"oracle", {{"plugin", "matrix_completion"}, {"file", "fuzzed.data"}, {"groups", 2}}},
      {"outer", {{"plugin", "norm"}, {"p", "1"}}},
      {"domain", {{"plugin", "box"}, {"lower", -1}, {"upper", 1}}}};
  scfw_fuzz::check("udata", {"fuzzed.data", "problem.json"}, [&] { scfw_fuzz::compose_document(doc); });
  return 0;
}
