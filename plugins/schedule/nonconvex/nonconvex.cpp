// Schedule `nonconvex`: the constant step sizes of Theorem 1 (eq. nonconvex_schedule),
//   gamma = K^-((2r-1)/(3r-2)),   beta = rho = K^-(r/(3r-2)),
// for a run of K iterations under noise with finite r-th moments, r in (1, 2]. At r = 2:
// gamma = K^-3/4, beta = rho = K^-1/2 (the setting of Section 6).
#include <scfw/helpers.hpp>
#include <scfw/plugin.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>

namespace {

class Nonconvex final : public scfw::Schedule {
 public:
  Nonconvex(const scfw::Params& p, const scfw::Context&) : r_(p.has("r") ? p.number("r") : 2.0) {
    if (!(r_ > 1.0 && r_ <= 2.0)) p.fail("r", "expected a number in (1, 2], got " + scfw::format_number(r_, 3));
    gamma_exp_ = (2 * r_ - 1) / (3 * r_ - 2);
    beta_exp_ = r_ / (3 * r_ - 2);
  }

  scfw::Steps at(long, long K) const override {
    if (K < 1) throw scfw::Error("nonconvex schedule: the number of iterations K must be >= 1, got " + std::to_string(K));
    last_K_.store(K, std::memory_order_relaxed);
    scfw::Steps s;
    const double Kd = static_cast<double>(K);
    s.gamma = std::pow(Kd, -gamma_exp_);
    s.beta = s.rho = std::pow(Kd, -beta_exp_);
    return s;
  }

  // describe() has no K: the values are those of the last K the schedule was asked about.
  std::string describe() const override {
    const long K = last_K_.load(std::memory_order_relaxed);
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
  mutable std::atomic<long> last_K_{0};
};

scfw::ParamSpec r_spec() {
  auto s = scfw::ParamSpec::number("r", "moment order r of the noise, in (1, 2]").range(1.0, 2.0).def(2.0);
  s.min_open = true;  // r in (1, 2]
  return s;
}

void register_components(scfw::Registrar& r) {
  r.add<Nonconvex>(scfw::Kind::Schedule, "nonconvex",
                   "Theorem 1: gamma = K^-((2r-1)/(3r-2)), beta = rho = K^-(r/(3r-2)) (K^-3/4 and K^-1/2 at r = 2)",
                   {r_spec()});
}

}  // namespace

SCFW_PLUGIN("nonconvex", "1.0.0", register_components)
