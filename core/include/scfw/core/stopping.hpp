// scfw core: the stopping rules, callbacks that end a run successfully (loop.hpp). The solver
// adds the rules of its options (gap tolerance, time limit) after the caller's callbacks; a host
// adds a StopRequest for its own signal (Ctrl-C).
#pragma once

#include <functional>
#include <string>

#include "scfw/core/loop.hpp"

namespace scfw {

/// A stopping rule of the options: ends the run successfully at the first iteration whose measure
/// reaches the limit; a limit of 0 never does. The reason names the measure and the limit.
class LimitRule : public Callback {
 public:
  CallbackResult on_iteration(const IterationState& s) override;
  Status stop_status() const override { return status_; }
  std::string reason() const override;

 protected:
  /// status GapTolerance: the measure is a reported gap, reached at <= limit; TimeLimit: the
  /// seconds since the start, reached at >= limit.
  LimitRule(double limit, Status status) : limit_(limit), status_(status) {}

 private:
  double limit_;
  Status status_;
  double reached_ = 0;  ///< the measure that stopped the run
};

/// Stops the run (status GapTolerance) at the first reported gap <= tolerance (0: never).
class GapToleranceRule final : public LimitRule {
 public:
  explicit GapToleranceRule(double tolerance) : LimitRule(tolerance, Status::GapTolerance) {}
};

/// Stops the run (status TimeLimit) after the first iteration that ends past `seconds` (0: never).
class TimeLimitRule final : public LimitRule {
 public:
  explicit TimeLimitRule(double seconds) : LimitRule(seconds, Status::TimeLimit) {}
};

/// Stops the run (status Interrupted by default) when `requested()` turns true, e.g. a Ctrl-C
/// flag; polled after every iteration, so it must be cheap.
class StopRequest final : public Callback {
 public:
  explicit StopRequest(std::function<bool()> requested, Status status = Status::Interrupted, std::string reason = {})
      : requested_(std::move(requested)), status_(status), reason_(std::move(reason)) {}
  CallbackResult on_iteration(const IterationState&) override {
    return requested_() ? CallbackResult::Stop : CallbackResult::Continue;
  }
  Status stop_status() const override { return status_; }
  std::string reason() const override { return reason_; }

 private:
  std::function<bool()> requested_;
  Status status_;
  std::string reason_;
};

}  // namespace scfw
