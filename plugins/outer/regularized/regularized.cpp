// Outer function `regularized`: F(u, x) = u_0 + <c, x> + lambda Xi(x), Xi in {||.||_1, ||.||_2,
// ||.||_inf, 0} (paper, Section 4, Example "Composite Regularized Optimization": F(u, x) =
// u + Xi(x); the linear term <c, x> is an optional deterministic part of the loss). With it the
// GLMO is the composite Frank-Wolfe oracle argmin_x <V_0, x> + <c, x> + lambda Xi(x).
// L_F = 1 (only u_0 enters, with slope 1); monotone in u. Subhomogeneous exactly when
// h(x) = <c, x> + lambda Xi(x) >= 0 for all x, since F(g u, x) - g F(u, x) = (1 - g) h(x): as
// <c, x> >= -||c||_* Xi(x) with equality for some x (||.||_* the dual norm of Xi: linf for l1,
// l2 for l2, l1 for linf), that is ||c||_* <= lambda (c = 0 when Xi = none). (Checked for all x
// in R^d, independently of the domain: the flag may be false where X alone would make it hold.)
// GLMO model: l1, linf: an LP; l2: one second-order cone ||x||_2 <= s.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

class RegularizedOuter final : public scfw::OuterFunction {
 public:
  RegularizedOuter(const scfw::Params& p, const scfw::Context& ctx) {
    kind_ = p.get<std::string>("regularizer");
    lambda_ = p.get<double>("lambda");
    c_ = scfw::LinearTerm(p, ctx.dim);
    dim_ = ctx.dim;
  }

  // ||c||_* for Xi's dual norm (inf for Xi = none: only c = 0 keeps <c, x> >= 0). A broadcast c
  // with unknown d counts as d = 1 (exact once d is known through the problem's oracle).
  double dual_norm_c() const {
    if (kind_ == "none") return scfw::inf;
    const size_t d = c_.given().size() == 1 && dim_ >= 1 ? static_cast<size_t>(dim_) : c_.given().size();
    double l1 = 0.0, l2 = 0.0, li = 0.0;
    for (size_t j = 0; j < d; ++j) {
      const double a = std::abs(c_[j]);
      l1 += a;
      l2 += a * a;
      li = std::max(li, a);
    }
    if (kind_ == "l1") return li;
    if (kind_ == "l2") return std::sqrt(l2);
    return l1;  // linf
  }

  double value(const scfw::Vec& u, const scfw::Vec& x) const override {
    if (u.size() == 0) throw scfw::Error("regularized: F(u, x) = u_0 + ... needs n >= 1");
    c_.check("regularized", static_cast<size_t>(x.size()));
    const double v = c_.add_to(u[0], x);
    return v + lambda_ * scfw::norm_value(kind_, x);
  }

  scfw::Expr model(scfw::Model& m, std::span<const scfw::Expr> u,
                   std::span<const scfw::Expr> x) const override {
    if (u.empty()) throw scfw::Error("regularized: F(u, x) = u_0 + ... needs n >= 1");
    c_.check("regularized", x.size());
    scfw::Expr objective = u[0];
    c_.add_to(objective, x);
    objective += scfw::norm_model(m, kind_, lambda_, x);
    return objective;
  }

  scfw::OuterTraits traits() const override {
    scfw::OuterTraits tr;
    const bool c_zero = c_.zero();
    tr.lipschitz = 1.0;
    tr.monotone = true;
    tr.subhomogeneous = c_zero || dual_norm_c() <= lambda_;
    tr.depends_on_x = !c_zero || (kind_ != "none" && lambda_ > 0.0);
    std::string xi = kind_ == "none" ? "0" : kind_ == "l1" ? "||x||_1" : kind_ == "l2" ? "||x||_2" : "||x||_inf";
    tr.formula = "F(u, x) = u_0 + <c, x> + " + scfw::format_number(lambda_) + " " + xi;
    return tr;
  }

 private:
  std::string kind_ = "l1";
  double lambda_ = 0.1;
  scfw::LinearTerm c_;
  int dim_ = -1;
};

void register_components(scfw::Registrar& r) {
  r.add<RegularizedOuter>(
      "regularized",
      "F(u, x) = u_0 + <c, x> + lambda Xi(x), Xi in {l1, l2, linf, none} (composite regularized "
      "risk; L_F = 1; monotone; subhomogeneous iff ||c||_* <= lambda; LP, or one cone for l2)",
      {scfw::ParamSpec::choice("regularizer", {"l1", "l2", "linf", "none"}, "the norm Xi").def("l1"),
       scfw::ParamSpec::number("lambda", "weight lambda of the regularizer, at most 1e8 (an LP coefficient)")
           .range(0, 1e8)
           .def(0.1),
       scfw::LinearTerm::param()});
}

}  // namespace

SCFW_PLUGIN("regularized", SCFW_PLUGIN_VERSION, register_components)
