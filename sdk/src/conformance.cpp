// scfw SDK: conformance checks (see conformance.hpp).
//
// Every check measures discrepancies against an allowance and reports, in `max_error`, the worst
// discrepancy as a fraction of its allowance: the report is ok exactly when max_error <= 1
// (and nothing threw). `message` names the check, the component (index and values) and the
// allowance of the first few failures of each kind.
#include "scfw/conformance.hpp"
#include "scfw/helpers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

namespace scfw::conformance {

namespace {

/// Collects the failures of one check: counts them and keeps the first few descriptions.
class Failures {
 public:
  explicit Failures(std::string check) : check_(std::move(check)) {}

  /// Records a discrepancy `err` with allowance `allowed`; `where` is built only on failure.
  template <class Describe>
  void measure(double err, double allowed, Describe&& describe) {
    const double ratio = allowed > 0 ? err / allowed : (err > 0 ? inf : 0.0);
    // NaN is a failure: std::max would silently drop it.
    if (std::isnan(err) || std::isnan(ratio)) {
      worst_ = inf;
      worst_err_ = err;
      worst_allowed_ = allowed;
    } else if (ratio > worst_ || (ratio == worst_ && err > worst_err_)) {
      worst_ = ratio;
      worst_err_ = err;
      worst_allowed_ = allowed;
    }
    if (!(err <= allowed)) {
      if (shown_.size() < kShown) shown_.push_back(describe());
      ++count_;
    }
  }
  void fail(std::string what) {
    worst_ = inf;
    if (shown_.size() < kShown) shown_.push_back(std::move(what));
    ++count_;
  }

  /// Marks the check as not run, with the reason.
  void skip(std::string why) {
    skipped_ = true;
    why_ = std::move(why);
  }

  bool ok() const { return count_ == 0; }
  double worst() const { return worst_; }
  /// The check on its own, for Report::checks.
  Check result() const {
    Check c;
    c.name = check_;
    c.ok = ok();
    c.skipped = skipped_ && count_ == 0;
    c.max_error = worst_;
    c.discrepancy = worst_err_;
    c.allowed = worst_allowed_;
    if (c.skipped) {
      c.detail = why_;
    } else if (!c.ok) {
      for (size_t i = 0; i < shown_.size(); ++i) c.detail += (i ? "\n" : "") + shown_[i];
      if (count_ > static_cast<long>(shown_.size()))
        c.detail += "\n... and " + std::to_string(count_ - static_cast<long>(shown_.size())) + " more";
    }
    return c;
  }
  std::string summary() const {
    std::string s = check_ + ": " + std::to_string(count_) + " failure" + (count_ == 1 ? "" : "s");
    for (const auto& w : shown_) s += "\n    " + w;
    if (count_ > static_cast<long>(shown_.size()))
      s += "\n    ... and " + std::to_string(count_ - static_cast<long>(shown_.size())) + " more";
    return s;
  }

