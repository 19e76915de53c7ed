// Tracker `hessian`: the Hessian-corrected momentum of the paper's appendix "Hessian-Corrected
// Momentum and the Average-Smoothness Equivalence".
//
//   alpha_k ~ U(0, 1),  y_{alpha,k} = y_{k-1} + alpha_k (y_k - y_{k-1}),  zeta_k independent of xi_k
//   H~_k [y_k - y_{k-1}] = Hessian of f~(.; zeta_k) at y_{alpha,k} applied to y_k - y_{k-1}
//   V_k = (1 - beta) V_{k-1} + beta J~(y_k; xi_k) + (1 - beta) H~_k (y_k - y_{k-1})  (eq. hessian_grad)
//   z_k = (1 - rho) [z_{k-1} + V_k (y_k - y_{k-1})] + rho f~(y_k; xi_k)              (Variant II, Taylor)
//
// The correction is an unbiased estimate of J(y_k) - J(y_{k-1}) (Lemma hessian_unbiased: the
// fundamental theorem of calculus along the segment, sampled at a uniform point). With
// gamma = beta = rho = K^{-r/(2r-1)} the rate is O(K^{-(r-1)/(2r-1)}) (Theorem hessian_rate).
//
// Random stream per update, in this order: xi_k (oracle draw), alpha_k (one 64-bit word of the
// engine, alpha = (word >> 11) * 2^-53 in [0, 1)), zeta_k (oracle draw).
// Per update: two draws, one value + Jacobian evaluation, one Hessian action.
// Memory: two samples, the Jacobian J~(y_k; xi_k), the n x d Hessian action, y_alpha and
// y_k - y_{k-1}, besides z and V.
#include <scfw/scfw.hpp>

#include <memory>

namespace {

/// alpha ~ U[0, 1) from one engine word, written out so that a test (or a reader) can reproduce
/// the stream without depending on a standard library's uniform_real_distribution.
double uniform01(scfw::Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

class HessianTracker final : public scfw::Tracker {
 public:
  HessianTracker(const scfw::Params&, const scfw::Context& ctx) {
    // bind() sizes J_ and HV_ (n x d each), f_ (n), dy_ and y_alpha_ (d each).
    ctx.memory.reserve(scfw::add_bytes(scfw::bytes_of({2, ctx.outputs, ctx.dim, 8}), scfw::bytes_of({std::int64_t{ctx.outputs} + 2 * std::int64_t{ctx.dim}, 8})),
                       "the tracker's Jacobian and Hessian action (2 x " + std::to_string(ctx.outputs) + " x " +
                           std::to_string(ctx.dim) + ")");
  }

  void bind(const scfw::Oracle& oracle) override {
    if (!oracle.capabilities().has(scfw::Capability::HessianAction))
      throw scfw::CapabilityError(
          "tracker \"hessian\" needs the oracle's Hessian action, which this oracle does not provide");
    if (oracle.capabilities().has(scfw::Capability::SparseJacobian))
      throw scfw::CapabilityError(
          "tracker \"hessian\" needs a dense Jacobian: its Hessian action H~ dy is a dense n x d matrix that "
          "leaves the oracle's sparse Jacobian pattern; use the oracle's dense Jacobian or another tracker");
    oracle_ = &oracle;
    const int n = oracle.outputs();
    const int d = oracle.dim();
    xi_ = oracle.make_sample();
    zeta_ = oracle.make_sample();
    f_.setZero(n);
    J_ = scfw::Jacobian(n, d);
    HV_.setZero(n, d);
    dy_.setZero(d);
    y_alpha_.setZero(d);
  }

  // Alg. 1 line 2: z_0 = f~(y_0; xi_0), V_0 = J~(y_0; xi_0).
  void start(const scfw::Vec& y0, scfw::Rng& rng, scfw::Vec& z, scfw::Jacobian& V) override {
    oracle_->draw(rng, *xi_);
    oracle_->evaluate(*xi_, y0, &z, &V);
  }

  void update(long, const scfw::Vec& y, const scfw::Vec& y_prev, const scfw::Steps& steps,
              scfw::Rng& rng, scfw::Vec& z, scfw::Jacobian& Vj) override {
    scfw::Mat& V = Vj.dense();  // bind() refused a sparse oracle
    oracle_->draw(rng, *xi_);
    oracle_->evaluate(*xi_, y, &f_, &J_);  // f~(y_k; xi_k), J~(y_k; xi_k)

    const double alpha = uniform01(rng);
    dy_.noalias() = y - y_prev;
    y_alpha_.noalias() = y_prev + alpha * dy_;
    oracle_->draw(rng, *zeta_);
    oracle_->hessian_action(*zeta_, y_alpha_, dy_, HV_);  // H~(y_alpha; zeta_k) (y_k - y_{k-1})

    // eq. hessian_grad, in place: V <- (1 - beta)(V + H~ dy) + beta J.
    V += HV_;
    V *= 1.0 - steps.beta;
    V.noalias() += steps.beta * J_.dense();

    // Variant II (Taylor), Alg. 1 line 6, with the new V_k.
    z.noalias() += V * dy_;
    z *= 1.0 - steps.rho;
    z.noalias() += steps.rho * f_;
  }


 private:
  const scfw::Oracle* oracle_ = nullptr;
  std::unique_ptr<scfw::Sample> xi_, zeta_;
  scfw::Vec f_, dy_, y_alpha_;
  scfw::Jacobian J_;
  scfw::Mat HV_;
};

void register_components(scfw::Registrar& r) {
  r.add<HessianTracker>(
      "hessian",
      "Hessian-corrected momentum: V_k = (1 - beta)(V_{k-1} + H~(y_alpha; zeta)(y_k - y_{k-1})) + "
      "beta J~(y_k; xi_k), alpha ~ U(0,1), Taylor value tracker (App. Hessian, eq. hessian_grad); "
      "needs the oracle's Hessian action",
      {});
}

}  // namespace

SCFW_PLUGIN("hessian", SCFW_PLUGIN_VERSION, register_components)
