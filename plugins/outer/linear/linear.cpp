// Outer function `linear`: F(u) = u_k. With it the GLMO is the classical Frank-Wolfe LMO
// (paper, Section 3, "Generalized LMO": F(u, x) = u^(1) recovers the LMO), which makes it the
// reference against which the GLMO machinery is tested.
#include <scfw/scfw.hpp>

#include <cstdint>
#include <string>

namespace {

class LinearOuter final : public scfw::OuterFunction {
 public:
  LinearOuter(const scfw::Params& p, const scfw::Context& c) {
    // The declaration checks k >= 0; the upper end is n - 1, known once the oracle is built.
    const std::int64_t k = p.get<std::int64_t>("component");
    if (c.outputs >= 1 && k >= c.outputs)
      p.fail("component", "expected an integer in [0, " + std::to_string(c.outputs - 1) + "], got " + std::to_string(k));
    k_ = p.get<int>("component");
  }

  double value(const scfw::Vec& u, const scfw::Vec&) const override {
    if (k_ >= u.size())
      throw scfw::Error("linear: component " + std::to_string(k_) + " is out of range for n = " +
                        std::to_string(u.size()));
    return u[k_];
  }

  // No auxiliary variables: the objective is u_k itself.
  scfw::Expr model(scfw::Model&, std::span<const scfw::Expr> u,
                   std::span<const scfw::Expr>) const override {
    if (static_cast<size_t>(k_) >= u.size())
      throw scfw::Error("linear: component " + std::to_string(k_) + " is out of range for n = " +
                        std::to_string(u.size()));
    return u[static_cast<size_t>(k_)];
  }

  scfw::OuterTraits traits() const override {
    scfw::OuterTraits tr;
    tr.lipschitz = 1.0;
    tr.monotone = true;
    tr.subhomogeneous = true;  // linear: F(g u) = g F(u)
    tr.depends_on_x = false;
    tr.formula = "F(u) = u_" + std::to_string(k_);
    return tr;
  }

 private:
  int k_ = 0;
};

void register_components(scfw::Registrar& r) {
  r.add<LinearOuter>(
      "linear",
      "F(u) = u_k: one component of f, so the GLMO is the classical LMO (k = 0 is the paper's u^(1))",
      {scfw::ParamSpec::integer("component", "index k of the component of u to minimize (0-based)")
           .at_least(0)
           .def(0)});
}

}  // namespace

SCFW_PLUGIN("linear", SCFW_PLUGIN_VERSION, register_components)
