// Outer function `penalty`: exact penalty for expectation constraints f_i(x) <= tau_i (paper,
// Appendix "Additional Examples", Example "Exact penalty for stochastic constraints", after
// Cotter et al.):
//   F(u, x) = u_0 + <c, x> + lambda sum_{i=1}^{n-1} max(0, u_i - tau_i),
// u_0 the loss, u_1 .. u_{n-1} the constraint functions.
// Lipschitz in u (Euclidean norm): the subgradients (1, lambda s_1, ..., lambda s_{n-1}) with
// s_i in [0, 1] have norm <= sqrt(1 + lambda^2 (n - 1)) = L_F. Monotone (lambda > 0).
// Subhomogeneous exactly when c = 0 and every tau_i <= 0: max(0, g u - tau) <= g max(0, u - tau)
// for all g >= 1 iff tau <= 0, and <c, x> <= g <c, x> for all x iff c = 0.
// GLMO model: an LP with s_i >= 0, s_i >= u_i - tau_i.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace {

class PenaltyOuter final : public scfw::OuterFunction {
 public:
  PenaltyOuter(const scfw::Params& p, const scfw::Context& ctx) {
    lambda_ = p.get<double>("lambda");
    tau_ = p.get<std::vector<double>>("tau");
    if (tau_.empty()) p.fail("tau", "expected 1 or n - 1 numbers, got none");
    if (ctx.outputs == 1)
      throw scfw::InputError(p.source() + ": " + p.pointer() + ": penalty: F needs n >= 2 outputs (the loss u_0 and at least one constraint), got n = 1");
    if (tau_.size() != 1 && ctx.outputs >= 2 && tau_.size() != static_cast<size_t>(ctx.outputs - 1))
      p.fail("tau", "expected 1 or " + std::to_string(ctx.outputs - 1) +
                        " numbers (one per constraint u_1 .. u_{n-1}), got " + std::to_string(tau_.size()));
    c_ = scfw::LinearTerm(p, ctx.dim);
    n_ = ctx.outputs;
  }

  double tau(size_t i) const { return tau_.size() == 1 ? tau_[0] : tau_[i - 1]; }  // i >= 1
  void check(size_t n, size_t d) const {
    if (n < 2) throw scfw::Error("penalty: F needs n >= 2 outputs, got " + std::to_string(n));
    if (tau_.size() != 1 && tau_.size() != n - 1)
      throw scfw::Error("penalty: tau has " + std::to_string(tau_.size()) + " entries but there are " +
                        std::to_string(n - 1) + " constraints");
    c_.check("penalty", d);
  }

  double value(const scfw::Vec& u, const scfw::Vec& x) const override {
    check(static_cast<size_t>(u.size()), static_cast<size_t>(x.size()));
    const double v = c_.add_to(u[0], x);
    double pen = 0.0;
    for (Eigen::Index i = 1; i < u.size(); ++i) pen += std::max(0.0, u[i] - tau(static_cast<size_t>(i)));
    return v + lambda_ * pen;
  }

  scfw::Expr model(scfw::Model& m, std::span<const scfw::Expr> u,
                   std::span<const scfw::Expr> x) const override {
    check(u.size(), x.size());
    scfw::Expr objective = u[0];
    c_.add_to(objective, x);
    for (size_t i = 1; i < u.size(); ++i) {
      const scfw::Var s = m.add_var(0.0, scfw::inf, "s[" + std::to_string(i) + "]");
      m.add_ge(scfw::Expr(s), u[i] - scfw::Expr(tau(i)));
      objective.add(s, lambda_);
    }
    return objective;
  }

  scfw::OuterTraits traits() const override {
    scfw::OuterTraits tr;
    const bool c_zero = c_.zero();
    bool tau_nonpositive = true;
    for (double v : tau_) tau_nonpositive = tau_nonpositive && v <= 0.0;
    tr.lipschitz = n_ >= 1 ? std::sqrt(1.0 + lambda_ * lambda_ * (n_ - 1)) : scfw::inf;
    tr.monotone = true;
    tr.subhomogeneous = c_zero && tau_nonpositive;
    tr.depends_on_x = !c_zero;
    tr.formula = "F(u, x) = u_0 + <c, x> + " + scfw::format_number(lambda_) + " sum_{i>=1} max(0, u_i - tau_i)";
    return tr;
  }

 private:
  double lambda_ = 1.0;
  std::vector<double> tau_;
  scfw::LinearTerm c_;
  int n_ = -1;
};

void register_components(scfw::Registrar& r) {
  r.add<PenaltyOuter>(
      "penalty",
      "F(u, x) = u_0 + <c, x> + lambda sum_{i>=1} max(0, u_i - tau_i) (exact penalty for "
      "constraints f_i(x) <= tau_i; L_F = sqrt(1 + lambda^2 (n - 1)) in the l2 norm; monotone; "
      "subhomogeneous iff c = 0 and tau <= 0; an LP)",
      {scfw::ParamSpec::number("lambda", "penalty weight lambda, at most 1e8 (an LP coefficient)")
           .positive()
           .at_most(1e8)
           .def(1.0),
       scfw::ParamSpec::number_list("tau", "constraint levels tau_i: one number (broadcast) or n - 1 numbers, "
                                           "each in [-1e12, 1e12] (LP right-hand sides)")
           .range(-1e12, 1e12)
           .def(std::vector<double>{0.0}),
       scfw::LinearTerm::param()});
}

}  // namespace

SCFW_PLUGIN("penalty", SCFW_PLUGIN_VERSION, register_components)
