// Fuzz target: a price CSV (header row, a date column, one column per asset) read by the
// portfolio_returns oracle, composed with max over a box.
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  scfw_fuzz::write_file("fuzzed.csv", data, size);
  const nlohmann::json doc = {
      {"oracle", {{"plugin", "portfolio_returns"}, {"file", "fuzzed.csv"}, {"groups", 2}, {"threshold", false}}},
      {"outer", {{"plugin", "max"}}},
      {"domain", {{"plugin", "box"}, {"lower", -1}, {"upper", 1}}}};
  scfw_fuzz::check("price_csv", {"fuzzed.csv", "problem.json"}, [&] { scfw_fuzz::compose_document(doc); });
  return 0;
}
