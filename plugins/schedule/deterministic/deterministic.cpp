// Schedule `deterministic`: Corollary 1 (deterministic interpolation). beta = rho = 1 makes the
// trackers return the current sample, i.e. the exact f and J for an exact oracle, and
//   step "convex":     gamma_k = 2/(k+2)       (phi(y_K) - phi* <= 2 S / (K+1))
//   step "nonconvex":  gamma_k = 1/sqrt(k+1)   (min gap <= (Phi_0 + S (1 + ln(K+1))/2) / sqrt(K+1))
#include <scfw/plugin.hpp>

#include <cmath>
#include <string>

namespace {

class Deterministic final : public scfw::Schedule {
 public:
  Deterministic(const scfw::Params& p, const scfw::Context&) {
    convex_ = p.get<std::string>("step") == "convex";  // or "nonconvex", the other declared choice
  }

  scfw::Steps at(long k, long) const override {
    scfw::Steps s;
    const double kd = static_cast<double>(k);
    s.gamma = convex_ ? 2.0 / (kd + 2.0) : 1.0 / std::sqrt(kd + 1.0);
    s.beta = s.rho = 1.0;
    return s;
  }

  std::string describe(long) const override {
    return convex_ ? "deterministic (convex step): gamma_k = 2/(k+2), beta = rho = 1"
                   : "deterministic (nonconvex step): gamma_k = 1/sqrt(k+1), beta = rho = 1";
  }

 private:
  bool convex_ = true;
};

void register_components(scfw::Registrar& r) {
  r.add<Deterministic>("deterministic",
                       "Corollary 1: beta = rho = 1 and gamma_k = 2/(k+2) (convex) or 1/sqrt(k+1) (nonconvex)",
                       {scfw::ParamSpec::choice("step", {"convex", "nonconvex"},
                                                "\"convex\": gamma_k = 2/(k+2); \"nonconvex\": gamma_k = 1/sqrt(k+1)")
                            .def("convex")});
}

}  // namespace

SCFW_PLUGIN("deterministic", SCFW_PLUGIN_VERSION, register_components)
