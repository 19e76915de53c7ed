// Outer function `dro_chi2`: chi^2 distributionally robust loss (paper, Section 4, Example
// "Distributionally Robust Optimization", after Namkoong & Duchi):
//   F(u) = sup { q^T u : q in the simplex, D(q, 1/n) <= rho },
// with the divergence convention (Pearson's chi^2)
//   D(q, p) = sum_i (q_i - p_i)^2 / p_i = n ||q - 1/n||_2^2   (p = 1/n),
// i.e. the ball ||q - 1/n||_2 <= r, r = sqrt(rho / n). Because sum_i (q_i - 1/n) = 0,
// ||q||^2 = ||q - 1/n||^2 + 1/n <= (1 + rho)/n, so F is Lipschitz with
// L_F = sqrt((1 + rho)/n) in the Euclidean norm (the paper's constant). (With the other common
// convention D = (1/2) sum (q_i - p_i)^2 / p_i the bound would be sqrt((1 + 2 rho)/n).)
// Monotone (q >= 0) and positively homogeneous (a support function), hence subhomogeneous.
//
// GLMO model by duality (strong duality: q = 1/n is strictly feasible):
//   F(u) = min_{eta free, mu >= 0}  mean(u) + mean(mu) + r ||u + mu - eta 1||_2,
// derived from max_{||q - p|| <= r} q^T w = p^T w + r ||w|| with w = u + mu - eta 1 (mu the
// multipliers of q >= 0, eta that of sum q = 1). One second-order cone: ||u + mu - eta 1|| <= s.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace {

class DroChi2Outer final : public scfw::OuterFunction {
 public:
  DroChi2Outer(const scfw::Params& p, const scfw::Context& c) {
    rho_ = p.get<double>("rho");
    n_ = c.outputs;
  }

  // The supremum in closed form. The maximizer is q = p + r (w / ||w||) restricted to the
  // support where it is positive; equivalently, for the active set S of the k largest u_i,
  // q_i = 1/k + r_S (u_i - mean_S u) / ||u_S - mean_S u||_2 with the mass outside S zero,
  // where ||q_S - 1/n||^2 + (n - k)/n^2 = r^2 fixes r_S. We compute it by trying k = n, n-1, ...
  // (largest first) and keeping the first candidate that is a valid q (q_i >= 0 on S and the
  // KKT sign condition at the excluded entries); k = 1 is the vertex e_argmax (F = max u) when
  // the ball contains it.
  //
  // The mean m_k and the sum of squared deviations ss_k = sum_S (s_i - m_k)^2 of the top k are
  // updated one entry at a time (Welford): ss_k = ss_{k-1} + (s_k - m_{k-1}) (s_k - m_k) adds
  // nonnegative terms, so it keeps its relative accuracy when the top entries nearly tie. The
  // textbook sum(s^2) - k m^2 cancels there (issue #12: value() came out -inf or off by 1e-8).
  // With c = sqrt(budget / ss): sum_S q_i s_i = m + c ss = m + sqrt(budget ss), and the
  // validity test c (s_k - m) reads sqrt(budget) (s_k - m) / sqrt(ss), both free of 1/ss.
  double value(const scfw::Vec& u, const scfw::Vec&) const override {
    const int n = static_cast<int>(u.size());
    if (n == 0) throw scfw::Error("dro_chi2: the chi^2 ball needs at least one output (n >= 1)");
    const double r2 = rho_ / n;
    std::vector<double> s(u.data(), u.data() + n);
    std::sort(s.begin(), s.end(), std::greater<double>());
    // If the vertex e_1 is in the ball, F = max u: ||e_1 - 1/n||^2 = (n - 1)/n.
    if ((n - 1.0) / n <= r2 || n == 1) return s[0];
    std::vector<double> mean(static_cast<size_t>(n) + 1, 0.0), dev2(static_cast<size_t>(n) + 1, 0.0);
    for (int k = 1; k <= n; ++k) {
      const double v = s[static_cast<size_t>(k) - 1];
      const double m_prev = mean[static_cast<size_t>(k) - 1];
      const double m = m_prev + (v - m_prev) / k;
      mean[static_cast<size_t>(k)] = m;
      dev2[static_cast<size_t>(k)] = dev2[static_cast<size_t>(k) - 1] + (v - m_prev) * (v - m);
    }
    double best = -scfw::inf;
    for (int k = n; k >= 1; --k) {
      // On S = top k: q_i = 1/k + c (s_i - m), c >= 0, with the budget
      // ||q_S - 1/n||^2 + (n - k)/n^2 = r2, and ||q_S - 1/n||^2 = k (1/k - 1/n)^2 + c^2 var_S.
      const double m = mean[static_cast<size_t>(k)];
      const double ss = dev2[static_cast<size_t>(k)];  // sum (s_i - m)^2, >= 0
      const double budget = r2 - (n - k) / (double(n) * n) - k * std::pow(1.0 / k - 1.0 / n, 2);
      if (budget < -1e-15) continue;  // even the uniform q on S lies outside the ball
      const double root_budget = std::sqrt(std::max(0.0, budget)), root_ss = std::sqrt(ss);
      // Validity: q_i >= 0 on S (the smallest entry of S is s_k).
      if (root_ss > 0.0 && 1.0 / k + root_budget * ((s[static_cast<size_t>(k) - 1] - m) / root_ss) < -1e-12)
        continue;
      const double val = m + root_budget * root_ss;  // sum_S q_i s_i = m + c sum (s_i - m)^2
      best = std::max(best, val);
    }
    return best;
  }

