// Outer function `cvar_ru`: the Rockafellar-Uryasev CVaR with the threshold carried in x, the
// outer function of the paper's Task 2 (Section 6):
//
//   F(u, x) = y0 + 1 / ((1 - alpha) n) * sum_i max(0, u_i - y0),     y0 = x_{d-1} (the last
//                                                                    coordinate of x)
//
// With u_i the expected loss of scenario group i, min over (w, y0) of F is CVaR_alpha of the
// group losses (Rockafellar & Uryasev 2000). alpha follows the paper's Task 2 convention: the
// tail fraction is 1 - alpha (alpha = 0.95: the worst 5%).
//
// Model: s_i >= 0, s_i >= u_i - y0, objective y0 + c sum_i s_i with c = 1/((1 - alpha) n): an LP.
// Traits: monotone in u; L_F = c sqrt(n) = 1/((1 - alpha) sqrt(n)) (its gradient in u has n
// components of size <= c); not subhomogeneous in general (y0 < 0 breaks it); depends on x.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

class CvarRu final : public scfw::OuterFunction {
 public:
  CvarRu(const scfw::Params& p, const scfw::Context& c) {
    alpha_ = p.get<double>("alpha");
    if (c.dim >= 0 && c.dim < 1)
      p.fail("alpha", "cvar_ru reads the threshold y0 from the last coordinate of x, but d = " + std::to_string(c.dim));
    n_hint_ = c.outputs;
  }

  double value(const scfw::Vec& u, const scfw::Vec& x) const override {
    if (x.size() < 1) throw scfw::Error("cvar_ru: x is empty; the threshold y0 is its last coordinate");
    const double y0 = x[x.size() - 1];
    double s = 0.0;
    for (Eigen::Index i = 0; i < u.size(); ++i) s += std::max(0.0, u[i] - y0);
    return y0 + s / ((1.0 - alpha_) * static_cast<double>(u.size()));
  }

  scfw::Expr model(scfw::Model& m, std::span<const scfw::Expr> u, std::span<const scfw::Expr> x) const override {
    if (x.empty()) throw scfw::Error("cvar_ru: x is empty; the threshold y0 is its last coordinate");
    const scfw::Expr& y0 = x.back();
    const double c = 1.0 / ((1.0 - alpha_) * static_cast<double>(u.size()));
    scfw::Expr objective = y0;
    for (size_t i = 0; i < u.size(); ++i) {
      const scfw::Var s = m.add_var(0.0, scfw::inf, "s[" + std::to_string(i) + "]");
      m.add_ge(scfw::Expr(s), u[i] - y0);
      objective.add(s, c);
    }
    return objective;
  }

  scfw::OuterTraits traits() const override {
    scfw::OuterTraits t;
    t.monotone = true;
    t.subhomogeneous = false;
    t.depends_on_x = true;
    t.lipschitz = n_hint_ >= 1 ? 1.0 / ((1.0 - alpha_) * std::sqrt(static_cast<double>(n_hint_))) : 1.0 / (1.0 - alpha_);
    t.formula = "F(u, x) = y0 + 1/((1 - " + scfw::format_number(alpha_) + ") n) sum_i max(0, u_i - y0), y0 = x_last";
    return t;
  }

  /// y0 = x[d-1], which the oracle must declare as the CVaR threshold (portfolio_returns does).
  std::vector<scfw::AuxiliaryVariable> reads_auxiliary(int d) const override {
    return {{d - 1, "cvar_threshold", "the CVaR threshold y0",
             "use \"cvar\", the same CVaR with its threshold inside the outer function (its alpha is the tail "
             "fraction: cvar_ru's alpha 0.95 is cvar's 0.05)"}};
  }

 private:
  double alpha_ = 0.95;
  int n_hint_ = -1;
};

void register_components(scfw::Registrar& r) {
  r.add<CvarRu>("cvar_ru",
                "F(u, x) = y0 + 1/((1-alpha) n) sum_i max(0, u_i - y0) with y0 = x_last: Rockafellar-Uryasev CVaR "
                "(Task 2)",
                {scfw::ParamSpec::number("alpha",
                                         "confidence level; the tail fraction 1 - alpha (paper: alpha = 0.95) is "
                                         "at least 1e-6, so the LP weight 1/((1-alpha) n) stays finite")
                     .at_least(0)
                     .at_most(1 - 1e-6)
                     .def(0.95)});
}

}  // namespace

SCFW_PLUGIN("cvar_ru", SCFW_PLUGIN_VERSION, register_components)
