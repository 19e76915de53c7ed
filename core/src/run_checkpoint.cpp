#include "scfw/core/run_checkpoint.hpp"

#include "scfw/error.hpp"

namespace scfw {

RunCheckpoint::RunCheckpoint(const Registry& registry, const nlohmann::json& doc, Composition& c,
                             const std::string& version, CheckpointRequest request, const Unsaveable& unsaveable)
    : request_(std::move(request)) {
  if (request_.file.empty() && request_.resume.empty()) return;
  const RunIdentity identity = run_identity(registry, doc, c, version);
  if (!request_.resume.empty()) {
    const std::string& file = request_.resume;
    resumed_ = std::make_unique<Checkpoint>(read_checkpoint(file));
    check_identity(file, resumed_->identity, identity);
    const std::string which = unsaveable(c);
    if (!which.empty()) throw InputError(file + ": checkpoint: " + which + " keeps warm state it cannot restore");
    check_state(file, resumed_->state, c);
    restore_components(file, *resumed_, c);
  }
  if (!request_.file.empty()) {
    const std::string which = unsaveable(c);
    if (!which.empty())
      throw InputError("--checkpoint: " + which + " keeps warm state it cannot save, so a resumed run would not be exact");
    writer_ = std::make_unique<Checkpointer>(c, identity, request_.file, request_.every, request_.seconds);
    if (resumed_) writer_->continue_from(*resumed_);
  }
}

const std::string& RunCheckpoint::resumed_trace() const {
  static const std::string none;
  return resumed_ ? resumed_->trace : none;
}

Callback& RunCheckpoint::continue_trace(const std::filesystem::path& path) {
  trace_ = std::make_unique<ResumedTrace>(path, resumed_trace());
  return *trace_;
}

void RunCheckpoint::finish_trace() {
  if (trace_) trace_->finish();
}

void RunCheckpoint::attach(Solver& solver) {
  if (resumed_) solver.resume_from(resumed_->state);
  if (writer_) {
    solver.add_callback(writer_->trace_capture());
    solver.set_state_hook(*writer_);
  }
}

std::string RunCheckpoint::summary() const {
  std::string out;
  if (resumed_)
    out += "resumed         from " + request_.resume + " at iteration " + std::to_string(resumed_->state.done) + "\n";
  if (writer_)
    out += "checkpoint      " + request_.file + " written " + std::to_string(writer_->written()) + " time" +
           (writer_->written() == 1 ? "" : "s") + "\n";
  return out;
}

}  // namespace scfw
