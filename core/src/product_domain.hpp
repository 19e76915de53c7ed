// scfw core: the cartesian product of domains, X = X_1 x ... x X_p.
//
// A plugin cannot build other plugins, so the host composes a product from factor blocks:
//   "domain": {"plugin": "product", "factors": [{"plugin": "simplex", "dim": 50},
//                                                {"plugin": "box", "dim": 1, "lower": -1, "upper": 1}]}
// Each factor states its own dimension; the sum must equal the oracle's d.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "scfw/roles.hpp"

namespace scfw {

class ProductDomain final : public Domain {
 public:
  ProductDomain(std::vector<std::unique_ptr<Domain>> factors, std::vector<std::string> names);

  int dim() const override { return dim_; }
  /// LpModel when every factor has it; UnsavedState if a factor has it, else SavedState if a
  /// factor has it (each factor's state is one block).
  Capabilities capabilities() const override;
  std::vector<Expr> model(Model& m) const override;
  void lmo(const Gradient& g, Atom& s) const override;
  Vec initial_point() const override;
  bool contains(const Vec& x, double tol) const override;
  /// Coordinate j is separated when its factor has dimension 1 or separates it.
  bool separates(int j) const override;
  void save_state(StateWriter& w) const override;
  void load_state(StateReader& r) override;

  /// "product(simplex[50], box[1])"
  std::string describe() const;

 private:
  /// The factor holding coordinate j and j's place in it.
  std::pair<int, int> factor_of(int j) const;

  std::vector<std::unique_ptr<Domain>> factors_;
  std::vector<std::string> names_;
  std::vector<int> offset_;
  int dim_ = 0;
  // LMO buffers: a sparse g made dense, and a gradient and an atom per factor, sized once (the LMO
  // runs inside the loop for LMO-only GLMOs and must not allocate).
  mutable Vec g_;
  mutable std::vector<Vec> g_part_;
  mutable std::vector<Atom> atom_;
};

}  // namespace scfw
