// Tracker `momentum`: the hybrid momentum trackers of Algorithm 1.
//
//   start (line 2):  draw xi_0;  z_0 = f~(y_0; xi_0),  V_0 = J~(y_0; xi_0)
//   update k >= 1:   draw xi_k at y_k                                          (line 4)
//     V_k = (1 - beta_k) V_{k-1} + beta_k J~(y_k; xi_k)                        (line 5)
//     Variant I  (polyak): z_k = (1 - rho_k) z_{k-1} + rho_k f~(y_k; xi_k)    (line 6)
//     Variant II (taylor): z_k = (1 - rho_k) [z_{k-1} + V_k (y_k - y_{k-1})] + rho_k f~(y_k; xi_k)
// Variant II extrapolates with the *updated* V_k, as line 6 is written after line 5.
#include <scfw/plugin.hpp>

#include <memory>
#include <string>

namespace {

using scfw::Mat;
using scfw::Vec;

class Momentum final : public scfw::Tracker {
 public:
  Momentum(const scfw::Params& p, const scfw::Context& ctx) {
    taylor_ = p.get<std::string>("value") == "taylor";  // or "polyak", the other declared choice
    // bind() sizes J_ (n x d, or the oracle's pattern), f_ (n) and, for "taylor" only, dy_ (d: a
    // d-vector is not small next to a sparse pattern, 800 MB for a 10^4 x 10^4 completion).
    const std::int64_t vectors = std::int64_t{ctx.outputs} + (taylor_ ? ctx.dim : 0);
    ctx.memory.reserve(scfw::add_bytes(scfw::bytes_of({ctx.jacobian_size(), 8}), scfw::bytes_of({vectors, 8})),
                       "the tracker's Jacobian (" + std::to_string(ctx.outputs) + " x " + std::to_string(ctx.dim) +
                           (ctx.jacobian_nnz >= 0 ? ", " + std::to_string(ctx.jacobian_nnz) + " non-zeros" : std::string()) + ")");
  }

  void bind(const scfw::Oracle& oracle) override {
    oracle_ = &oracle;
    const int n = oracle.outputs(), d = oracle.dim();
    sample_ = oracle.make_sample();
    f_.resize(n);
    J_ = scfw::make_jacobian(oracle);
    if (taylor_) dy_.resize(d);
  }

  void start(const Vec& y0, scfw::Rng& rng, Vec& z, scfw::Jacobian& V) override {
    require_bound();
    oracle_->draw(rng, *sample_);
    oracle_->evaluate(*sample_, y0, &z, &V);
  }

  void update(long, const Vec& y, const Vec& y_prev, const scfw::Steps& steps, scfw::Rng& rng, Vec& z,
              scfw::Jacobian& V) override {
    require_bound();
    oracle_->draw(rng, *sample_);
    oracle_->evaluate(*sample_, y, &f_, &J_);
    const double beta = steps.beta, rho = steps.rho;
    // Jacobian tracker, Alg. 1 line 5, on the stored values (dense n x d, or one pattern).
    auto v = V.values();
    v = (1.0 - beta) * v + beta * J_.values();
    if (taylor_) {
      // Variant II (Taylor), Alg. 1 line 6: extrapolate z_{k-1} to y_k with V_k.
      dy_ = y - y_prev;
      V.multiply_add(dy_, z);
    }
    // Variant I (Polyak) / the convex combination of Variant II, Alg. 1 line 6.
    z = (1.0 - rho) * z + rho * f_;
  }

 private:
  void require_bound() const {
    if (!oracle_) throw scfw::Error("momentum: start() or update() called before bind()");
  }

  bool taylor_ = true;
  const scfw::Oracle* oracle_ = nullptr;
  std::unique_ptr<scfw::Sample> sample_;
  Vec f_, dy_;
  scfw::Jacobian J_;
};

void register_components(scfw::Registrar& r) {
  r.add<Momentum>("momentum",
                  "Alg. 1 trackers: V_k = (1-beta) V + beta J~; z_k Polyak (Variant I) or Taylor-corrected (Variant II)",
                  {scfw::ParamSpec::choice("value", {"polyak", "taylor"},
                                           "function tracker: \"polyak\" (Variant I) or \"taylor\" (Variant II)")
                       .def("taylor")},
                  scfw::Preference{.rank = 1});
}

}  // namespace

SCFW_PLUGIN("momentum", SCFW_PLUGIN_VERSION, register_components)
