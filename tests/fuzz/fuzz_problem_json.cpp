// Fuzz target: a problem file, through the path of `scfw validate` (read_json_file, then compose
// with every plugin of the build). The work folder holds small valid data files that a problem
// file can name (data.libsvm, prices.csv, u.data, polytope.csv).
#include "fuzz_support.hpp"
#include "scfw/core/problem.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path file = scfw_fuzz::write_file("problem.json", data, size);
  // A message names the problem file with a line or a JSON pointer, or a data file the problem
  // names, which a fuzzed problem may call anything (an absolute path too): "*problem.json".
  scfw_fuzz::check("problem_json", {"*problem.json"}, [&] { const scfw::Composition c = scfw::load_problem(scfw_fuzz::registry(), file); });
  return 0;
}
