// Schedule `step_decay`: a user-written schedule, built out of tree against the installed SDK.
//
//   gamma_k = gamma0 / sqrt(1 + floor(k / period)),   beta_k = beta,   rho_k = rho.
//
// The step size is constant for `period` iterations, then drops by a factor sqrt(j / (j + 1)) at
// the j-th boundary: a piecewise-constant version of the 1/sqrt(k) step of Corollary
// deterministic, with the momentum weights held fixed as in Theorem nonconvex.
#include <scfw/scfw.hpp>

#include <cmath>
#include <sstream>
#include <string>

namespace {

class StepDecay final : public scfw::Schedule {
 public:
  // The host has already checked every parameter against the declarations below (types, ranges)
  // and filled in the defaults, so the constructor only reads them.
  StepDecay(const scfw::Params& p, const scfw::Context&)
      : gamma0_(p.get<double>("gamma0")),
        period_(p.get<long>("period")),
        beta_(p.get<double>("beta")),
        rho_(p.get<double>("rho")) {}

  scfw::Steps at(long k, long) const override {
    const double drops = static_cast<double>(k / period_);  // floor(k / period)
    return scfw::Steps{gamma0_ / std::sqrt(1.0 + drops), beta_, rho_};
  }

  std::string describe(long) const override {
    std::ostringstream os;
    os << "step_decay: gamma_k = " << gamma0_ << " / sqrt(1 + floor(k / " << period_ << ")), beta = " << beta_
       << ", rho = " << rho_;
    return os.str();
  }

 private:
  double gamma0_;
  long period_;
  double beta_, rho_;
};

// (0, 1]: a step or weight of 0 would freeze the iterate or the tracker.
scfw::ParamSpec unit(const char* name, const char* doc, double def) {
  return scfw::ParamSpec::number(name, doc).above(0).at_most(1).def(def);
}

void register_components(scfw::Registrar& r) {
  r.add<StepDecay>("step_decay",
                   "gamma_k = gamma0 / sqrt(1 + floor(k / period)), beta and rho fixed (an example plugin)",
                   {unit("gamma0", "initial step size gamma_0", 0.1),
                    scfw::ParamSpec::integer("period", "iterations between two drops of gamma").at_least(1).def(1000),
                    unit("beta", "Jacobian tracker weight beta, held fixed", 0.05),
                    unit("rho", "function tracker weight rho, held fixed", 0.05)});
}

}  // namespace

SCFW_PLUGIN("step_decay", SCFW_PLUGIN_VERSION, register_components)
