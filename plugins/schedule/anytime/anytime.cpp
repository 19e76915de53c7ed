// Schedule `anytime`: Theorem 1's exponents with k + k0 in place of K,
//   gamma_k = (k + k0)^-a,   beta_k = rho_k = (k + k0)^-b,   a = (2r-1)/(3r-2),  b = r/(3r-2),
// so no step depends on the number of iterations K: a run stopped by a time limit or a gap
// tolerance at iteration k has taken the steps a run of any length takes up to k. At r = 2:
// (k + 6)^-3/4 and (k + 6)^-1/2. docs/formulations.md ("Anytime steps") gives the rate it keeps,
// O(log k / k^((r-1)/(3r-2))) for the best expected gap, and the argument.
//
// k0 is the offset that closes the tracking-error induction of Theorem 2's proof (Lemma
// "Decreasing-schedule tracking") with beta_k = (k + k0)^-b in place of (k + k0)^-y: with
// q = b (r - 1), k0 = ceil((4q)^(1/(1-b))) + 2 gives 2 q k0^(b-1) <= 1/2 and k0 >= 2.
#include <scfw/helpers.hpp>
#include <scfw/plugin.hpp>

#include <cmath>
#include <string>

namespace {

class Anytime final : public scfw::Schedule {
 public:
  Anytime(const scfw::Params& p, const scfw::Context&) : r_(p.get<double>("r")) {
    gamma_exp_ = (2 * r_ - 1) / (3 * r_ - 2);
    beta_exp_ = r_ / (3 * r_ - 2);
    k0_ = p.find<long>("k0").value_or(scfw::tracking_k0(beta_exp_, r_));  // no declared default: it depends on r
  }

  scfw::Steps at(long k, long) const override {
    const double t = static_cast<double>(k) + static_cast<double>(k0_);
    scfw::Steps s;
    s.gamma = std::pow(t, -gamma_exp_);
    s.beta = s.rho = std::pow(t, -beta_exp_);
    return s;
  }

  std::string describe(long) const override {
    const scfw::Steps s0 = at(0, 1);
    const std::string k = "(k+" + std::to_string(k0_) + ")";
    return "anytime (r = " + scfw::format_number(r_, 3) + "): gamma_k = " + k + "^-" + scfw::format_exponent(gamma_exp_) +
           ", beta_k = rho_k = " + k + "^-" + scfw::format_exponent(beta_exp_) + " (no K: gamma_0 = " +
           scfw::format_number(s0.gamma, 3) + ", beta_0 = " + scfw::format_number(s0.beta, 3) + ")";
  }

 private:
  double r_, gamma_exp_ = 0, beta_exp_ = 0;
  long k0_ = 0;
};

void register_components(scfw::Registrar& r) {
  r.add<Anytime>(
      "anytime",
      "Theorem 1's exponents without K: gamma_k = (k+k0)^-((2r-1)/(3r-2)), beta_k = rho_k = (k+k0)^-(r/(3r-2)); "
      "for runs ended by --time-limit or --gap-tolerance",
      {scfw::ParamSpec::number("r", "moment order r of the noise, in (1, 2]").above(1).at_most(2).def(2.0),
       scfw::ParamSpec::integer("k0", "offset k0 (default: ceil((4q)^(1/(1-b))) + 2 with b = r/(3r-2), q = b(r-1); 6 at r = 2)")
           .at_least(1)});
}

}  // namespace

SCFW_PLUGIN("anytime", SCFW_PLUGIN_VERSION, register_components)
