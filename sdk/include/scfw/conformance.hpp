// scfw SDK: conformance checks a plugin author calls from their own tests, in the spirit of
// Ceres' gradient and manifold checkers. Each returns a report with the measured discrepancies
// and a verdict; assert on `ok` and print `message` when it fails.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scfw/roles.hpp"

namespace scfw::conformance {

/// One check of a report: what it compared, whether it held, and its worst measurement.
struct Check {
  std::string name;         ///< e.g. "finite differences of exact f vs exact J"
  bool ok = true;
  bool skipped = false;     ///< not run; `detail` says why
  double max_error = 0.0;   ///< the worst discrepancy over its allowance (ok: <= 1)
  double discrepancy = 0.0; ///< that discrepancy itself
  double allowed = 0.0;     ///< and its allowance
  std::string detail;       ///< on failure the first few failures, one per line; skipped: why
};

struct Report {
  bool ok = true;
  double max_error = 0.0;  ///< the largest discrepancy measured (meaning depends on the check)
  std::string message;     ///< what was checked and, on failure, where it broke
  std::vector<Check> checks;  ///< each check on its own, in the order run
};

struct OuterCheckOptions {
  int points = 50;           ///< random (u, x) pairs
  double scale = 3.0;        ///< u_i ~ U(-scale, scale); x drawn inside the domain box
  double tolerance = 1e-7;   ///< relative to max(1, |F|)
  unsigned long seed = 1;
};

/// For random u and points x of `domain` (drawn as convex combinations of LMO vertices), the
/// minimum of the outer function's model — solved by `glmo` over the single point x with V = 0 —
/// equals outer.value(u, x). Also checks the monotone and subhomogeneous flags where claimed.
/// `make_singleton` must return a Domain containing only the given point (e.g. a box with
/// lower == upper); `glmo` is set up afresh for each point.
Report check_outer_model(const OuterFunction& outer, int n, int d, Glmo& glmo,
                         const std::function<std::unique_ptr<Domain>(const Vec&)>& make_singleton,
                         const OuterCheckOptions& options = {});

struct OracleCheckOptions {
  int samples = 20000;          ///< draws for the unbiasedness check
  double z_limit = 5.0;         ///< |mean - exact| must be within z_limit standard errors
  double fd_step = 1e-6;        ///< central finite-difference step
  double fd_tolerance = 1e-5;   ///< relative to max(1, |J|_max)
  unsigned long seed = 1;
};

/// At x: (1) the sample mean of f~ and J~ agrees with the exact f and J within z_limit standard
/// errors, componentwise; (2) central finite differences of the exact f agree with the exact J;
/// (3) for one fixed sample, finite differences of f~(.; xi) agree with J~(.; xi).
/// Needs the oracle's "exact" capability.
/// Every output is checked for its size first: f with n entries, J n x d (a Jacobian left with
/// another shape is a size error naming both shapes, and nothing else is compared).
/// For an oracle with a sparse Jacobian, the sparse path is checked too: the products of J~ (J x,
/// J^T w) equal those of its dense copy, and finite differences vanish outside the pattern.
Report check_oracle(const Oracle& oracle, const Vec& x, const OracleCheckOptions& options = {});

/// What can be checked without the "exact" capability, on one fixed sample xi: the output sizes,
/// finite differences of f~(.; xi) against J~(.; xi), f~ alone against f~ with J~, and the sparse
/// path. The checks of exact f and J are listed as skipped.
Report check_oracle_sample(const Oracle& oracle, const Vec& x, const OracleCheckOptions& options = {});

struct DomainCheckOptions {
  int directions = 20;       ///< random directions g for the LMO
  int points = 20;           ///< random domain points each LMO answer is compared against
  double tolerance = 1e-7;   ///< relative to max(1, |<g, s>|, |<g, p>|) for values, max(1, |x|) for contains()
  unsigned long seed = 1;
};

/// The domain against itself: initial_point() lies in it (contains()); for random directions g
/// the LMO answer s lies in it and <g, s> <= <g, p> for every sampled domain point p (its
/// vertices from other directions, convex combinations of them, the initial point); the answer to
/// g given as its non-zeros is as good as the one to g given dense. When `glmo` is not null and the
/// domain declares an LP model, the minimum of <g, x> over that model (solved by `glmo`, set up
/// on the domain with a linear outer function of one output) equals <g, s>.
Report check_domain(const Domain& domain, Glmo* glmo = nullptr, const DomainCheckOptions& options = {});

}  // namespace scfw::conformance
