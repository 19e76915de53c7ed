// scfw SDK: small helpers that several plugins need, header-only.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "scfw/error.hpp"
#include "scfw/model.hpp"
#include "scfw/params.hpp"
#include "scfw/registrar.hpp"

namespace scfw {

/// A number in an error message or a describe() line: printf's %g with `digits` significant
/// digits (12 by default: enough to tell apart the values a user typed). One formatter for every
/// plugin instead of a copy in each.
inline std::string format_number(double v, int digits = 12) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

/// term(begin) + ... + term(end - 1), summed as the SDK's sparse products sum one row of a matrix
/// in compressed rows: four partial sums (the gathers of neighbouring entries overlap instead of
/// waiting on one chain of additions), then (s0 + s1) + (s2 + s3). Code that must give a sparse
/// product's bits (a plugin's own product over a Jacobian's pattern) sums with this.
template <class Term>
inline double sparse_row_sum(std::int64_t begin, std::int64_t end, Term term) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  std::int64_t k = begin;
  for (; k + 4 <= end; k += 4) {
    s0 += term(k);
    s1 += term(k + 1);
    s2 += term(k + 2);
    s3 += term(k + 3);
  }
  for (; k < end; ++k) s0 += term(k);
  return (s0 + s1) + (s2 + s3);
}

/// The dimension d of a domain: the oracle's d from the context, or the block's optional
/// integer parameter "dim", which must then agree with the oracle's. A domain built where no
/// oracle is known (a factor of a product domain, a test) must be given "dim".
inline int domain_dimension(const Params& p, const Context& c) {
  if (p.has("dim")) {
    const int dim = p.get<int>("dim");  // declared with at_least(1)
    if (c.dim >= 1 && dim != c.dim)
      p.fail("dim", "the domain has dimension " + std::to_string(dim) + " but the oracle has dimension " +
                        std::to_string(c.dim));
    return dim;
  }
  if (c.dim < 1) p.fail("dim", "the dimension is unknown: give \"dim\"");
  return c.dim;
}

/// A number-list parameter given either as one number (broadcast) or as d numbers (the host has
/// checked that each is finite and in the declared range). d < 1 (unknown yet) skips the length
/// check; the caller checks it later.
inline std::vector<double> numbers_1_or_d(const Params& p, const std::string& name, int d) {
  std::vector<double> v = p.get<std::vector<double>>(name);
  if (v.empty()) p.fail(name, "expected 1 or d numbers, got none");
  if (v.size() != 1 && d >= 1 && v.size() != static_cast<size_t>(d))
    p.fail(name, "expected 1 or " + std::to_string(d) + " numbers (the dimension), got " + std::to_string(v.size()));
  return v;
}

/// The linear term <c, x> of an outer function F(u, x) = u_0 + <c, x> + ... (penalty,
/// regularized): the number-list parameter "c", one number (broadcast to every coordinate) or d
/// numbers, each in [-1e8, 1e8] (LP objective coefficients), default 0.
class LinearTerm {
 public:
  /// The declaration of "c".
  static ParamSpec param() {
    return ParamSpec::number_list("c", "linear term c: one number (broadcast) or d numbers, each in "
                                       "[-1e8, 1e8] (LP objective coefficients)")
        .range(-1e8, 1e8)
        .def(std::vector<double>{0.0});
  }

  LinearTerm() = default;
  /// c from the validated parameters; d is the oracle's dimension (< 1: not known yet).
  LinearTerm(const Params& p, int d) : c_(numbers_1_or_d(p, "c", d)) {}

