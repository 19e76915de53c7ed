#include "scfw/core/options.hpp"

#include <cmath>

#include "scfw/helpers.hpp"
#include "scfw/roles.hpp"

namespace scfw {

namespace {

bool reject(std::string* why, const std::string& what) {
  if (why) *why = what;
  return false;
}

}  // namespace

bool SolverOptions::IsValid(std::string* why) const {
  if (iterations < 1) return reject(why, "iterations: expected an integer >= 1, got " + std::to_string(iterations));
  if (report_every < 0)
    return reject(why, "report every: expected an integer >= 0, got " + std::to_string(report_every));
  if (!(gap_tolerance >= 0) || !std::isfinite(gap_tolerance))
    return reject(why, "gap tolerance: expected a finite number >= 0, got " + format_number(gap_tolerance));
  if (!(time_limit >= 0) || std::isnan(time_limit))
    return reject(why, "time limit: expected a number of seconds >= 0, got " + format_number(time_limit));
  if (why) why->clear();
  return true;
}

bool SolverOptions::IsValidFor(const Oracle* oracle, std::string* why) const {
  if (!IsValid(why)) return false;
  if (gap_tolerance > 0 && oracle && !oracle->capabilities().has(Capability::Exact))
    return reject(why, "gap tolerance: the oracle has no exact evaluation, so no gap is ever computed");
  // Checked at gap reports: with none before the last iteration it could never stop the run.
  if (gap_tolerance > 0 && (report_every == 0 || report_every >= iterations))
    return reject(why, "gap tolerance: needs gap reports during the run (report every N < " +
                           std::to_string(iterations) + " iterations), but report every is " +
                           std::to_string(report_every));
  return true;
}

}  // namespace scfw
