// scfw SDK: conformance checks a plugin author calls from their own tests, in the spirit of
// Ceres' gradient and manifold checkers. Each returns a report with the measured discrepancies
// and a verdict; assert on `ok` and print `message` when it fails.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "scfw/roles.hpp"

namespace scfw::conformance {

struct Report {
  bool ok = true;
  double max_error = 0.0;  ///< the largest discrepancy measured (meaning depends on the check)
  std::string message;     ///< what was checked and, on failure, where it broke
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
Report check_oracle(const Oracle& oracle, const Vec& x, const OracleCheckOptions& options = {});

}  // namespace scfw::conformance
