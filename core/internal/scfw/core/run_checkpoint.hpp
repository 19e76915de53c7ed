// scfw core: what a host's checkpoint options ask of one run (docs/checkpoint.md), for `scfw run`
// (--checkpoint, --checkpoint-every, --checkpoint-seconds, --resume) and the Python module's
// solve(checkpoint=..., resume=...), so that both resume, write and report the same way.
//
//   scfw::RunCheckpoint ck(registry, doc, composed, SCFW_VERSION, {"run.ckpt", "", 0, 60.0});
//   if (ck.resumed()) solver.add_callback(ck.continue_trace(trace_path));
//   ...the other callbacks...
//   ck.attach(solver);
//   solver.run();
//   ck.finish_trace();
//   std::cout << ck.summary();
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "scfw/core/checkpoint.hpp"
#include "scfw/core/solver.hpp"

namespace scfw {

/// The checkpoint options of a run, checked by the host (every >= 0, seconds >= 0).
struct CheckpointRequest {
  std::string file;      ///< write checkpoints to this file ("" = none)
  std::string resume;    ///< continue the run saved in this file ("" = a new run)
  long every = 0;        ///< a checkpoint every `every` iterations (0 = never by count)
  double seconds = 60;   ///< a checkpoint every `seconds` of run time (0 = never by time)
};

/// One run's checkpoints: the checkpoint it resumes (refused with InputError "<file>: checkpoint:
/// ..." when it does not fit the composed run) and the Checkpointer that writes new ones. Construct
/// after composing, before adding the trace: a resumed run's trace is continue_trace().
class RunCheckpoint {
 public:
  /// Names the plugin objects of a composition whose state a checkpoint cannot hold ("" when it
  /// can hold all): unsaveable_state, or a host's wording of it.
  using Unsaveable = std::function<std::string(const Composition&)>;

  /// Reads and checks the checkpoint to resume and restores the components' states from it;
  /// `doc` is the problem document (for the run's identity). Nothing is read or checked when
  /// the request names no file.
  RunCheckpoint(const Registry& registry, const nlohmann::json& doc, Composition& c, const std::string& version,
                CheckpointRequest request, const Unsaveable& unsaveable = unsaveable_state);

  bool resumed() const { return resumed_ != nullptr; }
  /// The resumed run's trace (header and rows; "" for a new run or a run without trace).
  const std::string& resumed_trace() const;
  /// The trace file of a resumed run: the checkpoint's rows, then the new ones.
  Callback& continue_trace(const std::filesystem::path& path);
  /// After the run: puts the resumed run's trace in place (nothing without continue_trace()).
  void finish_trace();
  /// Sets the solver up to resume and/or to write checkpoints. Call after the other callbacks.
  void attach(Solver& solver);
  /// Lines for the run summary ("" when nothing was resumed or written).
  std::string summary() const;

 private:
  CheckpointRequest request_;
  std::unique_ptr<Checkpoint> resumed_;
  std::unique_ptr<Checkpointer> writer_;
  std::unique_ptr<ResumedTrace> trace_;
};

}  // namespace scfw
