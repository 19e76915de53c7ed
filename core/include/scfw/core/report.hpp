// scfw core: reports and stopping rules as solver callbacks (see solver.hpp). Printing, tracing
// and stopping stay out of the iteration loop: each is a Callback that reads the IterationState
// the loop hands over.
//
//   std::unique_ptr<std::ofstream> file = scfw::open_trace_file("out/trace.csv");
//   scfw::TraceCsv trace(*file);
//   solver.add_callback(trace);
//   scfw::ProgressLine progress(std::cerr);
//   solver.add_callback(progress);
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "scfw/core/solver.hpp"

namespace scfw {

/// The header line of a trace, without the newline.
inline constexpr const char* kTraceHeader =
    "iteration,objective,gap,best_gap,seconds,gamma,beta,rho,glmo_value,glmo_iterations";

/// Writes the header (kTraceHeader) when the run begins, then one CSV row per iteration that
/// carries an exact gap (IterationState::has_gap). Every row is flushed as it is written, so the
/// rows written so far stay readable when the run fails or is interrupted. `out` must outlive the
/// run. Never stops the run.
class TraceCsv final : public Callback {
 public:
  explicit TraceCsv(std::ostream& out) : out_(out) {}
  void on_begin(const RunInfo&) override;
  CallbackResult on_iteration(const IterationState& s) override;

 private:
  std::ostream& out_;
};

/// Stops the run (status GapTolerance) at the first reported gap <= tolerance (0: never).
class GapToleranceRule final : public Callback {
 public:
  explicit GapToleranceRule(double tolerance) : tolerance_(tolerance) {}
  CallbackResult on_iteration(const IterationState& s) override;
  Status stop_status() const override { return Status::GapTolerance; }
  std::string reason() const override;

 private:
  double tolerance_;
  double gap_ = 0;
};

/// Stops the run (status TimeLimit) after the first iteration that ends past `seconds` (0: never).
class TimeLimitRule final : public Callback {
 public:
  explicit TimeLimitRule(double seconds) : limit_(seconds) {}
  CallbackResult on_iteration(const IterationState& s) override;
  Status stop_status() const override { return Status::TimeLimit; }
  std::string reason() const override;

 private:
  double limit_;
  double seconds_ = 0;
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

/// Creates the parent folders of `path` and opens it for writing (truncating).
/// Throws InputError("<path>: cannot write trace file") when either fails.
std::unique_ptr<std::ofstream> open_trace_file(const std::filesystem::path& path);

/// A single status line redrawn in place with '\r': iteration/K, percentage, the latest exact
/// gap, iterations per second and the estimated time left. Redrawn at most every
/// `min_interval_seconds` (and always at the last iteration); on_end (or finish()) draws the
/// final state and ends the line with a newline. Meant for a terminal: the host uses it only
/// when stderr is one.
class ProgressLine final : public Callback {
 public:
  explicit ProgressLine(std::ostream& out, double min_interval_seconds = 0.1);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Records the state and redraws when due. Never stops the run.
  CallbackResult on_iteration(const IterationState& s) override;
  /// Ends the line (a run stopped early or failed included).
  void on_end(const Summary&) override { finish(); }
  /// Redraws the last state and ends the line. Idempotent; does nothing if nothing was drawn.
  void finish();

 private:
  void draw();

  std::ostream& out_;
  double min_interval_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
  bool finished_ = false;
  size_t last_width_ = 0;
  // Latest state (copied: the IterationState is only valid during the call).
  long iteration_ = 0, iterations_ = 0;
  double seconds_ = 0, gap_ = 0;
  bool has_gap_ = false;
};

}  // namespace scfw
