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
      : gamma0_(p.number("gamma0")), period_(p.integer("period")), beta_(p.number("beta")), rho_(p.number("rho")) {}

  scfw::Steps at(long k, long) const override {
    const double drops = static_cast<double>(k / period_);  // floor(k / period)
    return scfw::Steps{gamma0_ / std::sqrt(1.0 + drops), beta_, rho_};
  }

  std::string describe() const override {
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
  scfw::ParamSpec s = scfw::ParamSpec::number(name, doc).range(0.0, 1.0).def(def);
  s.min_open = true;
  return s;
}

void register_components(scfw::Registrar& r) {
  r.add<StepDecay>(scfw::Kind::Schedule, "step_decay",
                   "gamma_k = gamma0 / sqrt(1 + floor(k / period)), beta and rho fixed (an example plugin)",
                   {unit("gamma0", "initial step size gamma_0", 0.1),
                    scfw::ParamSpec::integer("period", "iterations between two drops of gamma").range(1, scfw::inf).def(1000),
                    unit("beta", "Jacobian tracker weight beta, held fixed", 0.05),
                    unit("rho", "function tracker weight rho, held fixed", 0.05)});
}

}  // namespace

SCFW_PLUGIN("step_decay", "1.0.0", register_components)
