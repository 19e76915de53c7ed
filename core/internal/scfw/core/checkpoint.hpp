// scfw core: checkpoints of a run and their resumption (docs/checkpoint.md).
//
// A checkpoint holds the loop's state (LoopState, loop.hpp: k, y_k, y_{k-1}, z_k, V_k, the run's
// random engine, the running summary), the trace rows written so far, and the
// saved state of every plugin object that keeps state able to change a later result
// (Capability::SavedState, roles.hpp): the algorithm's GLMO, the gap report's GLMO, the domain, the
// tracker. A run resumed from it gives bitwise the iterates and trace of the uninterrupted run.
//
// Its header records the scfw version, the problem (the blocks and settings that determine the
// iterates) and the plugin set; resuming under any other refuses with one line naming what
// differs. The file is written whole through a temporary and a rename (output_file.hpp), so a
// crash mid-write leaves the previous checkpoint intact.
//
//   scfw::Checkpointer ck(composed, fingerprint, "0.4.0", "run.ckpt", every, seconds);
//   solver.add_callback(ck.trace_capture());   // the trace rows go into each checkpoint
//   solver.set_state_hook(ck);
#pragma once

#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "scfw/core/loop.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/output_file.hpp"
#include "scfw/core/report.hpp"

namespace scfw {

/// What must match between a checkpoint and the run resuming it: the blocks and settings that
/// determine the iterates ("oracle", "outer", "domain", "tracker", "schedule", "glmo" as written
/// in the problem file, null when absent; the seed and K actually used) and the plugins composed.
struct RunIdentity {
  nlohmann::json problem;  ///< {"oracle": ..., ..., "seed": S, "iterations": K}
  struct Plugin {
    std::string role, name, library, version;
  };
  std::vector<Plugin> plugins;
  std::string scfw_version;
  /// Every data file the problem read (Problem::data_files): its size and FNV-1a 64 hash.
  struct DataFile {
    std::string path;
    std::uint64_t size = 0, hash = 0;
  };
  std::vector<DataFile> data;
  /// Every array passed in place of a data file (Problem::arrays), in the order passed: its name
  /// (in `path`), its bytes and the FNV-1a 64 hash of its kind, shape and contents (CSR indices
  /// hashed as 64-bit integers, whatever their width).
  std::vector<DataFile> arrays;
};

/// The identity of a composed run from its problem document (the options of `c` give seed and K),
/// with the fingerprints of its data files and arrays (each read whole: InputError "<path>: ..." when one
/// cannot be read).
RunIdentity run_identity(const Registry& registry, const nlohmann::json& doc, const Composition& c,
                         const std::string& scfw_version);

/// Plugin objects of `c` that keep state they cannot save: "glmo foo, domain bar". Empty when a
/// checkpoint can be exact.
std::string unsaveable_state(const Composition& c);

/// Everything a checkpoint file holds.
struct Checkpoint {
  RunIdentity identity;
  LoopState state;
  std::string trace;  ///< the trace so far: header and rows (empty when the run had no trace)
  std::string algorithm_glmo, gap_glmo, domain, tracker;  ///< saved component states ("" = none)
};

/// 64-bit FNV-1a of `bytes`, continuing from `h`: the checkpoint's checksum.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = 0xcbf29ce484222325ULL);

/// The text of a checkpoint file: header, state blocks, the checksum line over all that, "end".
std::string checkpoint_text(const Checkpoint& ck);
/// `text` with its checksum line made right again (for tests and the fuzz target, which edit a
/// checkpoint and must get past the checksum to reach what lies behind it); unchanged when it
/// has no checksum line before its end line.
std::string reseal_checkpoint(const std::string& text);
/// Writes `ck` to `file` whole, through an exclusive temporary and a rename (output_file.hpp).
/// Throws scfw::Error "<file>: cannot write the checkpoint (<reason>)" when it cannot.
void write_checkpoint(const std::filesystem::path& file, const Checkpoint& ck);
/// Reads a checkpoint file. Throws InputError "<file>: ..." when it is not one, is damaged
/// (checksum), or holds a block whose bytes are not its declared count of values.
Checkpoint read_checkpoint(const std::filesystem::path& file);
/// The same for a checkpoint's text; `file` names it in messages.
Checkpoint parse_checkpoint(const std::string& text, const std::string& file);

/// Refuses a checkpoint taken under another identity: InputError
/// "<file>: checkpoint: <what differs>", e.g. "scfw version 0.3.0 in the checkpoint, 0.4.0 running",
/// "problem differs (domain, seed)", "plugin glmo dense_simplex version 1.0.0 in the checkpoint, 1.1.0 loaded",
/// "data file d.csv differs from the one read when the checkpoint was taken (...)".
void check_identity(const std::string& file, const RunIdentity& saved, const RunIdentity& now);

/// Refuses a loop state that does not fit the composed run: InputError "<file>: checkpoint: the
/// saved state has other dimensions than the problem (d = 20, n = 4)", "... V is dense but the
/// oracle's Jacobian is sparse", "... is at iteration 0, outside 1..100". (The solver checks the
/// same when it resumes, without the file to name.)
void check_state(const std::string& file, const LoopState& state, const Composition& c);

/// The checkpoint of `c` at `state` held in memory: the loop state and the saved states of its
/// components, without identity or trace (`scfw validate --check`'s round trip).
Checkpoint capture_checkpoint(Composition& c, const LoopState& state);

/// Loads the saved component states into the freshly composed `c` (before the run).
void restore_components(const std::string& file, const Checkpoint& ck, Composition& c);

/// A StateHook that writes a checkpoint every `every` iterations (0: never by count) and/or every
/// `seconds` of run time (0: never by time), and when the run is stopped early (Ctrl-C, a time
/// limit). Add trace_capture() to the solver (after the trace, if any) so that each checkpoint
/// carries the trace rows.
class Checkpointer final : public StateHook {
 public:
  Checkpointer(Composition& c, RunIdentity identity, std::filesystem::path file, long every, double seconds);
  /// Continues a resumed run: its trace rows, and the time of its last checkpoint (so that
  /// --checkpoint-seconds counts from there, not from the start of the interrupted run).
  void continue_from(const Checkpoint& resumed);
  Callback& trace_capture() { return *capture_; }

  bool due(long done, double seconds, bool stopping) override;
  void save(const LoopState& state) override;
  long written() const { return written_; }

 private:
  Composition& c_;
  RunIdentity identity_;
  std::filesystem::path file_;
  long every_;
  double seconds_;
  double last_seconds_ = 0;
  long written_ = 0;
  std::ostringstream trace_;
  std::unique_ptr<Callback> capture_;
};

/// The trace of a resumed run: rewrites `path` as the checkpoint's header and rows (later rows of
/// the interrupted run are dropped, so none is duplicated), then appends a row per report.
class ResumedTrace final : public Callback {
 public:
  ResumedTrace(const std::filesystem::path& path, const std::string& saved_trace);
  CallbackResult on_iteration(const IterationState& s) override { return trace_->on_iteration(s); }
  /// Renames the complete trace into place (output_file.hpp). Throws Error "<path>: cannot
  /// write the trace file (<reason>)" when a write failed; until then `path` is untouched.
  void finish();

 private:
  std::unique_ptr<OutputFile> file_;
  std::unique_ptr<TraceCsv> trace_;
};

}  // namespace scfw
