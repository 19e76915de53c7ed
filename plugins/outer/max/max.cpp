// Outer function `max`: F(u) = max_i u_i, the robust minimax objective of the paper's
// Example "Robust Minimax Optimization" (Section 4). L_F = 1; monotone and positively
// homogeneous, so Assumption 2 holds with equality in (iii).
#include <scfw/scfw.hpp>

#include <string>

namespace {

class MaxOuter final : public scfw::OuterFunction {
 public:
  MaxOuter(const scfw::Params&, const scfw::Context&) {}

  double value(const scfw::Vec& u, const scfw::Vec&) const override {
    if (u.size() == 0) return -scfw::inf;  // the max of nothing
    return u.maxCoeff();
  }

  // Epigraph of the max of n affine functions: one free scalar t with t >= u_i (Section 4:
  // "introducing a single auxiliary scalar variable"). min t over the rows equals max_i u_i.
  scfw::Expr model(scfw::Model& m, std::span<const scfw::Expr> u,
                   std::span<const scfw::Expr>) const override {
    if (u.empty()) throw scfw::Error("max: F(u) = max_i u_i needs at least one output (n >= 1)");
    const scfw::Var t = m.add_var(-scfw::inf, scfw::inf, "t");
    for (const scfw::Expr& ui : u) m.add_ge(scfw::Expr(t), ui);
    return scfw::Expr(t);
  }

  scfw::OuterTraits traits() const override {
    scfw::OuterTraits tr;
    tr.lipschitz = 1.0;          // |max u - max w| <= ||u - w||_inf <= ||u - w||_2
    tr.monotone = true;
    tr.subhomogeneous = true;    // max(g u) = g max(u) for g >= 0
    tr.depends_on_x = false;
    tr.formula = "F(u) = max_i u_i";
    return tr;
  }
};

void register_components(scfw::Registrar& r) {
  r.add<MaxOuter>("max", "F(u) = max_i u_i: the worst of n expected losses (robust minimax, L_F = 1)", {});
}

}  // namespace

SCFW_PLUGIN("max", SCFW_PLUGIN_VERSION, register_components)
