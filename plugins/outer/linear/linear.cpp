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
    const std::int64_t k = p.has("component") ? p.integer("component") : 0;
    // n is known once the oracle is built; before that only the sign can be checked.
    const bool bad = k < 0 || (c.outputs >= 1 && k >= c.outputs);
    if (bad) {
      const std::string range =
          c.outputs >= 1 ? "[0, " + std::to_string(c.outputs - 1) + "]" : ">= 0";
      p.fail("component", "expected an integer " + (c.outputs >= 1 ? "in " + range : range) +
                              ", got " + std::to_string(k));
    }
    k_ = static_cast<int>(k);
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
      scfw::Kind::Outer, "linear",
      "F(u) = u_k: one component of f, so the GLMO is the classical LMO (k = 0 is the paper's u^(1))",
      {scfw::ParamSpec::integer("component", "index k of the component of u to minimize (0-based)")
           .range(0, scfw::inf)
           .def(0)});
}

}  // namespace

SCFW_PLUGIN("linear", "0.1.0", register_components)
