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
    steps_.gamma = get(p, "gamma", 0.1);
    steps_.beta = get(p, "beta", 1.0);
    steps_.rho = get(p, "rho", 1.0);
  }

  scfw::Steps at(long, long) const override { return steps_; }

  std::string describe() const override {
    return "constant: gamma = " + scfw::format_number(steps_.gamma, 6) +
           ", beta = " + scfw::format_number(steps_.beta, 6) + ", rho = " + scfw::format_number(steps_.rho, 6);
  }

 private:
  static double get(const scfw::Params& p, const std::string& name, double def) {
    const double v = p.has(name) ? p.number(name) : def;
    if (!(v > 0.0 && v <= 1.0)) p.fail(name, "expected a number in (0, 1], got " + scfw::format_number(v, 6));
    return v;
  }
  scfw::Steps steps_;
};

scfw::ParamSpec unit_spec(const char* name, const char* doc, double def) {
  auto s = scfw::ParamSpec::number(name, doc).range(0.0, 1.0).def(def);
  s.min_open = true;  // (0, 1]
  return s;
}

void register_components(scfw::Registrar& r) {
  r.add<Constant>(scfw::Kind::Schedule, "constant", "constant gamma, beta, rho in (0, 1]",
                  {unit_spec("gamma", "step size gamma: y_{k+1} = (1 - gamma) y_k + gamma x_{k+1}", 0.1),
                   unit_spec("beta", "Jacobian tracker weight beta", 1.0),
                   unit_spec("rho", "function tracker weight rho", 1.0)});
}

}  // namespace

SCFW_PLUGIN("constant", "1.0.0", register_components)
