// Domain `box`: X = {x in R^d : lower <= x <= upper}, bounds per coordinate or broadcast.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

// A bound list of length 1 is broadcast to all d coordinates (a JSON scalar arrives as a
// one-element list); length d gives one bound per coordinate.
scfw::Vec bound(const scfw::Params& p, const std::string& name, int d) {
  const std::vector<double> given = scfw::numbers_1_or_d(p, name, d);
  if (given.size() == 1) return scfw::Vec::Constant(d, given[0]);
  return Eigen::Map<const scfw::Vec>(given.data(), d);
}

class Box final : public scfw::Domain {
 public:
  Box(const scfw::Params& p, const scfw::Context& c) {
    d_ = scfw::domain_dimension(p, c);
    lower_ = bound(p, "lower", d_);
    upper_ = bound(p, "upper", d_);
    for (int j = 0; j < d_; ++j)
      if (lower_[j] > upper_[j])
        p.fail("upper", "upper[" + std::to_string(j) + "] = " + scfw::format_number(upper_[j]) + " is below lower[" +
                            std::to_string(j) + "] = " + scfw::format_number(lower_[j]));
  }

  int dim() const override { return d_; }
  /// Every coordinate has bounds of its own.
  bool separates(int j) const override { return j >= 0 && j < d_; }

  // The bounds are variable bounds: no rows at all.
  std::vector<scfw::Expr> model(scfw::Model& m) const override {
    std::vector<scfw::Expr> xs;
    xs.reserve(static_cast<size_t>(d_));
    for (int j = 0; j < d_; ++j)
      xs.emplace_back(m.add_var(lower_[j], upper_[j], "x[" + std::to_string(j) + "]"));
    return xs;
  }

  // Separable: each coordinate goes to the bound that minimizes g_j x_j.
  void lmo(const scfw::Gradient& grad, scfw::Atom& s) const override {
    const scfw::Vec& g = grad.to_dense(g_);
    scfw::Vec& x = s.set_dense(d_);
    for (int j = 0; j < d_; ++j) x[j] = g[j] > 0.0 ? lower_[j] : upper_[j];
  }

  scfw::Vec initial_point() const override { return 0.5 * (lower_ + upper_); }

  bool contains(const scfw::Vec& x, double tol) const override {
    if (x.size() != d_ || !x.allFinite()) return false;
    for (int j = 0; j < d_; ++j)
      if (x[j] < lower_[j] - tol || x[j] > upper_[j] + tol) return false;
    return true;
  }

 private:
  int d_ = 0;
  scfw::Vec lower_, upper_;
  mutable scfw::Vec g_;  // a sparse gradient made dense
};

void register_components(scfw::Registrar& r) {
  r.add<Box>("box", "X = {x : lower <= x <= upper}, a box (bounds per coordinate or one for all)",
             {scfw::ParamSpec::number_list("lower", "lower bounds: one number for all coordinates or d numbers, each in [-1e10, 1e10] (LP bounds)")
                  .range(-1e10, 1e10)
                  .def(std::vector<double>{-1.0}),
              scfw::ParamSpec::number_list("upper", "upper bounds: one number for all coordinates or d numbers, each in [-1e10, 1e10] (LP bounds)")
                  .range(-1e10, 1e10)
                  .def(std::vector<double>{1.0}),
              scfw::ParamSpec::integer("dim", "dimension d (optional: must equal the oracle's d)")
                  .at_least(1)});
}

}  // namespace

SCFW_PLUGIN("box", SCFW_PLUGIN_VERSION, register_components)
