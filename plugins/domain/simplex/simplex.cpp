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

  // argmin over the simplex of <g, x> = scale e_j at j = argmin_j g_j.
  void lmo(const scfw::Vec& g, scfw::Vec& x) const override {
    x.setZero(d_);
    if (d_ == 0) return;
    Eigen::Index j = 0;
    g.minCoeff(&j);
    x[j] = scale_;
  }

  // Compact atoms: the vertex scale e_j at the first j of the smallest g_j, where g is 0 off its
  // non-zeros' indices: the same vertex as lmo() on the dense g, in O(g's non-zeros).
  scfw::Capabilities capabilities() const override { return Domain::capabilities() | scfw::Capability::CompactAtoms; }
  void lmo_sparse(const scfw::SparseGradient& g, scfw::Atom& s) const override {
    // The first coordinate not listed (g_j = 0 there), d_ if every coordinate is listed.
    int first_free = 0;
    for (size_t k = 0; k < g.index.size() && g.index[k] == first_free; ++k) ++first_free;
    int j = first_free < d_ ? first_free : -1;
    double best = first_free < d_ ? 0.0 : scfw::inf;
    for (size_t k = 0; k < g.index.size(); ++k)
      if (g.value[k] < best || (g.value[k] == best && (j < 0 || g.index[k] < j))) {
        best = g.value[k];
        j = g.index[k];
      }
    s.set_sparse(d_);
    s.push(j < 0 ? 0 : j, scale_);
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
