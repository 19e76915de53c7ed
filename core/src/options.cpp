#include "scfw/core/options.hpp"

#include <cmath>
#include <cstdio>

namespace scfw {

namespace {

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

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
    return reject(why, "gap tolerance: expected a finite number >= 0, got " + number(gap_tolerance));
  if (!(time_limit >= 0) || std::isnan(time_limit))
    return reject(why, "time limit: expected a number of seconds >= 0, got " + number(time_limit));
  if (why) why->clear();
  return true;
}

}  // namespace scfw
