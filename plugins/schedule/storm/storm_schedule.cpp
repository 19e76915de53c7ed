// Schedule `storm`: the constant step sizes of Theorems storm_rate and hessian_rate,
//
//   gamma = beta = rho = K^{-r/(2r-1)},   r in (1, 2]  (K^{-2/3} at r = 2),
//
// for the `storm` and `hessian` trackers under r-average smoothness; their rate is
// O(K^{-(r-1)/(2r-1)}). The name coincides with the tracker `storm`: names are unique per kind.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <atomic>
#include <cmath>
#include <sstream>
#include <string>

namespace {

class StormSchedule final : public scfw::Schedule {
 public:
  StormSchedule(const scfw::Params& p, const scfw::Context&) {
    r_ = p.has("r") ? p.number("r") : 2.0;
    if (!(r_ > 1.0 && r_ <= 2.0)) p.fail("r", "expected a number in (1, 2], got " + scfw::format_number(r_));
  }

  scfw::Steps at(long, long K) const override {
    if (K < 1) throw scfw::Error("storm schedule: the number of iterations K must be >= 1, got " + std::to_string(K));
    last_K_.store(K, std::memory_order_relaxed);
    const double s = std::pow(static_cast<double>(K), -r_ / (2.0 * r_ - 1.0));
    return scfw::Steps{s, s, s};
  }

  // describe() has no K: the value shown is that of the last K the schedule was asked about.
  std::string describe() const override {
    std::ostringstream os;
    os.precision(3);
    os << "storm (r = " << r_ << "): gamma = beta = rho = K^-(" << r_ << "/" << 2 * r_ - 1 << ")";
    const long K = last_K_.load(std::memory_order_relaxed);
    if (K >= 1) os << " = " << at(0, K).gamma << " (K = " << K << ")";
    return os.str();
  }

 private:
  double r_ = 2.0;
  mutable std::atomic<long> last_K_{0};
};

// r in (1, 2]: open at 1 (the rate exponent r/(2r-1) needs r > 1), closed at 2.
scfw::ParamSpec r_in_1_2() {
  scfw::ParamSpec spec =
      scfw::ParamSpec::number("r", "noise moment r in (1, 2] of Assumption noise (2 = bounded variance)")
          .range(1.0, 2.0)
          .def(2.0);
  spec.min_open = true;
  return spec;
}

void register_components(scfw::Registrar& r) {
  r.add<StormSchedule>(
      scfw::Kind::Schedule, "storm",
      "STORM / Hessian-corrected schedule (Thm storm_rate, hessian_rate): gamma = beta = rho = K^-(r/(2r-1))",
      {r_in_1_2()});
}

}  // namespace

SCFW_PLUGIN("storm_schedule", "0.1.0", register_components)
