// Fuzz target: a polytope CSV (rows a_1,...,a_d,b) read by the polytope domain. First the domain
// alone (its dimension from the file), then, when that succeeds with a small d, a whole problem
// over it (least_squares_tasks synthetic of that dimension, max).
#include "fuzz_support.hpp"
#include "scfw/roles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  scfw_fuzz::write_file("fuzzed_polytope.csv", data, size);
  const std::string source = (scfw_fuzz::work_dir() / "problem.json").string();
  int d = 0;
  scfw_fuzz::check("polytope_csv", {"fuzzed_polytope.csv", "problem.json"}, [&] {
    scfw::Context ctx;
    ctx.base_dir = scfw_fuzz::work_dir().string();
    const auto domain = scfw_fuzz::registry().make<scfw::Domain>(
        "polytope", {{"file", "fuzzed_polytope.csv"}}, ctx, source, "/domain");
    d = domain->dim();
  });
  if (d < 1 || d > 16) return 0;
  const nlohmann::json doc = {
      {"oracle",
       {{"plugin", "least_squares_tasks"},
        {"synthetic", {{"tasks", 2}, {"dim", d}, {"rows_per_task", 4}, {"sparsity", 1}}}}},
      {"outer", {{"plugin", "max"}}},
      {"domain", {{"plugin", "polytope"}, {"file", "fuzzed_polytope.csv"}}}};
  scfw_fuzz::check("polytope_csv", {"fuzzed_polytope.csv", "problem.json"}, [&] { scfw_fuzz::compose_document(doc); });
  return 0;
}
