// Outer function `norm`: F(u) = ||u||_p, p in {1, 2, inf} (paper, Section 4, Example
// "Norm-Regularized Multi-Task Learning"). Lipschitz with constant 1 in the matching norm; in the
// Euclidean norm (the one of Assumption 2(i)) L_F = sqrt(n) for p = 1 and 1 for p = 2 and inf.
// Positively homogeneous (so subhomogeneous); NOT monotone in u (|u_i| falls as a negative u_i
// rises), so the monotone flag is false.
// GLMO model: p = 1, inf: an LP (s_i >= +-u_i, resp. t >= +-u_i); p = 2: one second-order cone
// ||u||_2 <= t, which the clp GLMO solves by outer-approximation cuts.
#include <scfw/scfw.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace {

class NormOuter final : public scfw::OuterFunction {
 public:
  NormOuter(const scfw::Params& p, const scfw::Context& c) {
    p_ = p.get<std::string>("p");
    n_ = c.outputs;
  }

  double value(const scfw::Vec& u, const scfw::Vec&) const override {
    if (p_ == "1") return u.lpNorm<1>();
    if (p_ == "inf") return u.size() ? u.lpNorm<Eigen::Infinity>() : 0.0;
    return u.norm();
  }

  scfw::Expr model(scfw::Model& m, std::span<const scfw::Expr> u,
                   std::span<const scfw::Expr>) const override {
    if (p_ == "1") {
      scfw::Expr objective;
      for (size_t i = 0; i < u.size(); ++i) {
        const scfw::Var s = m.add_var(0.0, scfw::inf, "s[" + std::to_string(i) + "]");
        m.add_ge(scfw::Expr(s), u[i]);
        m.add_ge(scfw::Expr(s), -u[i]);
        objective.add(s, 1.0);
      }
      return objective;
    }
    const scfw::Var t = m.add_var(0.0, scfw::inf, "t");
    if (p_ == "inf") {
      for (const scfw::Expr& ui : u) {
        m.add_ge(scfw::Expr(t), ui);
        m.add_ge(scfw::Expr(t), -ui);
      }
    } else {
      m.add_second_order_cone(scfw::Expr(t), std::vector<scfw::Expr>(u.begin(), u.end()));
    }
    return scfw::Expr(t);
  }

  scfw::OuterTraits traits() const override {
    scfw::OuterTraits tr;
    // Euclidean L_F; for p = 1 with n unknown (no oracle yet) it is unknown (inf).
    if (p_ == "1")
      tr.lipschitz = n_ >= 1 ? std::sqrt(static_cast<double>(n_)) : scfw::inf;
    else
      tr.lipschitz = 1.0;
    tr.monotone = false;
    tr.subhomogeneous = true;  // ||g u|| = g ||u||, g >= 0
    tr.depends_on_x = false;
    tr.formula = "F(u) = ||u||_" + p_;
    return tr;
  }

 private:
  std::string p_ = "2";
  int n_ = -1;
};

void register_components(scfw::Registrar& r) {
  r.add<NormOuter>(
      "norm",
      "F(u) = ||u||_p, p in {1, 2, inf} (multi-task norm; L_F = 1 in the matching norm, i.e. "
      "sqrt(n) for p = 1 and 1 for p = 2, inf in the l2 norm; not monotone; LP for p = 1, inf, "
      "a second-order cone for p = 2)",
      {scfw::ParamSpec::choice("p", {"1", "2", "inf"}, "which norm").def("2")});
}

}  // namespace

SCFW_PLUGIN("norm", SCFW_PLUGIN_VERSION, register_components)
