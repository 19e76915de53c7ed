// Domain `l1_ball`: X = {x in R^d : ||x||_1 <= radius}, the sparsity-inducing domain of the
// paper's robust minimax example (Section 4, Example "Robust Minimax Optimization").
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <cmath>
#include <cstdint>
#include <string>

namespace {

class L1Ball final : public scfw::Domain {
 public:
  L1Ball(const scfw::Params& p, const scfw::Context& c) {
    radius_ = p.get<double>("radius");
    d_ = scfw::domain_dimension(p, c);
  }

  int dim() const override { return d_; }

  // x_j = p_j - q_j with p, q in [0, radius] and sum_j (p_j + q_j) <= radius: one row instead
  // of the 2^d facets. At a vertex at most one of p_j, q_j is nonzero, so the sum is ||x||_1.
  std::vector<scfw::Expr> model(scfw::Model& m) const override {
    std::vector<scfw::Expr> xs(static_cast<size_t>(d_));
    scfw::Expr total;
    for (int j = 0; j < d_; ++j) {
      const scfw::Var pj = m.add_var(0.0, radius_, "p[" + std::to_string(j) + "]");
      const scfw::Var qj = m.add_var(0.0, radius_, "q[" + std::to_string(j) + "]");
      xs[static_cast<size_t>(j)].add(pj, 1.0).add(qj, -1.0);
      total.add(pj, 1.0).add(qj, 1.0);
    }
    m.add_row(std::move(total), -scfw::inf, radius_);
    return xs;
  }

  // argmin_{||x||_1 <= r} <g, x> = -r sign(g_j) e_j at the first j = argmax_j |g_j| (a vertex
  // even when g = 0, j = 0 then, so Frank-Wolfe steps always go to an extreme point). A sparse g's
  // largest |g_j| is among its non-zeros unless they are all 0: the same vertex in O(g's
  // non-zeros), answered as a one-entry Sparse atom; a dense g gets the dense vertex.
  scfw::Capabilities capabilities() const override { return Domain::capabilities() | scfw::Capability::CompactAtoms; }
  void lmo(const scfw::Gradient& grad, scfw::Atom& s) const override {
    if (grad.is_dense()) {
      const scfw::Vec& g = grad.dense();
      scfw::Vec& x = s.set_dense(d_);
      x.setZero();
      if (d_ == 0) return;
      Eigen::Index j = 0;
      g.cwiseAbs().maxCoeff(&j);
      x[j] = g[j] > 0.0 ? -radius_ : radius_;
      return;
    }
    s.set_sparse(d_);
    if (d_ == 0) return;
    int j = 0;
    double best = 0.0, gj = 0.0;
    for (size_t k = 0; k < grad.index().size(); ++k)
      if (std::abs(grad.value()[k]) > best) {
        best = std::abs(grad.value()[k]);
        j = grad.index()[k];
        gj = grad.value()[k];
      }
    s.push(j, gj > 0.0 ? -radius_ : radius_);
  }

  scfw::Vec initial_point() const override { return scfw::Vec::Zero(d_); }

  bool contains(const scfw::Vec& x, double tol) const override {
    return x.size() == d_ && x.allFinite() && x.lpNorm<1>() <= radius_ + tol;
  }

 private:
  double radius_ = 1.0;
  int d_ = 0;
};

void register_components(scfw::Registrar& r) {
  r.add<L1Ball>("l1_ball", "X = {x : ||x||_1 <= radius}, the l1 ball (sparse x)",
                {scfw::ParamSpec::number("radius", "radius of the ball (at most 1e10: an LP bound)").above(0).at_most(1e10).def(1.0),
                 scfw::ParamSpec::integer("dim", "dimension d (optional: must equal the oracle's d)")
                     .at_least(1)});
}

}  // namespace

SCFW_PLUGIN("l1_ball", SCFW_PLUGIN_VERSION, register_components)
