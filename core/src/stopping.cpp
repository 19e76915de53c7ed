#include "scfw/core/stopping.hpp"

#include <cstdio>

namespace scfw {

CallbackResult GapToleranceRule::on_iteration(const IterationState& s) {
  if (tolerance_ > 0 && s.has_gap && s.gap <= tolerance_) {
    gap_ = s.gap;
    return CallbackResult::Stop;
  }
  return CallbackResult::Continue;
}

std::string GapToleranceRule::reason() const {
  char buf[96];
  std::snprintf(buf, sizeof buf, "gap %.3e <= tolerance %.3g", gap_, tolerance_);
  return buf;
}

CallbackResult TimeLimitRule::on_iteration(const IterationState& s) {
  if (limit_ > 0 && s.seconds >= limit_) {
    seconds_ = s.seconds;
    return CallbackResult::Stop;
  }
  return CallbackResult::Continue;
}

std::string TimeLimitRule::reason() const {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3f s >= limit %.3g s", seconds_, limit_);
  return buf;
}

}  // namespace scfw
