#include "product_domain.hpp"

#include <cmath>

#include "scfw/state.hpp"

namespace scfw {

ProductDomain::ProductDomain(std::vector<std::unique_ptr<Domain>> factors, std::vector<std::string> names)
    : factors_(std::move(factors)), names_(std::move(names)) {
  for (const auto& f : factors_) {
    offset_.push_back(dim_);
    dim_ += f->dim();
    g_part_.emplace_back(Vec::Zero(f->dim()));
    atom_.emplace_back();
  }
}

Capabilities ProductDomain::capabilities() const {
  bool model = true, saved = false, unsaved = false;
  for (const auto& f : factors_) {
    const Capabilities c = f->capabilities();
    model = model && c.has(Capability::LpModel);
    saved = saved || c.has(Capability::SavedState);
    unsaved = unsaved || c.has(Capability::UnsavedState);
  }
  Capabilities r;
  if (model) r |= Capability::LpModel;
  if (unsaved) r |= Capability::UnsavedState;
  else if (saved) r |= Capability::SavedState;
  return r;
}

std::vector<Expr> ProductDomain::model(Model& m) const {
  // The factors share no variables or rows: X_1 x ... x X_p is the concatenation of models.
  std::vector<Expr> xs;
  xs.reserve(static_cast<size_t>(dim_));
  for (const auto& f : factors_) {
    auto part = f->model(m);
    for (auto& e : part) xs.push_back(std::move(e));
  }
  return xs;
}

void ProductDomain::lmo(const Gradient& grad, Atom& s) const {
  // min over a product of a separable linear function: one LMO per factor, on its dense part of
  // g; the answer is dense, each factor's atom written into its segment.
  const Vec& g = grad.to_dense(g_);
  Vec& x = s.set_dense(dim_);
  for (size_t i = 0; i < factors_.size(); ++i) {
    const int n = factors_[i]->dim();
    g_part_[i] = g.segment(offset_[i], n);
    factors_[i]->lmo(g_part_[i], atom_[i]);
    auto segment = x.segment(offset_[i], n);
    if (atom_[i].kind() == Atom::Kind::Dense) {
      segment = atom_[i].dense();
    } else {
      segment.setZero();
      atom_[i].add_to(1.0, segment);
    }
  }
}

Vec ProductDomain::initial_point() const {
  Vec y(dim_);
  for (size_t i = 0; i < factors_.size(); ++i) y.segment(offset_[i], factors_[i]->dim()) = factors_[i]->initial_point();
  return y;
}

bool ProductDomain::contains(const Vec& x, double tol) const {
  if (x.size() != dim_) return false;
  for (size_t i = 0; i < factors_.size(); ++i) {
    const Vec part = x.segment(offset_[i], factors_[i]->dim());
    if (!factors_[i]->contains(part, tol)) return false;
  }
  return true;
}

std::pair<int, int> ProductDomain::factor_of(int j) const {
  int f = static_cast<int>(factors_.size()) - 1;
  while (f > 0 && offset_[static_cast<size_t>(f)] > j) --f;
  return {f, j - offset_[static_cast<size_t>(f)]};
}

bool ProductDomain::separates(int j) const {
  if (j < 0 || j >= dim_) return false;
  const auto [f, local] = factor_of(j);
  const Domain& factor = *factors_[static_cast<size_t>(f)];
  return factor.dim() == 1 || factor.separates(local);
}

void ProductDomain::save_state(StateWriter& w) const {
  for (size_t i = 0; i < factors_.size(); ++i) {
    if (!factors_[i]->capabilities().has(Capability::SavedState)) continue;
    StateWriter part;
    factors_[i]->save_state(part);
    w.put("factor" + std::to_string(i), part.text());
  }
}

void ProductDomain::load_state(StateReader& r) {
  for (size_t i = 0; i < factors_.size(); ++i) {
    if (!factors_[i]->capabilities().has(Capability::SavedState)) continue;
    std::string text;
    r.get("factor" + std::to_string(i), text);
    StateReader part(std::move(text), r.owner() + " factor " + std::to_string(i) + " (" + names_[i] + ")");
    factors_[i]->load_state(part);
    part.expect_end();
  }
}

std::string ProductDomain::describe() const {
  std::string s = "product(";
  for (size_t i = 0; i < factors_.size(); ++i)
    s += (i ? ", " : "") + names_[i] + "[" + std::to_string(factors_[i]->dim()) + "]";
  return s + ")";
}

}  // namespace scfw
