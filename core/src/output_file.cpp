#include "scfw/core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <streambuf>
#include <system_error>

#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;

namespace scfw {

namespace {

std::string reason_of(int err) { return err ? " (" + std::string(std::strerror(err)) + ")" : std::string(); }

// The process's umask, read without changing it (Linux's /proc/self/status has it); the mode a
// new output gets is 0666 without it, as for a file opened by std::ofstream.
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  return 022;
}

// The file `path` names once symlinks are followed, a dangling one included (its target is
// the file a write creates): absolute, with the symlinks of its existing part resolved.
bool names_symlink(const fs::path& path) {
  std::error_code ec;  // set for a path that does not exist
  return fs::is_symlink(fs::symlink_status(path, ec));
}

fs::path resolve(fs::path path, std::error_code& ec) {
  for (int hops = 0; hops < 40; ++hops) {
    if (!names_symlink(path)) break;
    const fs::path to = fs::read_symlink(path, ec);
    if (ec) return {};
    path = to.is_absolute() ? to : path.parent_path() / to;
  }
  ec.clear();
  return fs::weakly_canonical(fs::absolute(path, ec), ec);
}

// Whether two paths name the same file: the same inode when both exist (hard links included),
// else the same path once symlinks are followed.
bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
  const fs::path ra = resolve(a, ec);
  if (ec) return false;
  const fs::path rb = resolve(b, ec);
  return !ec && ra == rb;
}

}  // namespace

std::string special_file_kind(const fs::path& path) {
  std::error_code ec;  // set for a path that does not exist (or a dangling symlink): nothing to replace
  const fs::file_status st = fs::status(path, ec);
  return !fs::exists(st) || fs::is_regular_file(st) ? std::string() : file_type_name(st);
}

// A stream buffer over the temporary's file descriptor.
class OutputFile::Buffer final : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd) { setp(data_.data(), data_.data() + data_.size()); }
  ~Buffer() override {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }
  int error() const { return error_; }
  // Closes the descriptor after syncing the data to disk; false (error() set) on failure.
  bool finish(mode_t mode) {
    bool ok = sync() == 0;
    if (ok && ::fchmod(fd_, mode) != 0) ok = fail(errno);
    if (ok && ::fsync(fd_) != 0) ok = fail(errno);
    if (::close(fd_) != 0 && ok) ok = fail(errno);
    fd_ = -1;
    return ok;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool fail(int err) {
    if (!error_) error_ = err ? err : EIO;
    return false;
  }
  bool drain() {
    if (error_) return false;
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0) {
        if (errno == EINTR) continue;  // a signal the run handles (Ctrl-C): keep writing
        return fail(errno);
      }
      p += n;
    }
    setp(data_.data(), data_.data() + data_.size());
    return true;
  }

  int fd_;
  int error_ = 0;
  std::array<char, 1 << 16> data_{};
};

OutputFile::OutputFile(const fs::path& target, const std::string& what) : std::ostream(nullptr), target_(target), what_(what) {
  const std::string fail = target.string() + ": cannot write the " + what;
  if (const std::string kind = special_file_kind(target); !kind.empty())
    throw Error(fail + " (it is " + kind + "; scfw replaces only regular files)");
  std::error_code ec;
  resolved_ = names_symlink(target) ? resolve(target, ec) : target;
  if (ec) throw Error(fail + " (" + ec.message() + ")");
  const fs::path folder = resolved_.parent_path();
  if (!folder.empty()) {
    fs::create_directories(folder, ec);
    if (ec) throw Error(fail + " (" + ec.message() + ")");
  }
  std::string leaf = ".";
  leaf += resolved_.filename().string();
  leaf += ".XXXXXX";
  std::string name = (folder / leaf).string();
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) throw Error(fail + reason_of(errno));
  temp_ = name;
  buffer_ = std::make_unique<Buffer>(fd);
  rdbuf(buffer_.get());
  open_ = true;
}

OutputFile::~OutputFile() {
  if (open_) discard();
}

void OutputFile::discard() {
  rdbuf(nullptr);
  buffer_.reset();
  std::error_code ec;
  fs::remove(temp_, ec);
  open_ = false;
}

void OutputFile::close() {
  if (!open_) return;
  flush();
  struct stat st {};
  const mode_t mode = ::stat(resolved_.c_str(), &st) == 0 && S_ISREG(st.st_mode)
                          ? (st.st_mode & 07777)
                          : static_cast<mode_t>(0666 & ~current_umask());
  const bool written = !fail() && buffer_->finish(mode);
  int err = buffer_->error();
  if (written && ::rename(temp_.c_str(), resolved_.c_str()) == 0) {
    open_ = false;  // the buffer stays attached (a null one would set badbit) with its descriptor closed
    return;
  }
  if (!err) err = errno;
  reason_ = reason_of(err);
  discard();
  setstate(std::ios::failbit);
}

void write_output_file(const fs::path& path, const std::string& what, const std::function<void(std::ostream&)>& write) {
  OutputFile out(path, what);
  write(out);
  out.close();
  if (out.fail()) throw Error(path.string() + ": cannot write the " + what + out.reason());
}

void check_outputs(const std::vector<RunPath>& outputs, const std::vector<RunPath>& inputs) {
  auto skip = [](const RunPath& p) { return p.path.empty() || p.path == "-"; };
  for (size_t i = 0; i < outputs.size(); ++i) {
    const RunPath& out = outputs[i];
    if (skip(out)) continue;
    const std::string where = excerpt(out.path.string(), 200) + ": ";
    if (const std::string kind = special_file_kind(out.path); !kind.empty())
      throw InputError(where + "is " + kind + ", not a regular file: the " + out.role + " cannot be written there");
    for (const RunPath& in : inputs)
      if (!skip(in) && same_file(out.path, in.path))
        throw InputError(where + "the " + out.role + " would overwrite " + in.role + ", an input of this run");
    for (size_t j = 0; j < i; ++j)
      if (!skip(outputs[j]) && same_file(out.path, outputs[j].path))
        throw InputError(where + "the " + outputs[j].role + " and the " + out.role +
                         " name the same file; give each its own");
  }
}

}  // namespace scfw
