// The one cold Clp solve of the GLMO LP: every GLMO's last resort when its own simplex gives up
// (Fallback, below), and the reference of its `cross_check` option. The LP is the model every GLMO builds
// (glmo_lp.hpp) with its u variables explicit:
//     the model's rows,  u_i - sum_v W_iv var_v = z_i - V_i (y - c)   (W = V A, x = c + A var),
// loaded into a fresh ClpSimplex and solved by Clp's dual simplex from the slack basis, at the
// engine's primal and dual tolerances (settings.hpp) rather than Clp's looser defaults.
//
// Explicit zeros. A coefficient W_iv that is exactly zero (V = 0, a zero row or column of V, a
// cancellation in V A) is not stored: the u-row lists only its nonzero terms, the same LP. Clp's
// packed matrix keeps no explicit zero (its row copy asserts on one), so no zero ever reaches it
// from here. (The `clp` GLMO's warm model is another matter: it rewrites the u-row slots of
// Clp's matrix in place and must keep every slot stored; see plugins/glmo/clp.)
#pragma once

#include "glmo_lp.hpp"

#include <scfw/state.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace scfw::lp {

class ColdClp {
 public:
  // The GLMO's model as build_model() returned it (the model, u_var, objective and x-map).
  explicit ColdClp(const GlmoModel& g);

  struct Result {
    int status = -1;  // Clp's: 0 optimal, 1 infeasible, 2 unbounded, other: failed
    double value = 0.0;
    long iterations = 0;
    // On status 0: max(1, |value|, the magnitude of the terms the value is made of), the scale
    // `cross_check` measures agreement against (see solve()).
    double scale = 1.0;
  };
  // Solves min F(z + V (x - y), x) over the domain cold; on status 0 fills x and value.
  Result solve(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y, scfw::Vec& x) const;

  // The fallback: solve(), with Clp's verdicts as errors: "<glmo>: the GLMO LP is infeasible ...",
  // "<glmo>: the GLMO LP is unbounded", "<glmo>: the GLMO LP solve failed (Clp status s)".
  Result solve_or_throw(const char* glmo, const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y,
                        scfw::Vec& x) const;

  // `cross_check`: throws "<glmo>: disagrees with Clp at solve k: <glmo> <value>, Clp <ref>
  // (status s)" unless the cold solve is optimal and |value - Clp's| <= Settings::clp_agreement
  // times the cold solve's Result::scale.
  void check(const char* glmo, long solve, double value, const scfw::Vec& z, const scfw::Mat& V,
             const scfw::Vec& y) const;

  int num_vars() const { return lp_.num_vars; }

 private:
  SparseLp lp_;  // the model's rows, bounds and objective (no u-rows)
  std::vector<int> u_var_;
  scfw::Expr objective_;
  XMap xmap_;
  XByVariable xvar_;
};

// What every exact GLMO does around its own simplex: count the solves, answer one its simplex
// gave up on by the cold solve (counted), and with `cross_check` hold its own answers to it.
class Fallback {
 public:
  Fallback(const char* glmo, bool cross_check) : glmo_(glmo), cross_check_(cross_check) {}
  void setup(const GlmoModel& g) {
    cold_ = std::make_unique<ColdClp>(g);
    solves_ = fallbacks_ = 0;
  }
  // A solve begins: its sizes checked (check_solve_sizes), counted.
  void begin_solve(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y, int n, int d) {
    check_solve_sizes(glmo_, z, V, y, n, d);
    ++solves_;
  }
  // The cold answer; the GLMO's own `pivots` count in its iterations.
  scfw::GlmoResult solve(const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y, scfw::Vec& x, long pivots) {
    ++fallbacks_;
    const ColdClp::Result cold = cold_->solve_or_throw(glmo_, z, V, y, x);
    return {cold.value, cold.value, pivots + cold.iterations};
  }
  void accept(double value, const scfw::Vec& z, const scfw::Mat& V, const scfw::Vec& y) const {
    if (cross_check_) cold_->check(glmo_, solves_, value, z, V, y);
  }
  // describe()'s notes: the cross check, the GLMO's own (`mid`), the fallbacks.
  std::string notes(const std::string& mid = "") const {
    const std::string s = (cross_check_ ? "; cross-checked against Clp at every solve" : "") + mid;
    return fallbacks_ > 0 ? s + "; " + std::to_string(fallbacks_) + " solve(s) fell back to Clp" : s;
  }
  // Checkpoints: "solves", then "fallbacks" (at most the solves).
  void save(scfw::StateWriter& w) const {
    w.put("solves", std::int64_t{solves_});
    w.put("fallbacks", std::int64_t{fallbacks_});
  }
  void load(scfw::StateReader& r) {
    solves_ = std::numeric_limits<long>::max();
    solves_ = load_count(r, "solves");
    fallbacks_ = load_count(r, "fallbacks");
  }
  // A count of solves the GLMO keeps itself, from a checkpoint (0 to solves()).
  long load_count(scfw::StateReader& r, const char* name) const {
    std::int64_t v = 0;
    r.get(name, v);
    r.check_range(name, std::vector<std::int64_t>{v}, std::int64_t{0}, std::int64_t{solves_});
    return static_cast<long>(v);
  }
  long solves() const { return solves_; }

 private:
  const char* glmo_;
  bool cross_check_;
  std::unique_ptr<ColdClp> cold_;
  long solves_ = 0, fallbacks_ = 0;
};

}  // namespace scfw::lp
