// mean_max: an outer function that interpolates between the average loss and the worst one,
//
//   F(u) = (1 - lambda) * mean_i u_i + lambda * max_i u_i,      lambda in [0, 1],
//
// so lambda = 0 is empirical risk minimisation and lambda = 1 the robust minimax of the paper's
// Task 1. Its model for the GLMO is an LP: one free variable t with rows t >= u_i and the
// objective (1 - lambda)/n sum_i u_i + lambda t, whose minimum over t is F(u).
//
// Assumption 2 of the paper: F is 1-Lipschitz in u (|mean(u - v)| and |max u - max v| are both
// at most ||u - v||_inf <= ||u - v||_2), non-decreasing in every u_i, and positively
// homogeneous, hence subhomogeneous.
#include <scfw/plugin.hpp>

namespace {

class MeanMax : public scfw::OuterFunction {
 public:
  MeanMax(const scfw::Params& params, const scfw::Context&) : lambda_(params.get<double>("lambda")) {}

  double value(const scfw::Vec& u, const scfw::Vec&) const override {
    return (1.0 - lambda_) * u.mean() + lambda_ * u.maxCoeff();
  }

  scfw::Expr model(scfw::Model& m, std::span<const scfw::Expr> u, std::span<const scfw::Expr>) const override {
    const double n = static_cast<double>(u.size());
    scfw::Expr objective;
    for (const scfw::Expr& ui : u) objective += ((1.0 - lambda_) / n) * ui;
    if (lambda_ > 0.0) {
      // Epigraph of the max: t >= u_i for every i; the minimum over t is max_i u_i.
      const scfw::Var t = m.add_var(-scfw::inf, scfw::inf, "mean_max.t");
      for (const scfw::Expr& ui : u) m.add_ge(t, ui);
      objective += lambda_ * scfw::Expr(t);
    }
    return objective;
  }

  scfw::OuterTraits traits() const override {
    scfw::OuterTraits t;
    t.lipschitz = 1.0;
    t.monotone = true;
    t.subhomogeneous = true;
    t.depends_on_x = false;
    t.formula = "F(u) = (1 - lambda) mean_i u_i + lambda max_i u_i, lambda = " + std::to_string(lambda_);
    return t;
  }

 private:
  double lambda_;
};

void register_components(scfw::Registrar& r) {
  r.add<MeanMax>("mean_max",
                 "F(u) = (1 - lambda) mean_i u_i + lambda max_i u_i: between average and worst-case loss",
                 {scfw::ParamSpec::number("lambda", "weight of the worst case: 0 is the mean, 1 the max")
                      .range(0.0, 1.0)
                      .def(0.5)});
}

}  // namespace

SCFW_PLUGIN("mean_max", SCFW_PLUGIN_VERSION, register_components)
