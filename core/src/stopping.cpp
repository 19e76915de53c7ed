#include "scfw/core/stopping.hpp"

#include "scfw/core/format.hpp"

namespace scfw {

CallbackResult LimitRule::on_iteration(const IterationState& s) {
  const bool gap = status_ == Status::GapTolerance;
  if (limit_ <= 0 || (gap && !s.has_gap)) return CallbackResult::Continue;
  const double measure = gap ? s.gap : s.seconds;
  if (!(gap ? measure <= limit_ : measure >= limit_)) return CallbackResult::Continue;  // NaN: not reached
  reached_ = measure;
  return CallbackResult::Stop;
}

std::string LimitRule::reason() const {
  if (status_ == Status::GapTolerance)
    return "gap " + format_as("%.3e", reached_) + " <= tolerance " + format_as("%.3g", limit_);
  return format_as("%.3f", reached_) + " s >= limit " + format_as("%.3g", limit_) + " s";
}

}  // namespace scfw
