// Fuzz target: a MovieLens-style u.data file (`row col value` lines, 1-based) read by the
// matrix_completion oracle, composed with the l1 norm over a box. The shape is cut to the 40
// rows and 40 columns with the most entries (top_rows, top_cols, as Task 3 does with ml-100k),
// which exercises the cut (a finding of the fuzzing, docs/reliability.md); with the shape from
// the largest indices alone, 70 bytes make a legitimate problem of 450 892 variables. The method
// is composed for d <= 64 only (compose_document). The problem_json target reads u.data without
// the cut.
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  scfw_fuzz::write_file("fuzzed.data", data, size);
  const nlohmann::json doc = {
      {"oracle", {{"plugin", "matrix_completion"}, {"file", "fuzzed.data"}, {"groups", 2}, {"top_rows", 40}, {"top_cols", 40}}},
      {"outer", {{"plugin", "norm"}, {"p", "1"}}},
      {"domain", {{"plugin", "box"}, {"lower", -1}, {"upper", 1}}}};
  scfw_fuzz::check("udata", {"fuzzed.data", "problem.json"}, [&] { scfw_fuzz::compose_document(doc); });
  return 0;
}
