// scfw core: a problem or experiment file read into a JSON document, strictly.
//
// nlohmann's own DOM parser keeps the last of two equal keys and reports a number that overflows
// a double (1e400) without a location. This reader builds the document through the SAX interface
// instead and refuses, each as one InputError line:
//   * a syntax error or a number out of range: "<file>: line L, column C: <what>";
//   * a key given twice in one object: "<file>: <JSON pointer>: duplicate key ...";
//   * a path that is not a regular file (a folder, /dev/zero, a FIFO), or a file over
//     kMaxJsonFileBytes (64 MiB): "<file>: is a directory", "<file>: is not a regular file (a
//     character device)", "<file>: the file has N bytes; ... limited to 67108864 bytes (64 MiB)";
//   * nesting deeper than kMaxNesting objects and arrays (a document nested tens of thousands of
//     levels deep would exhaust the stack of anything that walks it later).
#include <algorithm>
#include <cerrno>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <vector>

#include "scfw/core/diagnostics.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

namespace scfw {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxNesting = 256;
// The largest problem or experiment file read: 64 MiB. Parsed, a JSON document takes several
// times its size (a 224 MB file took 5.5 GB); data belongs in the data files plugins read.
constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t{64} << 20;

class DocumentBuilder final : public nlohmann::json_sax<json> {
 public:
  explicit DocumentBuilder(std::string name) : name_(std::move(name)) {}

  json& document() { return root_; }
  bool failed() const { return failed_; }
  bool has_position() const { return has_position_; }
  std::size_t position() const { return position_; }
  const std::string& message() const { return message_; }

  bool null() override { return add(json(nullptr)); }
  bool boolean(bool v) override { return add(json(v)); }
  bool number_integer(number_integer_t v) override { return add(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return add(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return add(json(v)); }
  bool string(string_t& v) override { return add(json(std::move(v))); }
  bool binary(binary_t& v) override { return add(json::binary(std::move(v))); }

  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& k) override {
    json& object = *open_.back();
    if (object.contains(k))
      return fail(name_ + ": " + (pointer().empty() ? "" : shortened(pointer())) + "/" +
                  diagnostics::excerpt(diagnostics::pointer_token(k)) +
                  ": duplicate key (a JSON object names each key once)");
    key_ = std::move(k);
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    has_position_ = true;
    position_ = position;
    // The parser's explanation without its "[json.exception.parse_error.101] parse error at
    // line L, column C: " or "[json.exception.out_of_range.406] " prefix.
    std::string what = e.what();
    if (const size_t head = what.find("parse error"); head != std::string::npos) {
      if (const size_t colon = what.find(": ", head); colon != std::string::npos) what = what.substr(colon + 2);
    } else if (const size_t bracket = what.find("] "); bracket != std::string::npos) {
      what = what.substr(bracket + 2);
    }
    // The token the parser quotes ("last read: '<token>'", then "; expected <what>" or nothing;
    // "number overflow parsing '<token>'") is the file's: cut to 40 bytes, control characters (a
    // DEL) shown as '?' (diagnostics::excerpt). The token may hold any text, quotes and the parser's own
    // words included: it ends before the quote that the parser's fixed ending follows.
    static const char* const endings[] = {"'; expected string literal", "'; expected ':'", "'; expected ','",
                                          "'; expected end of input", "'; expected '[', '{', or a literal",
                                          "'; expected number literal", "'; expected ']'", "'; expected '}'", "'"};
    for (const std::string marker : {"last read: '", "parsing '"}) {
      const size_t at = what.find(marker);
      if (at == std::string::npos) continue;
      const size_t start = at + marker.size();
      for (const std::string ending : endings) {
        if (what.size() < start + ending.size() || what.compare(what.size() - ending.size(), ending.size(), ending) != 0)
          continue;
        const size_t end = what.size() - ending.size();
        what = what.substr(0, start) + diagnostics::excerpt(std::string_view(what).substr(start, end - start)) + ending;
        break;
      }
      break;
    }
    failed_ = true;
    message_ = what;
    return false;
  }

 private:
  // The JSON pointer of the innermost open container.
  std::string pointer() const {
    std::string p;
    for (size_t i = 1; i < path_.size(); ++i) p += "/" + path_[i];
    return p;
  }

  // A pointer for a one-line message: its first 60 characters, then "/...".
  static std::string shortened(const std::string& p) {
    if (p.empty()) return "/";
    if (p.size() <= 60) return p;
    return p.substr(0, p.rfind('/', 60)) + "/...";
  }

  // Where a new value goes: the root, the pending key of the open object, or the end of the open
  // array. Returns the token of that place, for pointers in messages: a key as the file spells
  // it, cut to 40 bytes with control characters as '?' (the key may hold anything).
  json& place(std::string& token) {
    if (open_.empty()) return root_;
    json& parent = *open_.back();
    if (parent.is_object()) {
      token = diagnostics::excerpt(diagnostics::pointer_token(key_));
      return parent[key_];
    }
    token = std::to_string(parent.size());
    parent.push_back(json());
    return parent.back();
  }

  bool add(json v) {
    std::string token;
    place(token) = std::move(v);
    return true;
  }

  bool open(json container) {
    if (open_.size() >= kMaxNesting)
      return fail(name_ + ": " + shortened(pointer()) + ": objects and arrays nested deeper than " +
                  std::to_string(kMaxNesting) + " levels");
    std::string token;
    json& slot = place(token);
    slot = std::move(container);
    path_.push_back(token);
    open_.push_back(&slot);  // stays valid: nothing is added to its parent while it is open
    return true;
  }

  bool close() {
    open_.pop_back();
    path_.pop_back();
    return true;
  }

  bool fail(std::string message) {
    failed_ = true;
    message_ = std::move(message);
    return false;
  }

  std::string name_;
  json root_;
  std::vector<json*> open_;        // the open containers, outermost first
  std::vector<std::string> path_;  // path_[i]: the pointer token of open_[i] in its parent ("" for the root)
  std::string key_;                // the key of the next value in the innermost open object
  bool failed_ = false;
  bool has_position_ = false;
  std::size_t position_ = 0;
  std::string message_;
};

}  // namespace

void check_file_size(const std::string& name, std::uintmax_t limit, const std::string& what,
                     const std::string& advice) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(name, ec);
  if (ec) return;  // the reader's own "cannot open" names the reason
  if (size > limit) {
    const std::uintmax_t mib = limit >> 20;
    throw InputError(name + ": the file has " + std::to_string(size) + " bytes; " + what + " limited to " +
                     std::to_string(limit) + " bytes (" + (mib >= 1024 && mib % 1024 == 0 ? std::to_string(mib >> 10) + " GiB"
                                                                                          : std::to_string(mib) + " MiB") +
                     ")" + (advice.empty() ? "" : ": " + advice));
  }
}

