// A domain that forwards to another (not owned) and counts its LMO calls: how the column-
// generation tests (test_cg_stabilised) and bench_cg measure LMO calls per solve.
#pragma once

#include <vector>

#include "scfw/scfw.hpp"

namespace scfw::test {

class CountingDomain final : public Domain {
 public:
  explicit CountingDomain(Domain& inner) : inner_(inner) {}
  int dim() const override { return inner_.dim(); }
  Capabilities capabilities() const override { return inner_.capabilities(); }
  std::vector<Expr> model(Model& m) const override { return inner_.model(m); }
  void lmo(const Gradient& g, Atom& s) const override {
    ++calls;
    inner_.lmo(g, s);
  }
  Vec initial_point() const override { return inner_.initial_point(); }
  bool contains(const Vec& x, double tol) const override { return inner_.contains(x, tol); }
  std::vector<int> shape() const override { return inner_.shape(); }
  bool separates(int j) const override { return inner_.separates(j); }
  void save_state(StateWriter& w) const override { inner_.save_state(w); }
  void load_state(StateReader& r) override { inner_.load_state(r); }
  mutable long calls = 0;  ///< LMO calls so far

 private:
  Domain& inner_;
};

}  // namespace scfw::test
