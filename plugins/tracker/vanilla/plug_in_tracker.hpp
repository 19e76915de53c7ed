// The plug-in estimates of the baselines `vanilla` and `clipped` (Section 6, "Algorithms" (i) and
// (ii)): one draw per update, z_k = f~(y_k; xi_k) and V_k = J~(y_k; xi_k), then `adjust(V)`
// (nothing for vanilla, the clip for clipped). beta and rho are ignored. Memory: the sample.
#pragma once

#include <scfw/scfw.hpp>

#include <memory>

namespace scfw_tracker {

class PlugInTracker : public scfw::Tracker {
 public:
  void bind(const scfw::Oracle& oracle) override {
    oracle_ = &oracle;
    sample_ = oracle.make_sample();
  }

  void start(const scfw::Vec& y0, scfw::Rng& rng, scfw::Vec& z, scfw::Jacobian& V) override { estimate(y0, rng, z, V); }

  void update(long, const scfw::Vec& y, const scfw::Vec&, const scfw::Steps&, scfw::Rng& rng, scfw::Vec& z,
              scfw::Jacobian& V) override {
    estimate(y, rng, z, V);
  }

 protected:
  /// Applied to V after each evaluation.
  virtual void adjust(scfw::Jacobian&) const {}

 private:
  void estimate(const scfw::Vec& y, scfw::Rng& rng, scfw::Vec& z, scfw::Jacobian& V) {
    oracle_->draw(rng, *sample_);
    oracle_->evaluate(*sample_, y, &z, &V);
    adjust(V);
  }

  const scfw::Oracle* oracle_ = nullptr;
  std::unique_ptr<scfw::Sample> sample_;
};

}  // namespace scfw_tracker
