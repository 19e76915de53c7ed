// scfw core: `scfw validate --check`, the SDK's conformance checks (scfw/conformance.hpp) run on
// the plugins of a composed problem, as composed (docs/plugins.md, "Checking a composed problem").
//
//   oracle    output sizes; sample means against exact f and J; finite differences of exact f
//             and of one fixed sample's f~ against J and J~; for a sparse Jacobian the pattern's
//             products against the dense copy's and zero finite differences outside it. Without
//             the "exact" capability only the one-sample checks run, the others are skipped.
//   outer     its model's minimum over a single point (the clp GLMO over a box with lower ==
//             upper) against value(u, x), and the traits it claims.
//   domain    its LMO's answers inside it by contains(), better than sampled domain points, the
//             same for a sparse direction, and equal to the minimum over its LP model.
//   state     a short run stopped half-way, its saved plugin states loaded into a freshly
//             composed problem and continued, against the run not stopped: bitwise the same y.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scfw/core/problem.hpp"

namespace scfw {

struct PluginCheck {
  std::string role;    ///< "oracle", "outer", "domain", "state"
  std::string plugin;  ///< the plugin's name ("glmo dense_simplex, domain polytope" for state)
  std::string name;    ///< what was compared
  enum class Verdict { Pass, Fail, Skipped } verdict = Verdict::Pass;
  double discrepancy = 0;  ///< the worst measured discrepancy
  double allowed = 0;      ///< its allowance
  std::string detail;      ///< failure: where it broke (first failures, one per line); skipped: why
};

/// Composes the problem of `doc` as compose() does and runs the checks above on its plugins.
/// Bad input throws InputError as compose() does; a check that fails is a verdict, not an
/// exception.
std::vector<PluginCheck> check_plugins(const Registry& registry, const nlohmann::json& doc, const std::string& source,
                                       const std::filesystem::path& base_dir, const Overrides& overrides = {});

/// One line for a check: "oracle NAME: WHAT: ok, worst discrepancy D (allowed A)",
/// "...: FAILED, ...", "...: skipped (WHY)".
std::string format_check(const PluginCheck& c);

}  // namespace scfw