  scfw::Expr model(scfw::Model& m, std::span<const scfw::Expr> u,
                   std::span<const scfw::Expr>) const override {
    if (u.empty()) throw scfw::Error("dro_chi2: the chi^2 ball needs at least one output (n >= 1)");
    const double n = static_cast<double>(u.size());
    const double r = std::sqrt(rho_ / n);
    const scfw::Var eta = m.add_var(-scfw::inf, scfw::inf, "eta");
    const scfw::Var s = m.add_var(0.0, scfw::inf, "s");
    scfw::Expr objective;
    objective.add(s, r);
    std::vector<scfw::Expr> w;
    w.reserve(u.size());
    for (size_t i = 0; i < u.size(); ++i) {
      const scfw::Var mu = m.add_var(0.0, scfw::inf, "mu[" + std::to_string(i) + "]");
      objective += (1.0 / n) * u[i];
      objective.add(mu, 1.0 / n);
      w.push_back(u[i] + scfw::Expr(mu) - scfw::Expr(eta));
    }
    m.add_second_order_cone(scfw::Expr(s), std::move(w));
    return objective;
  }

  scfw::OuterTraits traits() const override {
    scfw::OuterTraits tr;
    // Euclidean norm; n unknown (no oracle yet): the n = 1 value, an upper bound for every n.
    tr.lipschitz = std::sqrt((1.0 + rho_) / static_cast<double>(std::max(n_, 1)));
    tr.monotone = true;
    tr.subhomogeneous = true;  // a support function: F(g u) = g F(u), g >= 0
    tr.depends_on_x = false;
    tr.formula =
        "F(u) = sup { q^T u : q in simplex, sum_i (q_i - 1/n)^2 / (1/n) <= " + scfw::format_number(rho_) + " }";
    return tr;
  }

 private:
  double rho_ = 1.0;
  int n_ = -1;
};

void register_components(scfw::Registrar& r) {
  r.add<DroChi2Outer>(
      "dro_chi2",
      "F(u) = sup { q^T u : q in simplex, D(q, 1/n) <= rho } with D(q, p) = sum_i (q_i - p_i)^2 / "
      "p_i (chi^2-DRO; L_F = sqrt((1 + rho)/n) in the l2 norm; monotone, positively homogeneous; "
      "an SOCP by duality)",
      {scfw::ParamSpec::number("rho",
                               "radius rho of the chi^2 ball around the uniform distribution, at most 1e6 "
                               "(rho >= n - 1 already gives F = max u)")
           .positive()
           .at_most(1e6)
           .def(1.0)});
}

}  // namespace

SCFW_PLUGIN("dro_chi2", SCFW_PLUGIN_VERSION, register_components)