json read_json_file(const fs::path& file) {
  const std::string name = file.string();
  check_data_path(name);  // a control character in the name, a folder: the data readers' messages
  // Only a regular file of a stated size is read: /dev/zero or a FIFO would be read until memory
  // runs out, and a JSON document takes several times its size in memory once parsed.
  std::error_code ec;
  const fs::file_status st = fs::status(file, ec);
  if (ec) throw InputError(name + ": cannot open file" + open_failure(ec.value()));
  if (!fs::exists(st)) throw InputError(name + ": cannot open file" + open_failure(ENOENT));
  if (fs::is_directory(st)) throw InputError(name + ": is a directory");
  if (!fs::is_regular_file(st)) throw InputError(name + ": is not a regular file (" + file_type_name(st) + ")");
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec) throw InputError(name + ": cannot open file" + open_failure(ec.value()));
  check_file_size(name, kMaxJsonFileBytes, "problem and experiment files are",
                  "put large data in a data file the plugin reads");
  std::ifstream in;
  open_data_file(in, name, std::ios::binary);
  std::string text;
  text.resize(static_cast<std::size_t>(size));
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.bad() || static_cast<std::uintmax_t>(in.gcount()) != size || in.peek() != std::char_traits<char>::eof())
    throw InputError(name + ": the file changed while it was read");
  return parse_json_text(text, name);
}

json parse_json_text(std::string_view text, const std::string& name) {
  DocumentBuilder builder(name);
  const bool ok = json::sax_parse(text, &builder);
  if (ok && !builder.failed()) return std::move(builder.document());
  if (!builder.has_position()) throw InputError(builder.message());
  // The position counts the characters read, the offending one included; lines and columns are
  // counted the way the parser counts them (a newline starts a new line at column 0).
  const size_t end = std::min<size_t>(builder.position(), text.size());
  size_t line = 1, column = 0;
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 0;
    } else {
      ++column;
    }
  }
  if (builder.position() > text.size()) column += builder.position() - text.size();  // end of input
  throw InputError(name + ": line " + std::to_string(line) + ", column " + std::to_string(column) + ": " +
                   builder.message());
}

}  // namespace scfw
