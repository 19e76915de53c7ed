// Tracker `storm`: the STORM Jacobian tracker of the paper's appendix "Acceleration via STORM".
//
//   V_k = J~(y_k; xi_k) + (1 - beta_k) [V_{k-1} - J~(y_{k-1}; xi_k)]            (eq. storm_grad)
//   z_k = (1 - rho_k) [z_{k-1} + V_k (y_k - y_{k-1})] + rho_k f~(y_k; xi_k)     (Variant II, Taylor)
//
// The same sample xi_k is evaluated at y_k and at y_{k-1}: the difference of the two Jacobians is
// a stochastic finite-difference correction whose variance shrinks with ||y_k - y_{k-1}|| under
// r-average smoothness (Assumption avg_smooth). With gamma = beta = rho = K^{-r/(2r-1)} (schedule
// `storm`) the rate is O(K^{-(r-1)/(2r-1)}), K^{-1/3} at r = 2 (Theorem storm_rate).
//
// Per update: one draw, two Jacobian evaluations (at y_k with f~, at y_{k-1} without).
// Memory: the sample and two n x d Jacobian buffers, besides z and V.
#include <scfw/scfw.hpp>

#include <memory>

namespace {

class StormTracker final : public scfw::Tracker {
 public:
  StormTracker(const scfw::Params&, const scfw::Context& ctx) {
    // bind() sizes J_ and J_prev_ (n x d each), f_ (n) and dy_ (d).
    ctx.memory.reserve(scfw::add_bytes(scfw::bytes_of({2, ctx.jacobian_size(), 8}), scfw::bytes_of({std::int64_t{ctx.outputs} + ctx.dim, 8})),
                       "the tracker's two Jacobians (2 x " + std::to_string(ctx.outputs) + " x " + std::to_string(ctx.dim) + ")");
  }

  void bind(const scfw::Oracle& oracle) override {
    oracle_ = &oracle;
    const int n = oracle.outputs();
    const int d = oracle.dim();
    sample_ = oracle.make_sample();
    f_.setZero(n);
    J_ = scfw::make_jacobian(oracle);
    J_prev_ = J_;
    dy_.setZero(d);
  }

  // Alg. 1 line 2: z_0 = f~(y_0; xi_0), V_0 = J~(y_0; xi_0).
  void start(const scfw::Vec& y0, scfw::Rng& rng, scfw::Vec& z, scfw::Jacobian& V) override {
    oracle_->draw(rng, *sample_);
    oracle_->evaluate(*sample_, y0, &z, &V);
  }

  void update(long, const scfw::Vec& y, const scfw::Vec& y_prev, const scfw::Steps& steps,
              scfw::Rng& rng, scfw::Vec& z, scfw::Jacobian& V) override {
    oracle_->draw(rng, *sample_);
    oracle_->evaluate(*sample_, y, &f_, &J_);             // f~(y_k; xi_k), J~(y_k; xi_k)
    oracle_->evaluate(*sample_, y_prev, nullptr, &J_prev_);  // J~(y_{k-1}; xi_k), same xi_k

    // eq. storm_grad, in place: V <- J + (1 - beta)(V - J_prev).
    const double keep = 1.0 - steps.beta;
    auto v = V.values();
    v -= J_prev_.values();
    v *= keep;
    v += J_.values();

    // Variant II (Taylor), Alg. 1 line 6, with the new V_k.
    dy_.noalias() = y - y_prev;
    V.multiply_add(dy_, z);
    z *= 1.0 - steps.rho;
    z.noalias() += steps.rho * f_;
  }


 private:
  const scfw::Oracle* oracle_ = nullptr;
  std::unique_ptr<scfw::Sample> sample_;
  scfw::Vec f_, dy_;
  scfw::Jacobian J_, J_prev_;
};

void register_components(scfw::Registrar& r) {
  r.add<StormTracker>(
      "storm",
      "STORM: V_k = J~(y_k; xi_k) + (1 - beta)[V_{k-1} - J~(y_{k-1}; xi_k)], Taylor value tracker "
      "(App. STORM, eq. storm_grad); 2 Jacobians per iteration, rate K^{-1/3} under average smoothness",
      {});
}

}  // namespace

SCFW_PLUGIN("storm", SCFW_PLUGIN_VERSION, register_components)
