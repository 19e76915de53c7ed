// Schedule `convex`: the decreasing step sizes of Theorem 2 (eq. convex_schedule),
//   gamma_k = 2/(k+2),   beta_k = rho_k = min{1, c0 / (k + k0)^y},   y = r/(2r-1),
// with, as in the proof of Theorem 2 (Lemma "Decreasing-schedule tracking"), c0 = 1 and
//   k0 = ceil((4q)^(1/(1-y))) + 2,   q = y (r-1),
// which gives 2 q k0^(y-1) <= 1/2 (k0^(1-y) >= 4q) and k0 >= 2, the two facts that close the
// induction there.
// At r = 2: y = 2/3, q = 2/3, (8/3)^3 = 18.96, so k0 = 21.
#include <scfw/helpers.hpp>
#include <scfw/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace {

class Convex final : public scfw::Schedule {
 public:
  Convex(const scfw::Params& p, const scfw::Context&)
      : r_(p.get<double>("r")), c0_(p.get<double>("c0")) {
    y_ = r_ / (2 * r_ - 1);
    k0_ = p.find<long>("k0").value_or(scfw::tracking_k0(y_, r_));  // no declared default: it depends on r
  }

  scfw::Steps at(long k, long) const override {
    scfw::Steps s;
    s.gamma = 2.0 / (static_cast<double>(k) + 2.0);
    s.beta = s.rho = std::min(1.0, c0_ / std::pow(static_cast<double>(k + k0_), y_));
    return s;
  }

  std::string describe(long) const override {
    return "convex (r = " + scfw::format_number(r_, 3) + "): gamma_k = 2/(k+2), beta_k = rho_k = min{1, " +
           scfw::format_number(c0_, 3) + "/(k+" + std::to_string(k0_) + ")^(" + scfw::format_exponent(y_) +
           ")} (c0 = " + scfw::format_number(c0_, 3) + ", k0 = " + std::to_string(k0_) +
           "; beta_0 = " + scfw::format_number(at(0, 1).beta, 3) + ")";
  }

 private:
  double r_, c0_, y_ = 0;
  long k0_ = 0;
};

scfw::ParamSpec r_spec() {
  return scfw::ParamSpec::number("r", "moment order r of the noise, in (1, 2]").above(1).at_most(2).def(2.0);
}

void register_components(scfw::Registrar& r) {
  r.add<Convex>("convex",
                "Theorem 2: gamma_k = 2/(k+2), beta_k = rho_k = min{1, c0/(k+k0)^(r/(2r-1))}",
                {r_spec(), scfw::ParamSpec::number("c0", "momentum scale c0 (the proof takes 1)").positive().def(1.0),
                 scfw::ParamSpec::integer("k0", "momentum offset k0 (default: the proof's ceil((4q)^(1/(1-y))) + 2, 21 at r = 2)")
                     .at_least(1)});
}

}  // namespace

SCFW_PLUGIN("convex", SCFW_PLUGIN_VERSION, register_components)
