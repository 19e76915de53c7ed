// Schedule `nonconvex`: the constant step sizes of Theorem 1 (eq. nonconvex_schedule),
//   gamma = K^-((2r-1)/(3r-2)),   beta = rho = K^-(r/(3r-2)),
// for a run of K iterations under noise with finite r-th moments, r in (1, 2]. At r = 2:
// gamma = K^-3/4, beta = rho = K^-1/2 (the setting of Section 6).
#include <scfw/helpers.hpp>
#include <scfw/plugin.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace {

class Nonconvex final : public scfw::Schedule {
 public:
  Nonconvex(const scfw::Params& p, const scfw::Context&) : r_(p.get<double>("r")) {
    gamma_exp_ = (2 * r_ - 1) / (3 * r_ - 2);
    beta_exp_ = r_ / (3 * r_ - 2);
  }

  scfw::Steps at(long, long K) const override {
    if (K < 1) throw scfw::Error("nonconvex schedule: the number of iterations K must be >= 1, got " + std::to_string(K));
    scfw::Steps s;
    const double Kd = static_cast<double>(K);
    s.gamma = std::pow(Kd, -gamma_exp_);
    s.beta = s.rho = std::pow(Kd, -beta_exp_);
    return s;
  }

  std::string describe(long K) const override {
    std::string g = "gamma = K^-" + scfw::format_exponent(gamma_exp_), b = "beta = rho = K^-" + scfw::format_exponent(beta_exp_);
    std::string s = "nonconvex (r = " + scfw::format_number(r_, 3) + "): ";
    if (K >= 1) {
      const scfw::Steps st = at(0, K);
      return s + g + " = " + scfw::format_number(st.gamma, 3) + ", " + b + " = " + scfw::format_number(st.beta, 3) +
             " (K = " + std::to_string(K) + ")";
    }
    return s + g + ", " + b;
  }

 private:
  double r_, gamma_exp_ = 0, beta_exp_ = 0;
};

scfw::ParamSpec r_spec() {
  return scfw::ParamSpec::number("r", "moment order r of the noise, in (1, 2]").above(1).at_most(2).def(2.0);
}

void register_components(scfw::Registrar& r) {
  r.add<Nonconvex>("nonconvex",
                   "Theorem 1: gamma = K^-((2r-1)/(3r-2)), beta = rho = K^-(r/(3r-2)) (K^-3/4 and K^-1/2 at r = 2)",
                   {r_spec()},
                   scfw::Preference{.rank = 1});
}

}  // namespace

SCFW_PLUGIN("nonconvex", SCFW_PLUGIN_VERSION, register_components)
