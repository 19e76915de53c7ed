// Schedule `constant`: fixed gamma, beta, rho in (0, 1] at every iteration (for tuning studies
// and baselines; Theorems 1-2 prescribe `nonconvex` and `convex`).
#include <scfw/helpers.hpp>
#include <scfw/plugin.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace {

class Constant final : public scfw::Schedule {
 public:
  Constant(const scfw::Params& p, const scfw::Context&) {
    steps_.gamma = p.get<double>("gamma");
    steps_.beta = p.get<double>("beta");
    steps_.rho = p.get<double>("rho");
  }

  scfw::Steps at(long, long) const override { return steps_; }

  std::string describe(long) const override {
    return "constant: gamma = " + scfw::format_number(steps_.gamma, 6) +
           ", beta = " + scfw::format_number(steps_.beta, 6) + ", rho = " + scfw::format_number(steps_.rho, 6);
  }

 private:
  scfw::Steps steps_;
};

scfw::ParamSpec unit_spec(const char* name, const char* doc, double def) {
  return scfw::ParamSpec::number(name, doc).above(0).at_most(1).def(def);
}

void register_components(scfw::Registrar& r) {
  r.add<Constant>("constant", "constant gamma, beta, rho in (0, 1]",
                  {unit_spec("gamma", "step size gamma: y_{k+1} = (1 - gamma) y_k + gamma x_{k+1}", 0.1),
                   unit_spec("beta", "Jacobian tracker weight beta", 1.0),
                   unit_spec("rho", "function tracker weight rho", 1.0)});
}

}  // namespace

SCFW_PLUGIN("constant", SCFW_PLUGIN_VERSION, register_components)
