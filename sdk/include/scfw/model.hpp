// scfw SDK: the model-building API through which an OuterFunction and a Domain describe
// themselves to a GLMO. A model is a set of bounded variables, linear rows
// `lower <= expr <= upper` and (room for later solvers) second-order cones `||xs||_2 <= t`.
//
// The GLMO builds one model per run:
//   * the Domain adds its own variables and rows and returns d affine expressions for x;
//   * the GLMO adds n free variables u with the rows u = z + V (x - y) (only these rows change
//     from one iteration to the next);
//   * the OuterFunction adds its epigraph on (u, x) and returns the expression to minimize,
//     whose minimum over the auxiliary variables equals F(u, x).
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "scfw/types.hpp"

namespace scfw {

/// A model variable (an index into Model's variable list).
struct Var {
  int index = -1;
};

/// An affine expression: constant + sum_k coef_k * var_k.
class Expr {
 public:
  Expr() = default;
  Expr(double constant) : constant_(constant) {}  // NOLINT: implicit by design, like a scalar
  Expr(Var v) { terms_.emplace_back(v.index, 1.0); }  // NOLINT

  double constant() const { return constant_; }
  const std::vector<std::pair<int, double>>& terms() const { return terms_; }

  Expr& add(Var v, double coef) {
    terms_.emplace_back(v.index, coef);
    return *this;
  }
  Expr& operator+=(const Expr& o);
  Expr& operator-=(const Expr& o);
  Expr& operator*=(double s);

  friend Expr operator+(Expr a, const Expr& b) { return a += b; }
  friend Expr operator-(Expr a, const Expr& b) { return a -= b; }
  friend Expr operator*(Expr a, double s) { return a *= s; }
  friend Expr operator*(double s, Expr a) { return a *= s; }
  friend Expr operator-(Expr a) { return a *= -1.0; }

  /// Sums coefficients of repeated variables and drops zeros.
  void normalize();
  /// Value at a point given by one value per model variable.
  double evaluate(std::span<const double> values) const;

 private:
  double constant_ = 0.0;
  std::vector<std::pair<int, double>> terms_;
};

/// lower <= expr <= upper (either side may be infinite).
struct Row {
  Expr expr;
  double lower = -inf;
  double upper = inf;
};

/// ||xs||_2 <= t. add_var, set_bounds, add_row and add_second_order_cone throw std::out_of_range
/// for an expression or Var that names no variable of the model, and std::invalid_argument for a
/// NaN bound; a GLMO that reads the model checks the expressions it is handed (unknown_term).
struct SecondOrderCone {
  Expr t;
  std::vector<Expr> xs;
};

class Model {
 public:
  Var add_var(double lower = -inf, double upper = inf, std::string name = {});
  void set_bounds(Var v, double lower, double upper);

  void add_row(Expr e, double lower, double upper);
  void add_le(const Expr& a, const Expr& b) { add_row(a - b, -inf, 0.0); }  // a <= b
  void add_ge(const Expr& a, const Expr& b) { add_row(a - b, 0.0, inf); }   // a >= b
  void add_eq(const Expr& a, const Expr& b) { add_row(a - b, 0.0, 0.0); }   // a == b
  void add_second_order_cone(Expr t, std::vector<Expr> xs);

  int num_vars() const { return static_cast<int>(lower_.size()); }
  bool has_var(int v) const { return v >= 0 && v < num_vars(); }
  /// The first variable of `e` that is not a variable of this model (an index from another model,
  /// or a default-constructed Var's -1), or nullptr when every term names one. A GLMO reads the
  /// expressions a plugin hands back through this before it indexes anything with them.
  const std::pair<int, double>* unknown_term(const Expr& e) const;
  double lower(int v) const { return lower_[v]; }
  double upper(int v) const { return upper_[v]; }
  const std::string& name(int v) const { return names_[v]; }
  const std::vector<Row>& rows() const { return rows_; }
  const std::vector<SecondOrderCone>& cones() const { return cones_; }

 private:
  std::vector<double> lower_, upper_;
  std::vector<std::string> names_;
  std::vector<Row> rows_;
  std::vector<SecondOrderCone> cones_;
};

}  // namespace scfw
