// Outer function `cvar`: F(u) = CVaR_alpha(u), the mean of the worst alpha-fraction of the n
// losses (paper, Section 4, Example "Conditional Value at Risk", after Rockafellar & Uryasev):
//   CVaR_alpha(u) = inf_tau  tau + 1/(alpha n) sum_i max(0, u_i - tau).
// Dual form: max { q^T u : 0 <= q_i <= 1/(alpha n), sum_i q = 1 }, so F is monotone, positively
// homogeneous (hence subhomogeneous) and Lipschitz with
//   |F(u) - F(w)| <= max_q ||q||_2 ||u - w||_2 <= sqrt(||q||_inf ||q||_1) ||u - w||_2
//                 = ||u - w||_2 / sqrt(alpha n) <= ||u - w||_2 / (alpha sqrt(n)),
// in the Euclidean norm. We report the paper's constant L_F = 1/(alpha sqrt(n)) (Section 3,
// "Discussion of the assumptions"); the tighter 1/sqrt(alpha n) also holds.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace {

class CvarOuter final : public scfw::OuterFunction {
 public:
  CvarOuter(const scfw::Params& p, const scfw::Context& c) {
    alpha_ = p.get<double>("alpha");
    n_ = c.outputs;
  }

  // Sorted form: with a = alpha n, k = floor(a) and u_(1) >= u_(2) >= ..., the worst
  // alpha-fraction has mass 1/(alpha n) on each of the k largest and the rest (a - k)/(alpha n)
  // on u_(k+1): F = (sum_{i<=k} u_(i) + (a - k) u_(k+1)) / a. (Equal to the RU formula at
  // tau = u_(ceil(a)).)
  double value(const scfw::Vec& u, const scfw::Vec&) const override {
    const int n = static_cast<int>(u.size());
    if (n == 0) throw scfw::Error("cvar: CVaR needs at least one output (n >= 1)");
    std::vector<double> s(u.data(), u.data() + n);
    std::sort(s.begin(), s.end(), std::greater<double>());
    const double a = alpha_ * n;
    const int k = std::min(n, static_cast<int>(std::floor(a)));
    double sum = 0.0;
    for (int i = 0; i < k; ++i) sum += s[static_cast<size_t>(i)];
    if (k < n) sum += (a - k) * s[static_cast<size_t>(k)];
    return sum / a;
  }

  // Rockafellar-Uryasev LP: tau free, s_i >= 0, s_i >= u_i - tau; minimize
  // tau + 1/(alpha n) sum_i s_i.
  scfw::Expr model(scfw::Model& m, std::span<const scfw::Expr> u,
                   std::span<const scfw::Expr>) const override {
    if (u.empty()) throw scfw::Error("cvar: CVaR needs at least one output (n >= 1)");
    const double w = 1.0 / (alpha_ * static_cast<double>(u.size()));
    const scfw::Var tau = m.add_var(-scfw::inf, scfw::inf, "tau");
    scfw::Expr objective(tau);
    for (size_t i = 0; i < u.size(); ++i) {
      const scfw::Var s = m.add_var(0.0, scfw::inf, "s[" + std::to_string(i) + "]");
      m.add_ge(scfw::Expr(s), u[i] - scfw::Expr(tau));
      objective.add(s, w);
    }
    return objective;
  }

  scfw::OuterTraits traits() const override {
    scfw::OuterTraits tr;
    // Euclidean norm; n unknown (no oracle yet): the n = 1 value, an upper bound for every n.
    tr.lipschitz = 1.0 / (alpha_ * std::sqrt(static_cast<double>(std::max(n_, 1))));
    tr.monotone = true;
    tr.subhomogeneous = true;  // positively homogeneous: F(g u) = g F(u), g >= 0
    tr.depends_on_x = false;
    tr.formula = "F(u) = CVaR_" + scfw::format_number(alpha_) + "(u) = inf_tau tau + 1/(" +
                 scfw::format_number(alpha_) + " n) sum_i max(0, u_i - tau)";
    return tr;
  }

 private:
  double alpha_ = 0.05;
  int n_ = -1;
};

void register_components(scfw::Registrar& r) {
  r.add<CvarOuter>(
      "cvar",
      "F(u) = CVaR_alpha(u) = inf_tau tau + 1/(alpha n) sum_i max(0, u_i - tau), the mean of the "
      "worst alpha-fraction of the n losses (L_F = 1/(alpha sqrt(n)) in the l2 norm; monotone, "
      "positively homogeneous; an LP)",
      {scfw::ParamSpec::number("alpha",
                               "level alpha: the fraction of worst losses averaged; at least 1e-6 (the "
                               "LP weight 1/(alpha n) stays finite, and alpha <= 1/n is already max u)")
           .at_least(1e-6)
           .below(1)
           .def(0.05)});
}

}  // namespace

SCFW_PLUGIN("cvar", SCFW_PLUGIN_VERSION, register_components)
