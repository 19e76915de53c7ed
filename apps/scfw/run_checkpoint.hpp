// scfw run: the checkpoint options (--checkpoint, --checkpoint-every, --checkpoint-seconds,
// --resume) around scfw/core/checkpoint.hpp. See docs/checkpoint.md.
#pragma once

#include <boost/program_options.hpp>
#include <iosfwd>
#include <memory>
#include <string>

#include "scfw/core/checkpoint.hpp"
#include "scfw/core/solver.hpp"

namespace scfw_app {

/// The options, for `scfw run --help`.
boost::program_options::options_description checkpoint_options();

/// What the checkpoint options ask of one run. Construct after composing, before adding the
/// trace: a resumed run's trace is continue_trace(), not a fresh TraceCsv.
class RunCheckpoint {
 public:
  /// Throws a UsageError-like std::invalid_argument for bad option values ("--checkpoint-every: ...")
  /// and InputError when the checkpoint to resume is refused.
  RunCheckpoint(const boost::program_options::variables_map& vm, const scfw::Registry& registry,
                const std::string& problem_file, scfw::Composition& composed, const std::string& version);

  bool resumed() const { return resumed_ != nullptr; }
  /// The trace of a resumed run: the checkpoint's rows, then the new ones.
  scfw::Callback& continue_trace(const std::string& path);
  /// After the run: puts the resumed run's trace in place (nothing without continue_trace()).
  void finish_trace() {
    if (trace_) trace_->finish();
  }
  /// Sets the solver up to resume and/or to write checkpoints. Call after the other callbacks.
  void attach(scfw::Solver& solver);
  /// Lines for the run summary ("" when the options were not used).
  std::string summary() const;

 private:
  std::unique_ptr<scfw::Checkpoint> resumed_;
  std::string resume_file_;
  std::unique_ptr<scfw::Checkpointer> writer_;
  std::string checkpoint_file_;
  std::unique_ptr<scfw::ResumedTrace> trace_;
};

}  // namespace scfw_app
