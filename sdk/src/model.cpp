#include "scfw/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scfw {

Expr& Expr::operator+=(const Expr& o) {
  constant_ += o.constant_;
  terms_.insert(terms_.end(), o.terms_.begin(), o.terms_.end());
  return *this;
}

Expr& Expr::operator-=(const Expr& o) {
  constant_ -= o.constant_;
  for (const auto& [v, c] : o.terms_) terms_.emplace_back(v, -c);
  return *this;
}

Expr& Expr::operator*=(double s) {
  constant_ *= s;
  for (auto& t : terms_) t.second *= s;
  return *this;
}

void Expr::normalize() {
  std::sort(terms_.begin(), terms_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<int, double>> merged;
  merged.reserve(terms_.size());
  for (const auto& t : terms_) {
    if (!merged.empty() && merged.back().first == t.first)
      merged.back().second += t.second;
    else
      merged.push_back(t);
  }
  merged.erase(std::remove_if(merged.begin(), merged.end(),
                              [](const auto& t) { return t.second == 0.0; }),
               merged.end());
  terms_ = std::move(merged);
}

double Expr::evaluate(std::span<const double> values) const {
  double s = constant_;
  for (const auto& [v, c] : terms_) s += c * values[static_cast<size_t>(v)];
  return s;
}

Var Model::add_var(double lower, double upper, std::string name) {
  if (lower > upper) throw std::invalid_argument("Model::add_var: lower bound above upper bound");
  lower_.push_back(lower);
  upper_.push_back(upper);
  names_.push_back(std::move(name));
  return Var{num_vars() - 1};
}

void Model::set_bounds(Var v, double lower, double upper) {
  if (v.index < 0 || v.index >= num_vars()) throw std::out_of_range("Model::set_bounds: no such variable");
  lower_[static_cast<size_t>(v.index)] = lower;
  upper_[static_cast<size_t>(v.index)] = upper;
}

void Model::add_row(Expr e, double lower, double upper) {
  for (const auto& [v, c] : e.terms())
    if (v < 0 || v >= num_vars()) throw std::out_of_range("Model::add_row: expression uses an unknown variable");
  // Fold the constant into the bounds: lower <= a^T v + c <= upper.
  const double c = e.constant();
  e -= Expr(c);
  e.normalize();
  rows_.push_back(Row{std::move(e), lower - c, upper - c});
}

void Model::add_second_order_cone(Expr t, std::vector<Expr> xs) {
  cones_.push_back(SecondOrderCone{std::move(t), std::move(xs)});
}

}  // namespace scfw
