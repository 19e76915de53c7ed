// Fuzz target: an experiment file of `scfw compare`, through the path of `scfw compare --check`
// without the output folder: load_experiment (read_json_file, the experiment's own keys, every
// method's tracker and schedule block at every budget K, the GLMO block), then the problem
// composed once and every method on it (compare_check), the methods only when the oracle's d is
// at most kMaxMethodDim (setting up the GLMOs grows with d; see compose_document). The work
// folder holds the same small data files the problem_json target's problems name.
#include "fuzz_support.hpp"
#include "scfw/compare/compare.hpp"
#include "scfw/core/problem.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path file = scfw_fuzz::write_file("experiment.json", data, size);
  scfw_fuzz::check("experiment_json", {"*experiment.json"}, [&] {
    const scfw::Registry& registry = scfw_fuzz::registry();
    const scfw::Experiment e = scfw::load_experiment(registry, file);
    scfw::Problem problem = scfw::compose_experiment_problem(registry, e);
    if (problem.oracle->dim() > scfw_fuzz::kMaxMethodDim) return;
    for (size_t m = 0; m < e.methods.size(); ++m) {
      if (m > 0) problem.renew_domain();
      const scfw::Method method = scfw::compose_experiment_method(registry, e, problem, m, e.budgets.front());
      (void)method;
    }
  });
  return 0;
}
