#include "scfw/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

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

const std::pair<int, double>* Model::unknown_term(const Expr& e) const {
  for (const auto& t : e.terms())
    if (!has_var(t.first)) return &t;
  return nullptr;
}

Var Model::add_var(double lower, double upper, std::string name) {
  if (std::isnan(lower) || std::isnan(upper)) throw std::invalid_argument("Model::add_var: a bound is NaN");
  if (lower > upper) throw std::invalid_argument("Model::add_var: lower bound above upper bound");
  lower_.push_back(lower);
  upper_.push_back(upper);
  names_.push_back(std::move(name));
  return Var{num_vars() - 1};
}

void Model::set_bounds(Var v, double lower, double upper) {
  if (!has_var(v.index)) throw std::out_of_range("Model::set_bounds: no such variable");
  if (std::isnan(lower) || std::isnan(upper)) throw std::invalid_argument("Model::set_bounds: a bound is NaN");
  lower_[static_cast<size_t>(v.index)] = lower;
  upper_[static_cast<size_t>(v.index)] = upper;
}

void Model::add_row(Expr e, double lower, double upper) {
  if (const auto* t = unknown_term(e))
    throw std::out_of_range("Model::add_row: the expression uses variable " + std::to_string(t->first) +
                            ", but the model has " + std::to_string(num_vars()) + " variables");
  if (std::isnan(lower) || std::isnan(upper)) throw std::invalid_argument("Model::add_row: a bound is NaN");
  // Fold the constant into the bounds: lower <= a^T v + c <= upper.
  const double c = e.constant();
  e -= Expr(c);
  e.normalize();
  rows_.push_back(Row{std::move(e), lower - c, upper - c});
}

void Model::add_second_order_cone(Expr t, std::vector<Expr> xs) {
  const auto check = [&](const Expr& e) {
    if (const auto* term = unknown_term(e))
      throw std::out_of_range("Model::add_second_order_cone: an expression uses variable " +
                              std::to_string(term->first) + ", but the model has " +
                              std::to_string(num_vars()) + " variables");
  };
  check(t);
  for (const Expr& x : xs) check(x);
  cones_.push_back(SecondOrderCone{std::move(t), std::move(xs)});
}

}  // namespace scfw
