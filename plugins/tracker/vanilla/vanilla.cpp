// Tracker `vanilla`: the paper's first baseline, Vanilla SCFW (Section 6, "Algorithms" (i)):
// plug-in single-sample estimates with no variance reduction,
//
//   z_k = f~(y_k; xi_k),   V_k = J~(y_k; xi_k).
//
// It ignores beta and rho (it is Algorithm 1 with beta = rho = 1). Because F is non-linear, the
// GLMO on a single-sample model is biased and the gap stagnates (Section 6, Discussion).
// Per update: one draw, one value + Jacobian evaluation (plug_in_tracker.hpp). Memory: the sample.
#include <scfw/scfw.hpp>

#include "plug_in_tracker.hpp"

namespace {

class VanillaTracker final : public scfw_tracker::PlugInTracker {
 public:
  VanillaTracker(const scfw::Params&, const scfw::Context&) {}
};

void register_components(scfw::Registrar& r) {
  r.add<VanillaTracker>("vanilla",
                        "Vanilla SCFW baseline (Section 6): z_k = f~(y_k; xi_k), V_k = J~(y_k; xi_k), "
                        "no momentum (ignores beta, rho)",
                        {});
}

}  // namespace

SCFW_PLUGIN("vanilla", SCFW_PLUGIN_VERSION, register_components)
