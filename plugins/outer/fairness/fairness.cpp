// Outer function `fairness`: fairness-constrained learning (paper, Appendix "Additional
// Examples", Example "Fairness-constrained learning", after Agarwal et al. and Donini et al.):
//   F(u, x) = u_0 + lambda max_{1 <= i <= n-1} |u_i - u_0| + mu Xi(x),
// u_0 the overall loss, u_1 .. u_{n-1} the group losses, Xi in {||.||_1, ||.||_2, ||.||_inf, 0}
// (the paper's generic regularizer Xi(x), here a norm with weight mu).
// Lipschitz in u (Euclidean norm): the subgradients are e_0 + s lambda (e_i - e_0), s = +-1, of
// norm at most sqrt((1 + lambda)^2 + lambda^2), which is L_F.
// NOT monotone for lambda > 0 (raising a u_i that lies below u_0 lowers |u_i - u_0|), so the
// flag is lambda == 0. Subhomogeneous: the u-part is positively homogeneous and mu Xi(x) >= 0,
// so F(g u, x) = g (u-part) + mu Xi(x) <= g F(u, x) for g >= 1.
// GLMO model: an LP (t >= +-(u_i - u_0)) plus the regularizer's rows (one cone for l2).
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace {

class FairnessOuter final : public scfw::OuterFunction {
 public:
  FairnessOuter(const scfw::Params& p, const scfw::Context& ctx) {
    lambda_ = p.get<double>("lambda");
    kind_ = p.get<std::string>("regularizer");
    mu_ = p.get<double>("mu");
    if (ctx.outputs == 1)
      throw scfw::InputError(p.source() + ": " + p.pointer() + ": fairness: F needs n >= 2 outputs (u_0 and at least one group loss), got n = 1");
  }

  double value(const scfw::Vec& u, const scfw::Vec& x) const override {
    if (u.size() < 2) throw scfw::Error("fairness: F needs n >= 2 outputs, got " + std::to_string(u.size()));
    double worst = 0.0;
    for (Eigen::Index i = 1; i < u.size(); ++i) worst = std::max(worst, std::abs(u[i] - u[0]));
    return u[0] + lambda_ * worst + mu_ * scfw::norm_value(kind_, x);
  }

  scfw::Expr model(scfw::Model& m, std::span<const scfw::Expr> u,
                   std::span<const scfw::Expr> x) const override {
    if (u.size() < 2) throw scfw::Error("fairness: F needs n >= 2 outputs, got " + std::to_string(u.size()));
    scfw::Expr objective = u[0];
    if (lambda_ > 0.0) {
      const scfw::Var t = m.add_var(0.0, scfw::inf, "t");
      for (size_t i = 1; i < u.size(); ++i) {
        m.add_ge(scfw::Expr(t), u[i] - u[0]);
        m.add_ge(scfw::Expr(t), u[0] - u[i]);
      }
      objective.add(t, lambda_);
    }
    objective += scfw::norm_model(m, kind_, mu_, x);
    return objective;
  }

  scfw::OuterTraits traits() const override {
    scfw::OuterTraits tr;
    tr.lipschitz = std::sqrt((1.0 + lambda_) * (1.0 + lambda_) + lambda_ * lambda_);
    tr.monotone = lambda_ == 0.0;
    tr.subhomogeneous = true;
    tr.depends_on_x = kind_ != "none" && mu_ > 0.0;
    const std::string xi = kind_ == "none" ? "0" : kind_ == "l1" ? "||x||_1" : kind_ == "l2" ? "||x||_2" : "||x||_inf";
    tr.formula = "F(u, x) = u_0 + " + scfw::format_number(lambda_) + " max_{i>=1} |u_i - u_0| + " +
                 scfw::format_number(mu_) + " " + xi;
    return tr;
  }

 private:
  double lambda_ = 1.0;
  std::string kind_ = "none";
  double mu_ = 0.1;
};

void register_components(scfw::Registrar& r) {
  r.add<FairnessOuter>(
      "fairness",
      "F(u, x) = u_0 + lambda max_{i>=1} |u_i - u_0| + mu Xi(x) (fairness-constrained ERM; L_F = "
      "sqrt((1 + lambda)^2 + lambda^2) in the l2 norm; not monotone for lambda > 0; "
      "subhomogeneous; LP, or one cone for Xi = l2)",
      {scfw::ParamSpec::number("lambda", "weight lambda of the largest group-loss gap, at most 1e8 (an LP coefficient)")
           .range(0, 1e8)
           .def(1.0),
       scfw::ParamSpec::choice("regularizer", {"l1", "l2", "linf", "none"}, "the norm Xi").def("none"),
       scfw::ParamSpec::number("mu", "weight mu of the regularizer Xi, at most 1e8 (an LP coefficient)")
           .range(0, 1e8)
           .def(0.1)});
}

}  // namespace

SCFW_PLUGIN("fairness", SCFW_PLUGIN_VERSION, register_components)