 private:
  static constexpr size_t kShown = 5;
  std::string check_;
  std::vector<std::string> shown_;
  long count_ = 0;
  double worst_ = 0.0, worst_err_ = 0.0, worst_allowed_ = 0.0;
  bool skipped_ = false;
  std::string why_;
};

std::string f_name(int i) { return "f[" + std::to_string(i) + "]"; }
std::string j_name(int i, int j) { return "J(" + std::to_string(i) + ", " + std::to_string(j) + ")"; }

void finish(Report& rep, const std::vector<const Failures*>& checks, const std::string& passed) {
  rep.ok = true;
  rep.max_error = 0.0;
  rep.checks.clear();
  std::string failed;
  for (const Failures* c : checks) {
    rep.checks.push_back(c->result());
    rep.max_error = std::max(rep.max_error, c->worst());
    if (!c->ok()) {
      rep.ok = false;
      failed += "\n  " + c->summary();
    }
  }
  rep.message = rep.ok ? passed + " (max_error = " + format_number(rep.max_error, 10) +
                             ", the worst discrepancy over its allowance)"
                       : "FAILED" + failed;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

namespace {

/// Thrown when an output has the wrong size: nothing after it can be compared.
struct SizeFailure {};

/// The oracle checks; `with_exact` false runs only those of one fixed sample.
Report oracle_checks(const Oracle& oracle, const Vec& x, const OracleCheckOptions& opt, bool with_exact) {
  Report rep;
  const char* fn = with_exact ? "check_oracle" : "check_oracle_sample";
  const int n = oracle.outputs(), d = oracle.dim();
  auto refuse = [&](const std::string& why) {
    rep.ok = false;
    rep.max_error = inf;
    rep.message = std::string(fn) + ": " + why;
    Check c;
    c.name = "arguments";
    c.ok = false;
    c.max_error = inf;
    c.detail = why;
    rep.checks.push_back(c);
    return rep;
  };
  if (x.size() != d)
    return refuse("x has size " + std::to_string(x.size()) + ", the oracle's dim() is " + std::to_string(d));
  if (with_exact && !oracle.capabilities().has(Capability::Exact))
    return refuse("the oracle has no exact evaluation (capability \"exact\"), "
                  "which the unbiasedness and finite-difference checks need");
  if (with_exact && opt.samples < 2) return refuse("samples must be >= 2 to estimate a standard deviation");
  const bool sparse = oracle.capabilities().has(Capability::SparseJacobian);

  Failures sizes("output sizes (f has n entries, J is n x d)");
  Failures unbiased("unbiasedness (sample mean vs exact, " + std::to_string(opt.samples) + " samples, " +
                    format_number(opt.z_limit, 10) + " standard errors)");
  Failures fd_exact("finite differences of exact f vs exact J");
  Failures fd_sample("finite differences of f~(.; xi) vs J~(.; xi) for one sample");
  Failures sparse_path("sparse path: J~ in its pattern vs its dense copy");
  Failures calls("calls that return (no exception)");
  const std::string no_exact = "the oracle has no exact evaluation (capability \"exact\")";
  if (!with_exact) {
    unbiased.skip(no_exact);
    fd_exact.skip(no_exact);
  }
  if (!sparse) sparse_path.skip("the oracle's Jacobian is dense (no capability \"sparse_jacobian\")");

  // Sizes after every call: a plugin that resized an output would otherwise be read out of bounds.
  const Jacobian J_shape = make_jacobian(oracle);
  auto check_sizes = [&](const char* call, const Vec* f, const Jacobian* J) {
    if (f && f->size() != n)
      sizes.fail(std::string(call) + " left f with " + std::to_string(f->size()) + " entries, expected n = " +
                 std::to_string(n));
    if (J && (J->rows() != n || J->cols() != d))
      sizes.fail(std::string(call) + " left J as " + std::to_string(J->rows()) + " x " + std::to_string(J->cols()) +
                 ", expected n x d = " + std::to_string(n) + " x " + std::to_string(d));
    else if (J && !J->same_structure(J_shape))
      sizes.fail(std::string(call) + " left J with " + std::to_string(J->size()) + " stored values, expected " +
                 std::to_string(J_shape.size()) + (sparse ? " (the pattern's non-zeros)" : " (n x d)"));
    if (!sizes.ok()) throw SizeFailure{};
  };

  // Whether J(i, j) is stored (every entry of a dense Jacobian).
  std::vector<char> in_pattern;
  if (sparse) {
    in_pattern.assign(static_cast<size_t>(n) * static_cast<size_t>(d), 0);
    const JacobianPattern& p = J_shape.pattern();
    for (int i = 0; i < n; ++i)
      for (const int j : p.row_cols(i)) in_pattern[static_cast<size_t>(i) * static_cast<size_t>(d) + static_cast<size_t>(j)] = 1;
  }
  auto stored = [&](int i, int j) {
    return !sparse || in_pattern[static_cast<size_t>(i) * static_cast<size_t>(d) + static_cast<size_t>(j)] != 0;
  };

  try {
    Rng rng(opt.seed);
    auto sample = oracle.make_sample();
    Jacobian J_kind = make_jacobian(oracle);
    Vec f_exact(n);
    Mat J_exact;

    if (with_exact) {
      oracle.exact(x, &f_exact, &J_kind);
      check_sizes("exact()", &f_exact, &J_kind);
      J_kind.to_dense(J_exact);

      // (1) Unbiasedness. Welford's running mean and sum of squared deviations per component;
      // the allowance is z_limit standard errors of the mean (sample standard deviation), and
      // at least 1e-12 relative so that zero-variance components must match to rounding.
      Vec f(n), f_mean = Vec::Zero(n), f_m2 = Vec::Zero(n);
      Mat J(n, d), J_mean = Mat::Zero(n, d), J_m2 = Mat::Zero(n, d);
      for (int s = 1; s <= opt.samples; ++s) {
        oracle.draw(rng, *sample);
        oracle.evaluate(*sample, x, &f, &J_kind);
        check_sizes("evaluate()", &f, &J_kind);
        J_kind.to_dense(J);
        for (int i = 0; i < n; ++i) {
          const double delta = f[i] - f_mean[i];
          f_mean[i] += delta / s;
          f_m2[i] += delta * (f[i] - f_mean[i]);
        }
        for (int i = 0; i < n; ++i) {
          for (int j = 0; j < d; ++j) {
            const double delta = J(i, j) - J_mean(i, j);
            J_mean(i, j) += delta / s;
            J_m2(i, j) += delta * (J(i, j) - J_mean(i, j));
          }
        }
      }
      const double N = opt.samples;
      auto allowance = [&](double m2, double exact) {
        const double se = std::sqrt(std::max(m2, 0.0) / (N - 1) / N);
        return std::max(opt.z_limit * se, 1e-12 * std::max(1.0, std::abs(exact)));
      };
      auto describe_mean = [&](const std::string& what, double mean, double exact, double m2) {
        const double se = std::sqrt(std::max(m2, 0.0) / (N - 1) / N);
        std::string s = what + ": sample mean " + format_number(mean, 10) + " vs exact " + format_number(exact, 10) +
                        " (difference " + format_number(mean - exact, 10);
        if (se > 0)
          s += " = " + format_number(std::abs(mean - exact) / se, 10) + " standard errors";
        else
          s += ", zero sample variance";
        return s + ")";
      };
      for (int i = 0; i < n; ++i) {
        unbiased.measure(std::abs(f_mean[i] - f_exact[i]), allowance(f_m2[i], f_exact[i]),
                         [&] { return describe_mean(f_name(i), f_mean[i], f_exact[i], f_m2[i]); });
      }
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < d; ++j) {
          unbiased.measure(std::abs(J_mean(i, j) - J_exact(i, j)), allowance(J_m2(i, j), J_exact(i, j)),
                           [&] { return describe_mean(j_name(i, j), J_mean(i, j), J_exact(i, j), J_m2(i, j)); });
        }
      }
    }

    // (2) and (3): central differences, column j of J against (f(x + h e_j) - f(x - h e_j)) / 2h,
    // within fd_tolerance * max(1, max |J|). An entry outside a sparse pattern is J = 0 by
    // definition; a finite difference away from 0 there is a failure of the sparse path.
    const double h = opt.fd_step;
    auto fd_check = [&](Failures& out, const Mat& Jref, const char* call, auto&& eval_f) {
      const double scale = std::max(1.0, Jref.size() ? Jref.cwiseAbs().maxCoeff() : 0.0);
      const double allowed = opt.fd_tolerance * scale;
      Vec xp = x, xm = x, fp(n), fm(n);
      for (int j = 0; j < d; ++j) {
        xp[j] = x[j] + h;
        xm[j] = x[j] - h;
        eval_f(xp, fp);
        check_sizes(call, &fp, nullptr);
        eval_f(xm, fm);
        check_sizes(call, &fm, nullptr);
        xp[j] = xm[j] = x[j];
        for (int i = 0; i < n; ++i) {
          const double fd = (fp[i] - fm[i]) / (2 * h);
          if (!stored(i, j)) {
            sparse_path.measure(std::abs(fd), allowed, [&] {
              return j_name(i, j) + ": outside the Jacobian pattern (so 0), but the finite difference is " +
                     format_number(fd, 10) + " (allowed " + format_number(allowed, 10) + ")";
            });
            continue;
          }
          out.measure(std::abs(fd - Jref(i, j)), allowed, [&] {
            return j_name(i, j) + ": finite difference " + format_number(fd, 10) + " vs Jacobian " +
                   format_number(Jref(i, j), 10) + " (difference " + format_number(fd - Jref(i, j), 10) + ", allowed " +
                   format_number(allowed, 10) + ")";
          });
        }
      }
    };
    if (with_exact)
      fd_check(fd_exact, J_exact, "exact()", [&](const Vec& p, Vec& out) { oracle.exact(p, &out, nullptr); });

    oracle.draw(rng, *sample);
    Vec f_s(n), f_only(n);
    Mat J_s(n, d);
    oracle.evaluate(*sample, x, &f_s, &J_kind);
    check_sizes("evaluate()", &f_s, &J_kind);
    J_kind.to_dense(J_s);
    fd_check(fd_sample, J_s, "evaluate()", [&](const Vec& p, Vec& out) { oracle.evaluate(*sample, p, &out, nullptr); });
    // A null Jacobian pointer must only skip that output, not change f~.
    oracle.evaluate(*sample, x, &f_only, nullptr);
    check_sizes("evaluate()", &f_only, nullptr);
    for (int i = 0; i < n; ++i) {
      fd_sample.measure(std::abs(f_only[i] - f_s[i]), 1e-12 * std::max(1.0, std::abs(f_s[i])), [&] {
        return f_name(i) + ": evaluate(f only) gives " + format_number(f_only[i], 10) +
               " but evaluate(f and J) gives " + format_number(f_s[i], 10) + " for the same sample";
      });
    }

    // The sparse products against the dense copy's, for random v and w.
    if (sparse) {
      std::normal_distribution<double> normal;
      Vec v(d), w(n), Jv(n), Jtw(d);
      for (int j = 0; j < d; ++j) v[j] = normal(rng);
      for (int i = 0; i < n; ++i) w[i] = normal(rng);
      J_kind.multiply(v, Jv);
      J_kind.transpose_multiply(w, Jtw);
      const Vec Dv = J_s * v, Dtw = J_s.transpose() * w;
      const Vec Dv_abs = J_s.cwiseAbs() * v.cwiseAbs(), Dtw_abs = J_s.cwiseAbs().transpose() * w.cwiseAbs();
      for (int i = 0; i < n; ++i) {
        const double allowed = 1e-12 * std::max(1.0, Dv_abs[i]);
        sparse_path.measure(std::abs(Jv[i] - Dv[i]), allowed, [&] {
          return "(J v)[" + std::to_string(i) + "] = " + format_number(Jv[i], 10) + " in the pattern, " +
                 format_number(Dv[i], 10) + " from the dense copy";
        });
      }
      for (int j = 0; j < d; ++j) {
        const double allowed = 1e-12 * std::max(1.0, Dtw_abs[j]);
        sparse_path.measure(std::abs(Jtw[j] - Dtw[j]), allowed, [&] {
          return "(J^T w)[" + std::to_string(j) + "] = " + format_number(Jtw[j], 10) + " in the pattern, " +
                 format_number(Dtw[j], 10) + " from the dense copy";
        });
      }
    }
  } catch (const SizeFailure&) {
    // reported by `sizes`; the other checks stop where they were
  } catch (const std::exception& e) {
    calls.fail(std::string("the oracle threw: ") + e.what());
  }

  const std::string shape = "n = " + std::to_string(n) + ", d = " + std::to_string(d);
  if (with_exact) {
    finish(rep, {&calls, &sizes, &unbiased, &fd_exact, &fd_sample, &sparse_path},
           "check_oracle passed (" + shape + ", " + std::to_string(opt.samples) +
               " samples): sample means within " + format_number(opt.z_limit, 10) +
               " standard errors of exact f and J; finite differences match exact J and one sample's J~");
  } else {
    finish(rep, {&calls, &sizes, &unbiased, &fd_exact, &fd_sample, &sparse_path},
           "check_oracle_sample passed (" + shape + "): finite differences match one sample's J~; the checks of "
           "exact f and J were skipped (" + no_exact + ")");
  }
  if (!rep.ok) rep.message = std::string(fn) + " (" + shape + ") " + rep.message;
  return rep;
}

}  // namespace

Report check_oracle(const Oracle& oracle, const Vec& x, const OracleCheckOptions& opt) {
  return oracle_checks(oracle, x, opt, true);
}

Report check_oracle_sample(const Oracle& oracle, const Vec& x, const OracleCheckOptions& opt) {
  return oracle_checks(oracle, x, opt, false);
}

// ---------------------------------------------------------------------------------------------
Report check_outer_model(const OuterFunction& outer, int n, int d, Glmo& glmo,
                         const std::function<std::unique_ptr<Domain>(const Vec&)>& make_singleton,
                         const OuterCheckOptions& opt) {
  Report rep;
  const OuterTraits traits = outer.traits();
  Failures model("GLMO minimum over {x} vs value(u, x)");
  Failures point("GLMO solution vs the singleton point");
  Failures monotone("monotone flag: value(u + delta, x) >= value(u, x) for delta >= 0");
  Failures subhom("subhomogeneous flag: value(g u, x) <= g value(u, x) for g >= 1");
  Failures lipschitz("Lipschitz constant L_F = " + format_number(traits.lipschitz, 10) +
                     ": |value(u', x) - value(u, x)| <= L_F ||u' - u||_2");

  Rng rng(opt.seed);
  std::uniform_real_distribution<double> unif(-opt.scale, opt.scale);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Vec u(n), x(d), u2(n), xo(d);
  const Mat V0 = Mat::Zero(n, d);
  auto vec_str = [](const Vec& v) {
    std::string s = "(";
    for (Eigen::Index i = 0; i < v.size() && i < 6; ++i) s += (i ? ", " : "") + format_number(v[i], 10);
    if (v.size() > 6) s += ", ...";
    return s + ")";
  };

  for (int p = 0; p < opt.points; ++p) {
    for (int i = 0; i < n; ++i) u[i] = unif(rng);
    for (int j = 0; j < d; ++j) x[j] = unif(rng);
    const std::string at = "point " + std::to_string(p);
    double F = 0.0;
    try {
      F = outer.value(u, x);
    } catch (const std::exception& e) {
      model.fail(at + ": value(u, x) threw: " + e.what());
      continue;
    }
    if (!std::isfinite(F)) {
      model.fail(at + ": value(u, x) = " + format_number(F, 10) + " at u = " + vec_str(u));
      continue;
    }
    const double tol = opt.tolerance * std::max(1.0, std::abs(F));

    // The model: over X = {x} with V = 0 the GLMO's objective is F(u, x) itself.
    try {
      auto single = make_singleton(x);
      glmo.setup(outer, *single, n, d);
      xo.setConstant(std::numeric_limits<double>::quiet_NaN());
      const GlmoResult r = glmo.solve(u, V0, x, xo);
      model.measure(std::abs(r.value - F), tol, [&] {
        return at + ": GLMO value " + format_number(r.value, 10) + " vs value(u, x) " + format_number(F, 10) +
               " at u = " + vec_str(u) + ", x = " + vec_str(x);
      });
      // A certified lower bound may not exceed the true minimum F(u, x).
      model.measure(std::max(0.0, r.lower_bound - F), tol, [&] {
        return at + ": GLMO lower bound " + format_number(r.lower_bound, 10) + " exceeds the minimum value(u, x) " +
               format_number(F, 10);
      });
      for (int j = 0; j < d; ++j) {
        point.measure(std::abs(xo[j] - x[j]), opt.tolerance * std::max(1.0, std::abs(x[j])), [&] {
          return at + ": x[" + std::to_string(j) + "] = " + format_number(xo[j], 10) +
                 " returned, the domain is the single point " + format_number(x[j], 10);
        });
      }
    } catch (const std::exception& e) {
      model.fail(at + ": the GLMO threw: " + e.what());
    }

    try {
      if (traits.monotone) {
        // Raise a random subset of the coordinates (at least one).
        u2 = u;
        const int forced = static_cast<int>(unit(rng) * n) % std::max(n, 1);
        for (int i = 0; i < n; ++i) {
          if (i == forced || unit(rng) < 0.5) u2[i] += opt.scale * unit(rng);
        }
        const double F2 = outer.value(u2, x);
        monotone.measure(std::max(0.0, F - F2), tol, [&] {
          return at + ": value rises from " + vec_str(u) + " -> " + format_number(F, 10) + " but " + vec_str(u2) +
                 " -> " + format_number(F2, 10);
        });
      }
      if (traits.subhomogeneous) {
        const double g = 1.0 + 3.0 * unit(rng);
        u2 = g * u;
        const double F2 = outer.value(u2, x);
        subhom.measure(std::max(0.0, F2 - g * F), opt.tolerance * std::max(1.0, std::abs(g * F)), [&] {
          return at + ": g = " + format_number(g, 10) + ": value(g u, x) = " + format_number(F2, 10) +
                 " > g value(u, x) = " + format_number(g * F, 10) + " at u = " + vec_str(u);
        });
      }
      if (std::isfinite(traits.lipschitz)) {
        const double r = opt.scale * unit(rng);
        for (int i = 0; i < n; ++i) u2[i] = u[i] + r * (2 * unit(rng) - 1);
        const double F2 = outer.value(u2, x);
        const double bound = traits.lipschitz * (u2 - u).norm();
        lipschitz.measure(std::max(0.0, std::abs(F2 - F) - bound), tol, [&] {
          return at + ": |value(u', x) - value(u, x)| = " + format_number(std::abs(F2 - F), 10) +
                 " > L_F ||u' - u|| = " + format_number(bound, 10) + " at u = " + vec_str(u) + ", u' = " + vec_str(u2);
        });
      }
    } catch (const std::exception& e) {
      model.fail(at + ": value(u, x) threw: " + e.what());
    }
  }

  std::string claimed;
  if (traits.monotone) claimed += ", monotone";
  if (traits.subhomogeneous) claimed += ", subhomogeneous";
  if (std::isfinite(traits.lipschitz)) claimed += ", L_F = " + format_number(traits.lipschitz, 10);
  finish(rep, {&model, &point, &monotone, &subhom, &lipschitz},
         "check_outer_model passed (n = " + std::to_string(n) + ", d = " + std::to_string(d) + ", " +
             std::to_string(opt.points) + " points): the GLMO's minimum over a single point equals value(u, x)" +
             (claimed.empty() ? std::string() : "; the claimed properties hold: " + claimed.substr(2)));
  if (!rep.ok) {
    rep.message = "check_outer_model (" + (traits.formula.empty() ? std::string("outer function") : traits.formula) +
                  ", n = " + std::to_string(n) + ", d = " + std::to_string(d) + ") " + rep.message;
  }
  return rep;
}

}  // namespace scfw::conformance

