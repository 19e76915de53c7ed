// scfw core: output files that are written whole or not at all, and the checks a run makes on
// its output paths before it starts (docs/outputs.md, "How outputs are written").
//
// Every file scfw writes (trace, solution, summary, checkpoint, compare's tables) goes through an
// OutputFile: the bytes go to a temporary created exclusively (O_EXCL, an unpredictable name
// `.<name>.XXXXXX` in the target's folder) and close() renames it over the target. The target is
// therefore either its previous content or the complete new one, never a partial file, whatever
// stops the process; a symlink planted at a predictable temporary name cannot redirect the write;
// and a target that is not a regular file (a FIFO, a device such as /dev/null, a folder) is never
// replaced.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace scfw {

/// What `path` names when it is neither a regular file (a symlink to one counts as one) nor
/// absent: "a directory", "a FIFO", "a character device", ... (scfw::file_type_name); "" otherwise.
std::string special_file_kind(const std::filesystem::path& path);

/// An output file being written. The constructor creates the parent folders and the exclusive
/// temporary, and throws Error("<target>: cannot write the <what> (<reason>)") when it cannot, or
/// when the target exists and is not a regular file. close() flushes, syncs and renames the
/// temporary over the target (over the file a symlink names, not the symlink); a failure on the
/// way sets failbit, keeps the previous target and removes the temporary. Destroyed before
/// close(), the temporary is removed and the target left as it was.
class OutputFile : public std::ostream {
 public:
  OutputFile(const std::filesystem::path& target, const std::string& what);
  ~OutputFile() override;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void close();
  const std::filesystem::path& target() const { return target_; }
  /// What the file is, as given to the constructor ("trace file").
  const std::string& what() const { return what_; }
  /// " (<reason>)" of the first failure, "" when there was none or no reason was left.
  const std::string& reason() const { return reason_; }

 private:
  class Buffer;
  void discard();

  std::filesystem::path target_;    // as given, for messages
  std::string what_;
  std::filesystem::path resolved_;  // the file the rename replaces (a symlink followed)
  std::filesystem::path temp_;
  std::unique_ptr<Buffer> buffer_;
  std::string reason_;
  bool open_ = false;
};

/// Writes `path` whole through an OutputFile: `write` fills the stream, then the file is renamed
/// into place. Throws Error("<path>: cannot write the <what> (<reason>)") on any failure, leaving
/// the previous file.
void write_output_file(const std::filesystem::path& path, const std::string& what,
                       const std::function<void(std::ostream&)>& write);

/// A file a run reads or writes, with its role for messages: an output's is a noun ("trace",
/// "solution"), an input's names it ("the problem file", "the checkpoint being resumed").
struct RunPath {
  std::string role;
  std::filesystem::path path;
};

/// Before a run writes anything: throws InputError when an output names an existing file that is
/// not a regular file ("out: is a FIFO, not a regular file: the trace cannot be written there"),
/// resolves (symlinks and hard links included) to one of `inputs` ("p.json: the solution would
/// overwrite the problem file, an input of this run") or to another output ("r.csv: the trace and the
/// solution name the same file; give each its own"). Empty paths and "-" are skipped.
void check_outputs(const std::vector<RunPath>& outputs, const std::vector<RunPath>& inputs);

}  // namespace scfw
