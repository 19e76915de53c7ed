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
    } else {
      worst_ = std::max(worst_, ratio);
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

  bool ok() const { return count_ == 0; }
  double worst() const { return worst_; }
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
  double worst_ = 0.0;
};

std::string f_name(int i) { return "f[" + std::to_string(i) + "]"; }
std::string j_name(int i, int j) { return "J(" + std::to_string(i) + ", " + std::to_string(j) + ")"; }

void finish(Report& rep, const std::vector<const Failures*>& checks, const std::string& passed) {
  rep.ok = true;
  rep.max_error = 0.0;
  std::string failed;
  for (const Failures* c : checks) {
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

Report check_oracle(const Oracle& oracle, const Vec& x, const OracleCheckOptions& opt) {
  Report rep;
  const int n = oracle.outputs(), d = oracle.dim();
  if (x.size() != d) {
    rep.ok = false;
    rep.max_error = inf;
    rep.message = "check_oracle: x has size " + std::to_string(x.size()) + ", the oracle's dim() is " +
                  std::to_string(d);
    return rep;
  }
  if (!oracle.capabilities().has(Capability::Exact)) {
    rep.ok = false;
    rep.max_error = inf;
    rep.message = "check_oracle: the oracle has no exact evaluation (capability \"exact\"), "
                  "which the unbiasedness and finite-difference checks need";
    return rep;
  }
  if (opt.samples < 2) {
    rep.ok = false;
    rep.max_error = inf;
    rep.message = "check_oracle: samples must be >= 2 to estimate a standard deviation";
    return rep;
  }

  Failures unbiased("unbiasedness (sample mean vs exact, " + std::to_string(opt.samples) + " samples, " +
                    format_number(opt.z_limit, 10) + " standard errors)");
  Failures fd_exact("finite differences of exact f vs exact J");
  Failures fd_sample("finite differences of f~(.; xi) vs J~(.; xi) for one sample");

  try {
    // The Jacobians in the oracle's kind, compared as dense n x d matrices.
    Vec f_exact(n);
    Jacobian J_kind = make_jacobian(oracle);
    Mat J_exact;
    oracle.exact(x, &f_exact, &J_kind);
    J_kind.to_dense(J_exact);

    // (1) Unbiasedness. Welford's running mean and sum of squared deviations per component;
    // the allowance is z_limit standard errors of the mean (sample standard deviation), and
    // at least 1e-12 relative so that zero-variance components must match to rounding.
    Rng rng(opt.seed);
    auto sample = oracle.make_sample();
    Vec f(n), f_mean = Vec::Zero(n), f_m2 = Vec::Zero(n);
    Mat J(n, d), J_mean = Mat::Zero(n, d), J_m2 = Mat::Zero(n, d);
    for (int s = 1; s <= opt.samples; ++s) {
      oracle.draw(rng, *sample);
      oracle.evaluate(*sample, x, &f, &J_kind);
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
      else s += ", zero sample variance";
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

    // (2) and (3): central differences, column j of J against (f(x + h e_j) - f(x - h e_j)) / 2h,
    // within fd_tolerance * max(1, max |J|).
    const double h = opt.fd_step;
    auto fd_check = [&](Failures& out, const Mat& Jref, auto&& eval_f) {
      const double scale = std::max(1.0, Jref.size() ? Jref.cwiseAbs().maxCoeff() : 0.0);
      const double allowed = opt.fd_tolerance * scale;
      Vec xp = x, xm = x, fp(n), fm(n);
      for (int j = 0; j < d; ++j) {
        xp[j] = x[j] + h;
        xm[j] = x[j] - h;
        eval_f(xp, fp);
        eval_f(xm, fm);
        xp[j] = xm[j] = x[j];
        for (int i = 0; i < n; ++i) {
          const double fd = (fp[i] - fm[i]) / (2 * h);
          out.measure(std::abs(fd - Jref(i, j)), allowed, [&] {
            return j_name(i, j) + ": finite difference " + format_number(fd, 10) + " vs Jacobian " +
                   format_number(Jref(i, j), 10) + " (difference " + format_number(fd - Jref(i, j), 10) + ", allowed " +
                   format_number(allowed, 10) + ")";
          });
        }
      }
    };
    fd_check(fd_exact, J_exact, [&](const Vec& p, Vec& out) { oracle.exact(p, &out, nullptr); });

    oracle.draw(rng, *sample);
    Vec f_s(n), f_only(n);
    Mat J_s(n, d);
    oracle.evaluate(*sample, x, &f_s, &J_kind);
    J_kind.to_dense(J_s);
    fd_check(fd_sample, J_s, [&](const Vec& p, Vec& out) { oracle.evaluate(*sample, p, &out, nullptr); });
    // A null Jacobian pointer must only skip that output, not change f~.
    oracle.evaluate(*sample, x, &f_only, nullptr);
    for (int i = 0; i < n; ++i) {
      fd_sample.measure(std::abs(f_only[i] - f_s[i]), 1e-12 * std::max(1.0, std::abs(f_s[i])), [&] {
        return f_name(i) + ": evaluate(f only) gives " + format_number(f_only[i], 10) +
               " but evaluate(f and J) gives " + format_number(f_s[i], 10) + " for the same sample";
      });
    }
  } catch (const std::exception& e) {
    unbiased.fail(std::string("the oracle threw: ") + e.what());
  }

  finish(rep, {&unbiased, &fd_exact, &fd_sample},
         "check_oracle passed (n = " + std::to_string(n) + ", d = " + std::to_string(d) + ", " +
             std::to_string(opt.samples) + " samples): sample means within " + format_number(opt.z_limit, 10) +
             " standard errors of exact f and J; finite differences match exact J and one sample's J~");
  if (!rep.ok) {
    rep.message = "check_oracle (n = " + std::to_string(n) + ", d = " + std::to_string(d) + ") " + rep.message;
  }
  return rep;
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
