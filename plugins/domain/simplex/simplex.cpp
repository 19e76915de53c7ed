// Domain `simplex`: X = {x in R^d : x >= 0, sum_j x_j = scale}, the (scaled) probability simplex.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <cmath>
#include <cstdint>
#include <string>

namespace {

class Simplex final : public scfw::Domain {
 public:
  Simplex(const scfw::Params& p, const scfw::Context& c) {
    scale_ = p.get<double>("scale");
    d_ = scfw::domain_dimension(p, c);
  }

  int dim() const override { return d_; }

  // x_j in [0, scale] (the upper bound is implied; stating it helps the simplex method) and
  // one equality row sum_j x_j = scale.
  std::vector<scfw::Expr> model(scfw::Model& m) const override {
    std::vector<scfw::Expr> xs;
    xs.reserve(static_cast<size_t>(d_));
    scfw::Expr total;
    for (int j = 0; j < d_; ++j) {
      const scfw::Var xj = m.add_var(0.0, scale_, "x[" + std::to_string(j) + "]");
      xs.emplace_back(xj);
      total.add(xj, 1.0);
    }
    m.add_row(std::move(total), scale_, scale_);
    return xs;
  }

  // argmin over the simplex of <g, x> = scale e_j at the first j = argmin_j g_j. A sparse g is 0
  // off its non-zeros: the same vertex in O(g's non-zeros), answered as a one-entry Sparse atom;
  // a dense g gets the dense vertex.
  scfw::Capabilities capabilities() const override { return Domain::capabilities() | scfw::Capability::CompactAtoms; }
  void lmo(const scfw::Gradient& grad, scfw::Atom& s) const override {
    if (grad.is_dense()) {
      scfw::Vec& x = s.set_dense(d_);
      x.setZero();
      if (d_ == 0) return;
      Eigen::Index j = 0;
      grad.dense().minCoeff(&j);
      x[j] = scale_;
      return;
    }
    const auto index = grad.index();
    const auto value = grad.value();
    // The first coordinate not listed (g_j = 0 there), d_ if every coordinate is listed.
    int first_free = 0;
    for (size_t k = 0; k < index.size() && index[k] == first_free; ++k) ++first_free;
    int j = first_free < d_ ? first_free : -1;
    double best = first_free < d_ ? 0.0 : scfw::inf;
    for (size_t k = 0; k < index.size(); ++k)
      if (value[k] < best || (value[k] == best && (j < 0 || index[k] < j))) {
        best = value[k];
        j = index[k];
      }
    s.set_sparse(d_);
    if (d_ > 0) s.push(j < 0 ? 0 : j, scale_);
  }

  scfw::Vec initial_point() const override { return scfw::Vec::Constant(d_, scale_ / d_); }

  bool contains(const scfw::Vec& x, double tol) const override {
    return x.size() == d_ && x.allFinite() && x.minCoeff() >= -tol &&
           std::abs(x.sum() - scale_) <= tol;
  }

 private:
  double scale_ = 1.0;
  int d_ = 0;
};

void register_components(scfw::Registrar& r) {
  r.add<Simplex>("simplex",
                 "X = {x : x >= 0, sum_j x_j = scale}, the scaled probability simplex",
                 {scfw::ParamSpec::number("scale", "the sum of the coordinates, at most 1e10 (an LP bound)")
                      .positive()
                      .at_most(1e10)
                      .def(1.0),
                  scfw::ParamSpec::integer("dim", "dimension d (optional: must equal the oracle's d)")
                      .at_least(1)});
}

}  // namespace

SCFW_PLUGIN("simplex", SCFW_PLUGIN_VERSION, register_components)
