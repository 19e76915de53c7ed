// scfw core: reports as solver callbacks (see solver.hpp). Printing and tracing stay out of the
// iteration loop: each is a Callback that reads the IterationState the loop hands over.
//
//   std::unique_ptr<std::ofstream> file = scfw::open_trace_file("out/trace.csv");
//   solver.add_callback(scfw::trace_csv(*file));
//   solver.add_callback(scfw::progress_line(std::cerr));
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iosfwd>
#include <memory>

#include "scfw/core/solver.hpp"

namespace scfw {

/// The header line of a trace, without the newline.
inline constexpr const char* kTraceHeader =
    "iteration,objective,gap,best_gap,seconds,gamma,beta,rho,glmo_value,glmo_iterations";

/// Writes the header (kTraceHeader) now, then one CSV row per iteration that carries an exact
/// gap (IterationState::has_gap). Every row is flushed as it is written, so the rows written so
/// far stay readable when the run fails or is interrupted. `out` must outlive the run. Never
/// stops the run.
Callback trace_csv(std::ostream& out);

/// Creates the parent folders of `path` and opens it for writing (truncating).
/// Throws InputError("<path>: cannot write trace file") when either fails.
std::unique_ptr<std::ofstream> open_trace_file(const std::filesystem::path& path);

/// A single status line redrawn in place with '\r': iteration/K, percentage, the latest exact
/// gap, iterations per second and the estimated time left. Redrawn at most every
/// `min_interval_seconds` (and always at the last iteration); finish() draws the final state and
/// ends the line with a newline. Meant for a terminal: the host uses it only when stderr is one.
class ProgressLine {
 public:
  explicit ProgressLine(std::ostream& out, double min_interval_seconds = 0.1);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// The callback body: records the state and redraws when due. Returns true (never stops).
  bool operator()(const IterationState& s);
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

/// A Callback around a shared ProgressLine that finishes the line by itself after the last
/// iteration. A run stopped early leaves the line open; call finish() on a ProgressLine you own
/// when that matters (the host does).
Callback progress_line(std::ostream& out, double min_interval_seconds = 0.1);

}  // namespace scfw
