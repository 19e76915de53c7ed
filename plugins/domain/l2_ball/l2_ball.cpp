// Domain `l2_ball`: X = {x in R^d : ||x||_2 <= radius}. Its model is one second-order cone, which
// the `clp` GLMO solves by outer-approximation cuts (plugins/glmo/clp/clp.cpp); its LMO is closed form.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <cmath>
#include <cstdint>
#include <string>

namespace {

class L2Ball final : public scfw::Domain {
 public:
  L2Ball(const scfw::Params& p, const scfw::Context& c) {
    radius_ = p.get<double>("radius");
    d_ = scfw::domain_dimension(p, c);
  }

  int dim() const override { return d_; }

  // Variables x_j in [-radius, radius] (implied by the ball; they keep every LP relaxation
  // bounded; measured: free variables made the clp cut loop slower, not faster) and the cone
  // ||x||_2 <= radius.
  std::vector<scfw::Expr> model(scfw::Model& m) const override {
    std::vector<scfw::Expr> xs;
    xs.reserve(static_cast<size_t>(d_));
    for (int j = 0; j < d_; ++j)
      xs.emplace_back(m.add_var(-radius_, radius_, "x[" + std::to_string(j) + "]"));
    m.add_second_order_cone(scfw::Expr(radius_), xs);
    return xs;
  }

  // argmin_{||x|| <= r} <g, x> = -r g / ||g||; when g = 0 every point is a minimizer and the
  // boundary point -r e_1 is returned, so that Frank-Wolfe steps still go to an extreme point.
  void lmo(const scfw::Gradient& grad, scfw::Atom& s) const override {
    const scfw::Vec& g = grad.to_dense(g_);
    scfw::Vec& x = s.set_dense(d_);
    x.setZero();
    if (d_ == 0) return;
    const double norm = g.norm();
    if (norm > 0.0 && std::isfinite(norm))
      x = -radius_ / norm * g;
    else
      x[0] = -radius_;
  }

  scfw::Vec initial_point() const override { return scfw::Vec::Zero(d_); }

  bool contains(const scfw::Vec& x, double tol) const override {
    return x.size() == d_ && x.allFinite() && x.norm() <= radius_ + tol;
  }

 private:
  double radius_ = 1.0;
  int d_ = 0;
  mutable scfw::Vec g_;  // a sparse gradient made dense
};

void register_components(scfw::Registrar& r) {
  r.add<L2Ball>("l2_ball",
                "X = {x : ||x||_2 <= radius}, the Euclidean ball (LMO -radius g/||g||; one second-order cone in the GLMO model)",
                {scfw::ParamSpec::number("radius", "radius of the ball (at most 1e10: an LP bound)").above(0).at_most(1e10).def(1.0),
                 scfw::ParamSpec::integer("dim", "dimension d (optional: must equal the oracle's d)")
                     .at_least(1)});
}

}  // namespace

SCFW_PLUGIN("l2_ball", SCFW_PLUGIN_VERSION, register_components)
