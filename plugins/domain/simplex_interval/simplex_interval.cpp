// Domain `simplex_interval`: X = Delta_{d-1} x [lower, upper], the domain of the paper's Task 2
// (CVaR portfolio, Section 6): the first d-1 coordinates are portfolio weights w (w >= 0,
// sum w = 1) and the last is the CVaR threshold y0 in [lower, upper] (the paper: [-1, 1]).
//
// This is the one cartesian product the paper needs. A general `product` domain (composing other
// domain plugins) needs the composer to construct the factors and hand them over; a plugin
// cannot construct other plugins itself.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace {

class SimplexInterval final : public scfw::Domain {
 public:
  SimplexInterval(const scfw::Params& p, const scfw::Context& c) {
    lo_ = p.get<double>("lower");
    hi_ = p.get<double>("upper");
    if (lo_ > hi_)
      p.fail("upper", "is below lower = " + scfw::format_number(lo_) + ": got " + scfw::format_number(hi_));
    if (p.has("dim")) {
      const int dim = p.get<int>("dim");  // >= 2 (assets and the threshold), as declared
      if (c.dim >= 1 && dim != c.dim)
        p.fail("dim", "the domain has dimension " + std::to_string(dim) + " but the oracle has dimension " +
                          std::to_string(c.dim));
      d_ = dim;
    } else {
      if (c.dim < 1) p.fail("dim", "the dimension is unknown: give \"dim\"");
      if (c.dim < 2) p.fail("dim", "the oracle has dimension " + std::to_string(c.dim) + "; simplex_interval needs d >= 2");
      d_ = c.dim;
    }
  }

  int dim() const override { return d_; }
  /// The last coordinate is the interval's.
  bool separates(int j) const override { return j == d_ - 1; }

  std::vector<scfw::Expr> model(scfw::Model& m) const override {
    std::vector<scfw::Expr> xs;
    xs.reserve(static_cast<size_t>(d_));
    scfw::Expr total;
    for (int j = 0; j + 1 < d_; ++j) {
      const scfw::Var w = m.add_var(0.0, 1.0, "w[" + std::to_string(j) + "]");
      xs.emplace_back(w);
      total.add(w, 1.0);
    }
    m.add_row(std::move(total), 1.0, 1.0);
    xs.emplace_back(m.add_var(lo_, hi_, "y0"));
    return xs;
  }

  // The product's LMO is the product of the LMOs: e_j at j = argmin g_j on the simplex and the
  // endpoint of [lower, upper] that minimizes g_last * y0 (lower when g_last >= 0).
  void lmo(const scfw::Gradient& grad, scfw::Atom& s) const override {
    const scfw::Vec& g = grad.to_dense(g_);
    scfw::Vec& x = s.set_dense(d_);
    x.setZero();
    Eigen::Index j = 0;
    g.head(d_ - 1).minCoeff(&j);
    x[j] = 1.0;
    x[d_ - 1] = g[d_ - 1] < 0.0 ? hi_ : lo_;
  }

  scfw::Vec initial_point() const override {
    scfw::Vec x = scfw::Vec::Constant(d_, 1.0 / (d_ - 1));
    x[d_ - 1] = std::clamp(0.0, lo_, hi_);
    return x;
  }


  bool contains(const scfw::Vec& x, double tol) const override {
    if (x.size() != d_ || !x.allFinite()) return false;
    const auto w = x.head(d_ - 1);
    return w.minCoeff() >= -tol && std::abs(w.sum() - 1.0) <= tol && x[d_ - 1] >= lo_ - tol && x[d_ - 1] <= hi_ + tol;
  }

 private:
  double lo_ = -1.0, hi_ = 1.0;
  int d_ = 2;
  mutable scfw::Vec g_;  // a sparse gradient made dense
};

void register_components(scfw::Registrar& r) {
  using scfw::ParamSpec;
  r.add<SimplexInterval>(
      "simplex_interval",
      "X = {(w, y0) : w >= 0, sum w = 1, lower <= y0 <= upper}, simplex x interval (Task 2's domain)",
      {ParamSpec::number("lower", "lower end of the last coordinate's interval, in [-1e10, 1e10] (an LP bound)")
           .range(-1e10, 1e10)
           .def(-1.0),
       ParamSpec::number("upper", "upper end of the last coordinate's interval, in [-1e10, 1e10] (an LP bound)")
           .range(-1e10, 1e10)
           .def(1.0),
       ParamSpec::integer("dim", "dimension d = assets + 1 (optional: must equal the oracle's d)").at_least(2)});
}

}  // namespace

SCFW_PLUGIN("simplex_interval", SCFW_PLUGIN_VERSION, register_components)