// ---------------------------------------------------------------------------------------------

namespace scfw::conformance {

namespace {

/// F(u, x) = u_1 with n = 1: a GLMO set up with it over a domain solves min <g, x> when handed
/// z = 0, V = g^T, y = 0.
class FirstOutput final : public OuterFunction {
 public:
  double value(const Vec& u, const Vec&) const override { return u[0]; }
  Expr model(Model&, std::span<const Expr> u, std::span<const Expr>) const override { return u[0]; }
  OuterTraits traits() const override {
    OuterTraits t;
    t.lipschitz = 1.0;
    t.monotone = true;
    t.subhomogeneous = true;
    t.formula = "F(u) = u_1";
    return t;
  }
};

}  // namespace

Report check_domain(const Domain& domain, Glmo* glmo, const DomainCheckOptions& opt) {
  Report rep;
  const int d = domain.dim();
  Failures calls("calls that return (no exception)");
  Failures sizes("output sizes (initial point and LMO answers have d entries)");
  Failures start("initial_point() in the domain (contains)");
  Failures inside("LMO answers in the domain (contains)");
  Failures optimal("LMO optimality: <g, s> <= <g, p> at " + std::to_string(opt.points) +
                   " sampled domain points and the other answers");
  Failures sparse_form("LMO of g given by its non-zeros vs g given dense (<g, s>)");
  Failures model("LMO vs the minimum of <g, x> over the domain's LP model");
  if (!glmo) {
    model.skip("no GLMO given to solve the LP model");
  } else if (!domain.capabilities().has(Capability::LpModel)) {
    model.skip("the domain has no LP model (no capability \"lp_model\"), only its LMO");
  }

  auto vec_inf = [](const Vec& v) { return v.size() ? v.cwiseAbs().maxCoeff() : 0.0; };
  auto contains_tol = [&](const Vec& v) { return opt.tolerance * std::max(1.0, vec_inf(v)); };
  try {
    Rng rng(opt.seed);
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> unit(0.0, 1.0);

    const Vec x0 = domain.initial_point();
    if (x0.size() != d)
      sizes.fail("initial_point() has " + std::to_string(x0.size()) + " entries, expected d = " + std::to_string(d));
    if (sizes.ok() && !domain.contains(x0, contains_tol(x0)))
      start.fail("initial_point() is not in the domain by its own contains() (tolerance " +
                 format_number(contains_tol(x0), 10) + ")");

    // The LMO's answers to random directions: each is a vertex (or boundary point) of X.
    const int K = std::max(1, opt.directions);
    std::vector<Vec> g(static_cast<size_t>(K)), s(static_cast<size_t>(K));
    Atom atom;
    for (int k = 0; k < K && sizes.ok(); ++k) {
      Vec& gk = g[static_cast<size_t>(k)];
      gk.resize(d);
      for (int j = 0; j < d; ++j) gk[j] = normal(rng);
      domain.lmo(Gradient(gk), atom);
      if (atom.dim() != d) {
        sizes.fail("lmo() answered a point of dimension " + std::to_string(atom.dim()) + ", expected d = " +
                   std::to_string(d));
        break;
      }
      atom.to_dense(s[static_cast<size_t>(k)]);
      const Vec& sk = s[static_cast<size_t>(k)];
      if (!domain.contains(sk, contains_tol(sk))) {
        inside.fail("direction " + std::to_string(k) + ": the LMO answer is not in the domain by its own contains() "
                    "(tolerance " + format_number(contains_tol(sk), 10) + "; largest |s_j| = " +
                    format_number(vec_inf(sk), 10) + ")");
      }
    }

    if (sizes.ok()) {
      // Domain points: the answers, the initial point and random convex combinations of them.
      std::vector<Vec> points = s;
      points.push_back(x0);
      const size_t corners = points.size();
      for (int p = 0; p < opt.points; ++p) {
        Vec w(static_cast<Eigen::Index>(corners));
        for (Eigen::Index i = 0; i < w.size(); ++i) w[i] = -std::log(std::max(unit(rng), 1e-300));
        w /= w.sum();
        Vec q = Vec::Zero(d);
        for (size_t i = 0; i < corners; ++i) q += w[static_cast<Eigen::Index>(i)] * points[i];
        points.push_back(std::move(q));
      }
      for (int k = 0; k < K; ++k) {
        const Vec& gk = g[static_cast<size_t>(k)];
        const double val = gk.dot(s[static_cast<size_t>(k)]);
        for (size_t p = 0; p < points.size(); ++p) {
          const double at_p = gk.dot(points[p]);
          const double allowed = opt.tolerance * std::max({1.0, std::abs(val), std::abs(at_p)});
          optimal.measure(std::max(0.0, val - at_p), allowed, [&] {
            const std::string what = p < static_cast<size_t>(K) ? "the LMO answer to direction " + std::to_string(p)
                                      : p == static_cast<size_t>(K) ? std::string("the initial point")
                                                                    : "sampled point " + std::to_string(p - K - 1);
            return "direction " + std::to_string(k) + ": <g, s> = " + format_number(val, 10) + " but " + what +
                   " gives <g, p> = " + format_number(at_p, 10) + " (allowed " + format_number(allowed, 10) + ")";
          });
        }
      }

      // The same direction with half its entries zero, given dense and given by its non-zeros.
      for (int k = 0; k < std::min(K, 5); ++k) {
        Vec gd = g[static_cast<size_t>(k)];
        std::vector<int> index;
        std::vector<double> value;
        for (int j = 0; j < d; ++j) {
          if (unit(rng) < 0.5 && d > 1) {
            gd[j] = 0.0;
          } else {
            index.push_back(j);
            value.push_back(gd[j]);
          }
        }
        Vec sd, ss;
        domain.lmo(Gradient(gd), atom);
        atom.to_dense(sd);
        domain.lmo(Gradient::sparse(d, index, value), atom);
        if (atom.dim() != d) {
          sizes.fail("lmo() of a sparse g answered a point of dimension " + std::to_string(atom.dim()) +
                     ", expected d = " + std::to_string(d));
          break;
        }
        atom.to_dense(ss);
        const double vd = gd.dot(sd), vs = gd.dot(ss);
        sparse_form.measure(std::abs(vd - vs), opt.tolerance * std::max({1.0, std::abs(vd), std::abs(vs)}), [&] {
          return "direction " + std::to_string(k) + " with " + std::to_string(index.size()) + " non-zeros: <g, s> = " +
                 format_number(vs, 10) + " given sparse, " + format_number(vd, 10) + " given dense";
        });
      }

      // The LP model's minimum, solved by the GLMO.
      if (glmo && domain.capabilities().has(Capability::LpModel)) {
        FirstOutput linear;
        std::string why;
        if (!glmo->supports(linear, domain, 1, d, &why)) {
          model.skip("the GLMO does not take the domain's model: " + why);
        } else try {
          glmo->setup(linear, domain, 1, d);
          const Vec z = Vec::Zero(1), y = Vec::Zero(d);
          Vec xo(d);
          for (int k = 0; k < K; ++k) {
            const Vec& gk = g[static_cast<size_t>(k)];
            const Jacobian V(Mat(gk.transpose()));
            const GlmoResult r = glmo->solve(z, V, y, xo);
            const double val = gk.dot(s[static_cast<size_t>(k)]);
            const double allowed = opt.tolerance * std::max({1.0, std::abs(val), std::abs(r.value)});
            model.measure(std::abs(val - r.value), allowed, [&] {
              return "direction " + std::to_string(k) + ": the LMO gives <g, s> = " + format_number(val, 10) +
                     ", the minimum over the LP model is " + format_number(r.value, 10) + " (allowed " +
                     format_number(allowed, 10) + ")";
            });
          }
        } catch (const std::exception& e) {
          model.fail(std::string("the GLMO over the domain's model threw: ") + e.what());
        }
      }
    }
  } catch (const std::exception& e) {
    calls.fail(std::string("the domain threw: ") + e.what());
  }

  finish(rep, {&calls, &sizes, &start, &inside, &optimal, &sparse_form, &model},
         "check_domain passed (d = " + std::to_string(d) + ", " + std::to_string(opt.directions) +
             " directions): the LMO's answers lie in the domain and beat every sampled domain point");
  if (!rep.ok) rep.message = "check_domain (d = " + std::to_string(d) + ") " + rep.message;
  return rep;
}

}  // namespace scfw::conformance