  /// c_j (every j for a broadcast c).
  double operator[](size_t j) const { return c_.size() == 1 ? c_[0] : c_[j]; }
  /// The numbers as given: 1 or d of them.
  const std::vector<double>& given() const { return c_; }
  bool zero() const {
    bool z = true;
    for (double v : c_) z = z && v == 0.0;
    return z;
  }
  /// Throws Error("<who>: c has N entries but x has d") unless c is one number or d numbers.
  void check(const std::string& who, size_t d) const {
    if (c_.size() != 1 && c_.size() != d)
      throw Error(who + ": c has " + std::to_string(c_.size()) + " entries but x has " + std::to_string(d));
  }
  /// v + c_0 x_0 + c_1 x_1 + ..., added in that order.
  double add_to(double v, const Vec& x) const {
    for (Eigen::Index j = 0; j < x.size(); ++j) v += (*this)[static_cast<size_t>(j)] * x[j];
    return v;
  }
  /// objective + sum_j c_j x_j over the j with c_j != 0.
  void add_to(Expr& objective, std::span<const Expr> x) const {
    for (size_t j = 0; j < x.size(); ++j)
      if ((*this)[j] != 0.0) objective += (*this)[j] * x[j];
  }

 private:
  std::vector<double> c_;
};

/// The offset k0 of a decreasing schedule whose tracking weights are (k + k0)^-e (schedules
/// `convex` and `anytime`, Lemma "Decreasing-schedule tracking"): with q = e (r - 1),
/// k0 = ceil((4q)^(1/(1-e))) + 2 gives 2 q k0^(e-1) <= 1/2 and k0 >= 2, which close the lemma's
/// induction.
inline long tracking_k0(double e, double r) {
  const double q = e * (r - 1);
  double v = std::pow(4 * q, 1.0 / (1 - e));
  // (4q)^(1/(1-e)) is an integer for some r (4 for anytime at r = 2); do not let rounding push
  // ceil() one above it.
  if (v >= 0.5 && std::abs(v - std::round(v)) < 1e-9 * v) v = std::round(v);
  return static_cast<long>(std::ceil(v)) + 2;
}

/// weight * Xi(x) for Xi one of "l1", "l2", "linf", "none", as a model expression whose minimum
/// over the variables added here is weight * Xi(x) (weight >= 0): l1 adds |x_j| <= a_j, linf one
/// t >= |x_j|, l2 one second-order cone ||x||_2 <= t.
inline Expr norm_model(Model& m, const std::string& kind, double weight, std::span<const Expr> x) {
  Expr e;
  if (kind == "none" || weight == 0.0) return e;
  if (kind == "l1") {
    for (size_t j = 0; j < x.size(); ++j) {
      const Var a = m.add_var(0.0, inf, "xi_abs[" + std::to_string(j) + "]");
      m.add_ge(Expr(a), x[j]);
      m.add_ge(Expr(a), -x[j]);
      e.add(a, weight);
    }
    return e;
  }
  const Var t = m.add_var(0.0, inf, "xi");
  if (kind == "linf") {
    for (const Expr& xj : x) {
      m.add_ge(Expr(t), xj);
      m.add_ge(Expr(t), -xj);
    }
  } else {  // l2
    m.add_second_order_cone(Expr(t), std::vector<Expr>(x.begin(), x.end()));
  }
  e.add(t, weight);
  return e;
}

/// Xi(x) for the kinds of norm_model.
inline double norm_value(const std::string& kind, const Vec& x) {
  if (kind == "l1") return x.lpNorm<1>();
  if (kind == "l2") return x.norm();
  if (kind == "linf") return x.size() ? x.lpNorm<Eigen::Infinity>() : 0.0;
  return 0.0;
}

/// An exponent for a schedule's describe(): "3/4" when e is p/q with a small q (as the exponents
/// of Theorems 1 and 2 are for simple r), else four significant digits ("0.7143").
inline std::string format_exponent(double e) {
  for (int q = 1; q <= 64; ++q) {
    const double p = e * q;
    if (std::abs(p - std::round(p)) < 1e-9) {
      const long pi = std::lround(p);
      return q == 1 ? std::to_string(pi) : std::to_string(pi) + "/" + std::to_string(q);
    }
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", e);
  return buf;
}

}  // namespace scfw
