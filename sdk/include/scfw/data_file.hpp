// scfw SDK: helpers for plugins that read data files, header-only.
//
// Two rules keep a loader's messages one readable line: a quoted piece of the input is cut to
// its first 40 bytes with the total size (`excerpt`), so a 10 MB token does not land whole in a
// message; and a data path is checked before it is opened (`check_data_path`), so a folder is
// reported as one instead of reading as an empty file. A file that cannot be opened is reported
// with the system's reason (`open_data_file`). Fields of CSV-like files are read with `trim_field`
// and `parse_finite`.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "scfw/error.hpp"
#include "scfw/params.hpp"

namespace scfw {

/// `text` for a one-line message: whole when it has at most `keep` bytes, else its first `keep`
/// bytes (not cutting a UTF-8 character) followed by "... (N bytes)". Control characters (a NUL,
/// a tab, a newline; UTF-8 encoded, a C1 control such as U+0085 NEL, U+2028, U+2029) are shown
/// as '?', so the message stays one printable line.
inline std::string excerpt(std::string_view text, std::size_t keep = 40) {
  std::size_t cut = text.size();
  if (text.size() > keep) {
    cut = keep;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  }
  std::string out;
  out.reserve(cut + 24);
  for (std::size_t i = 0; i < cut; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto next = [&](std::size_t k) { return i + k < cut ? static_cast<unsigned char>(text[i + k]) : 0; };
    if (c == 0xC2 && next(1) >= 0x80 && next(1) <= 0x9F) {
      i += 1;  // a C1 control (UTF-8 C2 80 .. C2 9F), U+0085 (NEL) ending a line among them
      out += '?';
    } else if (c == 0xE2 && next(1) == 0x80 && (next(2) == 0xA8 || next(2) == 0xA9)) {
      i += 2;  // the line and paragraph separators U+2028, U+2029
      out += '?';
    } else {
      out += (c < 0x20 || c == 0x7F) ? '?' : static_cast<char>(c);
    }
  }
  if (cut < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

/// Whether `text` holds a control character as excerpt() counts them (C0, DEL, UTF-8 C1,
/// U+2028, U+2029): the characters a one-line message must not show raw.
inline bool has_control_character(std::string_view text) { return excerpt(text, text.size()) != text; }

/// What a file system entry is, for messages: "a regular file", "a directory", "a FIFO",
/// "a character device", ... ("a symbolic link" only for a status taken without following it).
inline std::string file_type_name(const std::filesystem::file_status& st) {
  namespace fs = std::filesystem;
  switch (st.type()) {
    case fs::file_type::regular: return "a regular file";
    case fs::file_type::directory: return "a directory";
    case fs::file_type::symlink: return "a symbolic link";
    case fs::file_type::block: return "a block device";
    case fs::file_type::character: return "a character device";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::socket: return "a socket";
    default: return "an unknown kind of file";
  }
}

/// Throws InputError("<path>: is a directory") when `path` names a folder, and
/// InputError("<path>: is not a regular file (a FIFO)") for a FIFO, a device (/dev/zero would be
/// read without end) or a socket: only regular files, which have a size, are read. A missing file
/// is left to the loader's own "cannot open" message (open_data_file below).
/// A path holding a control character is refused the same way ("<path, each control character
/// shown as ?>: ..."): every message of a loader starts with the path, and must stay one line.
inline void check_data_path(const std::string& path) {
  if (has_control_character(path))
    throw InputError(excerpt(path, path.size()) +
                     ": the file name holds a control character (shown as ?); rename the file");
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(st)) throw InputError(path + ": is a directory");
  if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
    throw InputError(path + ": is not a regular file (" + file_type_name(st) + ")");
}

/// " (<why>)" for a failure that left `err` (an errno value): the system's words, such as "No such
/// file or directory", "Permission denied", "File name too long"; "" for 0 (no reason left).
inline std::string open_failure(int err) {
  return err != 0 ? " (" + std::generic_category().message(err) + ")" : std::string();
}

/// The data files a problem reads, for the fingerprints of a checkpoint (docs/checkpoint.md):
/// while the host has set a record on the current thread (around composing a problem),
/// open_data_file() appends each path it opens to it. Returns the record set before (nullptr:
/// none), for the host to put back.
std::vector<std::string>* record_data_files(std::vector<std::string>* record);
/// Appends `path` to the current thread's record, if one is set.
void note_data_file(const std::string& path);

/// Opens `in` on `path` after check_data_path(path); when that fails, throws
/// InputError("<path>: cannot open file (<why>)"). The path is noted (record_data_files).
inline void open_data_file(std::ifstream& in, const std::string& path,
                           std::ios::openmode mode = std::ios::in) {
  check_data_path(path);
  errno = 0;
  in.open(path, mode);
  if (!in) throw InputError(path + ": cannot open file" + open_failure(errno));
  note_data_file(path);
}

/// Levenshtein distance between two names, for "did you mean" suggestions.
std::size_t edit_distance(const std::string& a, const std::string& b);

/// Where a data file named `file` in a problem file is read from: `file` itself when it is
/// absolute or `base_dir` (the problem file's folder, Context::base_dir) is empty (then relative
/// to the current directory), else base_dir / file.
std::string resolve_data_path(const std::string& file, const std::string& base_dir);

/// The data file `file`, given by the parameter `key` of `p` (for a list of files, one item of
/// it), resolved by resolve_data_path. When nothing exists at that path, throws through
/// p.fail(key, ...) a message that names the folder looked in (absolute) and the closest name it
/// holds: "<problem file>: <pointer>/<key>: no file 'a9a.tx' in /data (did you mean 'a9a.t'?)",
/// or "... no folder /data/x (the file 'x/a9a' resolved against /problems)" when the folder is
/// missing too. Any other trouble (a folder, no permission) is left to open_data_file().
std::string locate_data_file(const Params& p, const std::string& key, const std::string& file,
                             const std::string& base_dir);
/// locate_data_file for the string parameter `key` itself.
inline std::string locate_data_file(const Params& p, const std::string& key, const std::string& base_dir) {
  return locate_data_file(p, key, p.get<std::string>(key), base_dir);
}

/// A field of a text data file without the spaces, tabs and carriage returns around it.
inline std::string trim_field(std::string_view field) {
  const auto b = field.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return std::string(field.substr(b, field.find_last_not_of(" \t\r") - b + 1));
}

/// `field` read whole as a finite number into `value`: false when it is empty, holds anything
/// after the number, or is not finite (an overflow such as 1e400 included). The caller words the
/// message, with the field quoted through excerpt().
inline bool parse_finite(const std::string& field, double& value) {
  std::size_t used = 0;
  try {
    value = std::stod(field, &used);
  } catch (const std::exception&) {
    return false;
  }
  return !field.empty() && used == field.size() && std::isfinite(value);
}

}  // namespace scfw
