// Tracker `clipped`: the paper's second baseline, Clipped SCFW (Section 6, "Algorithms" (ii)):
// Vanilla SCFW with the stochastic Jacobian clipped at Frobenius norm C,
//
//   z_k = f~(y_k; xi_k),   V_k = J~(y_k; xi_k) * min(1, C / ||J~(y_k; xi_k)||_F).
//
// It ignores beta and rho. Only the Jacobian is clipped, as in the paper; the value estimate is
// the plug-in one (plugins/tracker/vanilla/plug_in_tracker.hpp, shared with vanilla). Per update:
// one draw, one value + Jacobian evaluation. Memory: the sample.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <cmath>

#include "../vanilla/plug_in_tracker.hpp"

namespace {

class ClippedTracker final : public scfw_tracker::PlugInTracker {
 public:
  ClippedTracker(const scfw::Params& p, const scfw::Context&) { threshold_ = p.get<double>("threshold"); }

 protected:
  void adjust(scfw::Jacobian& V) const override { clip(V); }

 private:
  // J <- J * min(1, C / ||J||_F). A Jacobian already within C is left untouched (bitwise). After
  // scaling, rounding can leave ||J||_F an ulp above C; shrink by one more ulp of the factor until
  // it is not, so that ||V||_F <= C holds exactly as computed.
  // The Frobenius norm of a sparse Jacobian is the norm of its stored values. A dense one is
  // clipped as the matrix, as before, so dense runs keep their exact arithmetic.
  void clip(scfw::Jacobian& V) const {
    if (V.is_sparse()) {
      auto values = V.values();
      clip_values(values);
    } else {
      clip_values(V.dense());
    }
  }
  template <class M>
  void clip_values(M& V) const {
    double norm = V.norm();
    if (!(norm > threshold_) || !std::isfinite(norm)) return;
    V *= threshold_ / norm;
    for (norm = V.norm(); norm > threshold_; norm = V.norm())
      V *= std::nextafter(threshold_ / norm, 0.0);
  }

  double threshold_ = 1.0;
};

void register_components(scfw::Registrar& r) {
  r.add<ClippedTracker>(
      "clipped",
      "Clipped SCFW baseline (Section 6): vanilla plug-in estimates with J~ clipped to Frobenius norm C: "
      "V_k = J~ min(1, C/||J~||_F)",
      {scfw::ParamSpec::number("threshold", "clipping threshold C on the Frobenius norm of J~ (tuned per task)")
           .positive()
           .def(1.0)});
}

}  // namespace

SCFW_PLUGIN("clipped", SCFW_PLUGIN_VERSION, register_components)
