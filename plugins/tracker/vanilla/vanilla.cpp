// Tracker `vanilla`: the paper's first baseline, Vanilla SCFW (Section 6, "Algorithms" (i)):
// plug-in single-sample estimates with no variance reduction,
//
//   z_k = f~(y_k; xi_k),   V_k = J~(y_k; xi_k).
//
// It ignores beta and rho (it is Algorithm 1 with beta = rho = 1). Because F is non-linear, the
// GLMO on a single-sample model is biased and the gap stagnates (Section 6, Discussion).
// Per update: one draw, one value + Jacobian evaluation. Memory: the sample only.
#include <scfw/scfw.hpp>

#include <memory>

namespace {

class VanillaTracker final : public scfw::Tracker {
 public:
  VanillaTracker(const scfw::Params&, const scfw::Context&) {}

  void bind(const scfw::Oracle& oracle) override {
    oracle_ = &oracle;
    sample_ = oracle.make_sample();
  }

  void start(const scfw::Vec& y0, scfw::Rng& rng, scfw::Vec& z, scfw::Jacobian& V) override {
    oracle_->draw(rng, *sample_);
    scfw::evaluate(*oracle_, *sample_, y0, &z, &V);
  }

  void update(long, const scfw::Vec& y, const scfw::Vec&, const scfw::Steps&, scfw::Rng& rng,
              scfw::Vec& z, scfw::Jacobian& V) override {
    oracle_->draw(rng, *sample_);
    scfw::evaluate(*oracle_, *sample_, y, &z, &V);
  }

 private:
  const scfw::Oracle* oracle_ = nullptr;
  std::unique_ptr<scfw::Sample> sample_;
};

void register_components(scfw::Registrar& r) {
  r.add<VanillaTracker>("vanilla",
                        "Vanilla SCFW baseline (Section 6): z_k = f~(y_k; xi_k), V_k = J~(y_k; xi_k), "
                        "no momentum (ignores beta, rho)",
                        {});
}

}  // namespace

SCFW_PLUGIN("vanilla", "0.1.0", register_components)
