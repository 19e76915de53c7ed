// Schedule `storm`: the constant step sizes of Theorems storm_rate and hessian_rate,
//
//   gamma = beta = rho = K^{-r/(2r-1)},   r in (1, 2]  (K^{-2/3} at r = 2),
//
// for the `storm` and `hessian` trackers under r-average smoothness; their rate is
// O(K^{-(r-1)/(2r-1)}). The name coincides with the tracker `storm`: names are unique per kind.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <cmath>
#include <sstream>
#include <string>

namespace {

class StormSchedule final : public scfw::Schedule {
 public:
  StormSchedule(const scfw::Params& p, const scfw::Context&) {
    r_ = p.get<double>("r");
  }

  scfw::Steps at(long, long K) const override {
    if (K < 1) throw scfw::Error("storm schedule: the number of iterations K must be >= 1, got " + std::to_string(K));
    const double s = std::pow(static_cast<double>(K), -r_ / (2.0 * r_ - 1.0));
    return scfw::Steps{s, s, s};
  }

  std::string describe(long K) const override {
    std::ostringstream os;
    os.precision(3);
    os << "storm (r = " << r_ << "): gamma = beta = rho = K^-(" << r_ << "/" << 2 * r_ - 1 << ")";
    if (K >= 1) os << " = " << at(0, K).gamma << " (K = " << K << ")";
    return os.str();
  }

 private:
  double r_ = 2.0;
};

// r in (1, 2]: open at 1 (the rate exponent r/(2r-1) needs r > 1), closed at 2.
scfw::ParamSpec r_in_1_2() {
  return scfw::ParamSpec::number("r", "noise moment r in (1, 2] of Assumption noise (2 = bounded variance)")
      .above(1)
      .at_most(2)
      .def(2.0);
}

void register_components(scfw::Registrar& r) {
  r.add<StormSchedule>(
      "storm",
      "STORM / Hessian-corrected schedule (Thm storm_rate, hessian_rate): gamma = beta = rho = K^-(r/(2r-1))",
      {r_in_1_2()});
}

}  // namespace

SCFW_PLUGIN("storm_schedule", SCFW_PLUGIN_VERSION, register_components)
