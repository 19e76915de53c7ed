// scfw core: reports as solver callbacks (loop.hpp). Printing and tracing stay out of the
// iteration loop: each is a Callback that reads the IterationState the loop hands over.
//
//   std::unique_ptr<scfw::OutputFile> file = scfw::open_trace_file("out/trace.csv");
//   scfw::TraceCsv trace(*file);
//   solver.add_callback(trace);
//   scfw::ProgressLine progress(std::cerr);
//   solver.add_callback(progress);
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iosfwd>
#include <memory>
#include <string>

#include "scfw/core/loop.hpp"
#include "scfw/core/output_file.hpp"

namespace scfw {

/// The header line of a trace, without the newline.
inline constexpr const char* kTraceHeader =
    "iteration,objective,gap,best_gap,seconds,gamma,beta,rho,glmo_value,glmo_iterations";

/// Writes the header (kTraceHeader) when the run begins, then one CSV row per iteration that
/// carries an exact gap (IterationState::has_gap). Every row is flushed as it is written, so the
/// rows written so far reach the stream (for scfw's own trace files, an OutputFile that the
/// host renames into place when the run ends, failed or interrupted included). A run that ends early
/// (interrupted, time limit, a callback's stop) gets a last row for its final point y_k when no
/// report was made there: with its objective and gap when the final report computed them, else
/// with those two fields empty. `out` must outlive the run.
///
/// The stream is checked after every write: when one fails (disk full, /dev/full) the next
/// iteration is aborted (status Failed) with reason error() = "<path>: cannot write the trace
/// file (<reason>)"; failed() stays true and the host exits with 1.
class TraceCsv final : public Callback {
 public:
  explicit TraceCsv(std::ostream& out, std::string path = "trace") : out_(out), path_(std::move(path)) {}
  void on_begin(const RunInfo&) override;
  CallbackResult on_iteration(const IterationState& s) override;
  void on_end(const Summary& s) override;
  std::string reason() const override { return error_; }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  void check();
  /// One row: `iteration`, the three gap fields (a null pointer leaves a field empty), then the
  /// seconds, steps and GLMO columns of `at`; flushed, then checked.
  void write_row(long iteration, const double* objective, const double* gap, const double* best_gap,
                 const IterationState& at);

  std::ostream& out_;
  std::string path_;
  std::string error_;
  long K_ = 0;
  long last_row_ = -1;
  IterationState last_;  // the last iteration seen (its y pointer is not kept valid)
};

/// The trace file at `path`, written through an exclusive temporary (output_file.hpp): `path`
/// keeps its previous content until close() renames the complete trace into place. Throws
/// InputError("<path>: cannot write the trace file (<reason>)") when it cannot be created.
std::unique_ptr<OutputFile> open_trace_file(const std::filesystem::path& path);

/// Plain progress lines for logs (stderr off a terminal, `scfw run --progress SECONDS`): at most
/// one every `interval_seconds` of run time, each a whole line
///   progress: iteration 1200/5000 (24%), objective 0.1234, gap 1.2e-03, elapsed 12s, ETA 38s
/// (objective and gap from the latest report, absent before the first). With a time limit (> 0)
/// the ETA is the sooner of K and the limit, marked "(time limit)" when the limit comes first.
/// Never stops the run.
class ProgressLog final : public Callback {
 public:
  ProgressLog(std::ostream& out, double interval_seconds, double time_limit = 0)
      : out_(out), interval_(interval_seconds), time_limit_(time_limit) {}
  CallbackResult on_iteration(const IterationState& s) override;

 private:
  std::ostream& out_;
  double interval_;
  double time_limit_;
  double last_ = 0;
  bool has_gap_ = false;
  double gap_ = 0, objective_ = 0;
};

/// A single status line redrawn in place with '\r': iteration/K, percentage, the latest exact
/// gap, iterations per second and the estimated time left. Redrawn at most every
/// `min_interval_seconds` (and always at the last iteration); on_end (or finish()) draws the
/// final state and ends the line with a newline. Meant for a terminal: the host uses it only
/// when stderr is one.
class ProgressLine final : public Callback {
 public:
  /// `time_limit` (> 0): the ETA is the sooner of K and the limit, as ProgressLog's.
  explicit ProgressLine(std::ostream& out, double min_interval_seconds = 0.1, double time_limit = 0);
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
  double time_limit_;
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
