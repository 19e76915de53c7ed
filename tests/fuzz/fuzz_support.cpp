#include "fuzz_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>
#include <set>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "scfw/core/problem.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;

namespace scfw_fuzz {
namespace {

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

struct WorkDir {
  fs::path path;
  WorkDir() {
    // In memory when the machine has /dev/shm: every input is written to a file, and on a disk
    // file system the writes and truncations cost more than the target reading them.
    const char* tmp = std::getenv("TMPDIR");
    std::error_code ec;
    const std::string base = tmp && *tmp ? tmp : fs::is_directory("/dev/shm", ec) ? "/dev/shm" : "/tmp";
    std::string pattern = base + "/scfw-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("fuzz: mkdtemp");
      std::abort();
    }
    path = pattern;
    // Valid data files a fuzzed problem file can name (the seed corpus of the composer does).
    write_text(path / "data.libsvm", "+1 1:0.5 3:1\n-1 2:1 3:-0.25\n+1 1:1 2:2\n-1 3:1\n");
    write_text(path / "prices.csv", "date,A,B\n2020-01-01,10,20\n2020-01-02,11,19\n2020-01-03,12,21\n");
    write_text(path / "u.data", "1\t1\t5\t0\n1\t2\t3\t0\n2\t1\t4\t0\n3\t2\t1\t0\n");
    write_text(path / "polytope.csv", "1,0,1\n0,1,1\n-1,0,0\n0,-1,0\n");
  }
  ~WorkDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

const scfw::Registry& registry() {
  static scfw::Registry* reg = [] {
    auto* r = new scfw::Registry();
    const char* env = std::getenv("SCFW_FUZZ_PLUGIN_DIR");
    r->load_directory(env && *env ? env : SCFW_PLUGIN_DIR);
    if (r->components().empty()) {
      std::fprintf(stderr, "fuzz: no plugins found in %s (set SCFW_FUZZ_PLUGIN_DIR)\n",
                   env && *env ? env : SCFW_PLUGIN_DIR);
      std::abort();
    }
    return r;
  }();
  return *reg;
}

const fs::path& work_dir() {
  static WorkDir dir;
  return dir.path;
}

fs::path write_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const fs::path path = work_dir() / name;
  write_text(path, std::string(reinterpret_cast<const char*>(data), size));
  return path;
}

namespace {

// A message's template: up to its first quote, digit runs as '#', so that the catalog
// (SCFW_FUZZ_MESSAGES) keeps one line per kind of message, not one per input.
std::string message_template(const std::string& what) {
  std::string out;
  for (const char c : what.substr(0, what.find('"'))) {
    if (c >= '0' && c <= '9') {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += c;
    }
  }
  return out;
}

// Appends a message of a kind not seen before by this process to $SCFW_FUZZ_MESSAGES.
void catalog(const char* target, const char* kind, const std::string& what) {
  static const char* path = std::getenv("SCFW_FUZZ_MESSAGES");
  if (!path || !*path) return;
  static std::set<std::string> seen;
  if (!seen.insert(message_template(what)).second) return;
  if (std::FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\t%s\t%s\n", target, kind, what.c_str());
    std::fclose(f);
  }
}

[[noreturn]] void finding(const char* target, const std::string& why, const std::string& what) {
  std::string shown;
  for (const char c : what) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      shown += hex;
    } else {
      shown += c;
    }
  }
  std::fprintf(stderr, "fuzz %s: %s: [%s]\n", target, why.c_str(), shown.c_str());
  // abort() skips the work folder's destructor: remove it here (libFuzzer keeps the input).
  std::error_code ec;
  fs::remove_all(work_dir(), ec);
  std::abort();
}

// The first control character of `text`, named, or nullptr: a C0 control (a newline, a carriage
// return, a tab, an escape), DEL, and, UTF-8 encoded, a C1 control (U+0080..U+009F: NEL, U+0085,
// ends a line too) or the line and paragraph separators U+2028, U+2029. Bytes that are not valid
// UTF-8 are not characters and are left to the terminal.
const char* control_character(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u < 0x20 || u == 0x7F) return "a C0 control character or DEL";
    const auto next = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0; };
    if (u == 0xC2 && next(1) >= 0x80 && next(1) <= 0x9F) return "a C1 control character (UTF-8)";
    if (u == 0xE2 && next(1) == 0x80 && (next(2) == 0xA8 || next(2) == 0xA9)) return "a line or paragraph separator (UTF-8)";
  }
  return nullptr;
}

bool digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The location at the head of `rest` (what follows a file's name): ":<line>: ", ":<line>:<col>: ",
// ": line <L>, column <C>: ", ": /<pointer>: " (or ": : " for the document itself). Returns the
// number of bytes it takes, 0 when there is none.
size_t location_length(std::string_view rest) {
  if (rest.size() > 1 && rest[0] == ':' && rest[1] >= '0' && rest[1] <= '9') {
    size_t i = 1;
    while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') ++i;
    if (i + 1 < rest.size() && rest[i] == ':' && rest[i + 1] >= '0' && rest[i + 1] <= '9') {
      ++i;
      while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') ++i;
    }
    return rest.substr(i, 2) == ": " ? i + 2 : 0;
  }
  if (rest.substr(0, 7) == ": line ") {
    const size_t comma = rest.find(", column ");
    const size_t end = rest.find(": ", 7);
    if (comma == std::string_view::npos || end == std::string_view::npos || comma > end) return 0;
    return digits(rest.substr(7, comma - 7)) && digits(rest.substr(comma + 9, end - comma - 9)) ? end + 2 : 0;
  }
  if (rest.substr(0, 3) == ": /" || rest.substr(0, 4) == ": : ") {
    const size_t end = rest.find(": ", 2);
    return end == std::string_view::npos ? 0 : end + 2;
  }
  return 0;
}

}  // namespace

void check_message(const char* target, const std::vector<std::string>& files, const std::string& what) {
  if (const char* control = control_character(what)) finding(target, std::string("the message holds ") + control, what);
  // Where: the message starts with the path of the file it is about (the fuzzed data file, the
  // problem file, for problem_json any file of the work folder a problem names), and, except for
  // a message about a data file as a whole (empty, a folder, no rows), a line or a JSON pointer.
  const std::string dir = work_dir().string() + "/";
  std::string file;
  std::string_view rest;
  // "*<name>" (problem_json: "*problem.json", experiment_json: "*experiment.json"): the fuzzed
  // file <name>, or any data file it names.
  const bool any_data_file = files.size() == 1 && !files[0].empty() && files[0][0] == '*';
  const std::string main_file = any_data_file ? files[0].substr(1) : std::string();
  if (any_data_file && what.compare(0, dir.size() + main_file.size() + 1, dir + main_file + ":") != 0) {
    // Not about the problem file: about a data file it names, which a fuzzed problem may call
    // anything ("a: b" too), anywhere: an absolute path, then ": ". The data targets check the
    // readers' messages in full.
    if (what.empty() || what[0] != '/' || what.find(": ") == std::string::npos)
      finding(target, "the message does not start with a file's path", what);
    file.push_back('*');  // (file is empty here)
    rest = std::string_view(what).substr(what.find(": "));
  } else if (any_data_file) {
    file = main_file;
    rest = std::string_view(what).substr(dir.size() + file.size());
  } else {
    if (what.compare(0, dir.size(), dir) != 0) finding(target, "the message does not start with a file's path", what);
    const std::string_view after_dir = std::string_view(what).substr(dir.size());
    for (const auto& f : files)
      if (after_dir.substr(0, f.size()) == f) file = f;
    if (file.empty()) finding(target, "the message names none of the target's files", what);
    rest = after_dir.substr(file.size());
  }
  // A message about the file as a whole ("no entries", "expected an object at the top level")
  // has no line or pointer: "<file>: <what>". The catalog (SCFW_FUZZ_MESSAGES) lists them for
  // review; docs/journal/reliability-history.md gives the ones the fuzzing runs saw.
  // A problem file's are the few that json_reader.cpp and compose() give about the whole file;
  // anything else in a problem file has a JSON pointer.
  if (location_length(rest) == 0) {
    static const char* const whole_problem_file[] = {": expected an object at the top level, got ", ": cannot open file",
                                                     ": is a directory", ": is not a regular file ("};
    bool whole = rest.substr(0, 2) == ": ";
    if (whole && (file == "problem.json" || file == "experiment.json"))
      whole = std::any_of(std::begin(whole_problem_file), std::end(whole_problem_file),
                          [&](const char* w) { return rest.substr(0, std::strlen(w)) == w; });
    if (!whole) finding(target, "the message names no line or JSON pointer", what);
  }
  // Short: the paths of the work folder left out (a user's path is as long as it is), at most
  // kMaxMessageBytes bytes.
  // A data file a fuzzed problem names is a path too, whatever its length (its name is the
  // problem's text, not the message's): for those, the message counts from the first ": ".
  std::string shortened;
  for (size_t i = file == "*" ? what.find(": ") : 0; i < what.size();) {
    if (what.compare(i, dir.size(), dir) == 0) {
      i += dir.size();
    } else {
      shortened += what[i++];
    }
  }
  if (shortened.size() > kMaxMessageBytes)
    finding(target, "the message has " + std::to_string(shortened.size()) + " bytes besides its paths, over " +
                        std::to_string(kMaxMessageBytes),
            what);
}

void expect_scfw_outcome(const char* target, std::initializer_list<std::string> files, void (*body)(void*),
                         void* arg) {
  try {
    body(arg);
  } catch (const scfw::InputError& e) {
    // Bad input: exit 2 in the app, with this message as its one line.
    catalog(target, "input", e.what());
    check_message(target, std::vector<std::string>(files), e.what());
  } catch (const scfw::Error& e) {
    // A run-time failure of a plugin: exit 1 in the app, with the plugin's name; one line too.
    catalog(target, "error", e.what());
    if (const char* control = control_character(e.what()))
      finding(target, std::string("a run-time error's message holds ") + control, e.what());
  } catch (const std::exception& e) {
    finding(target, std::string("unexpected exception ") + typeid(e).name(), e.what());
  } catch (...) {
    std::fprintf(stderr, "fuzz %s: unexpected exception of a non-standard type\n", target);
    std::abort();
  }
}

void compose_document(const nlohmann::json& doc, int max_method_dim) {
  const fs::path source = work_dir() / "problem.json";
  scfw::Problem problem = scfw::compose_problem(registry(), doc, source.string(), work_dir());
  if (problem.oracle->dim() > max_method_dim) return;
  const auto block = [&](const char* key) {
    const auto it = doc.find(key);
    return scfw::MethodBlock{it == doc.end() ? nullptr : &*it, std::string("/") + key};
  };
  const scfw::Method method = scfw::compose_method(registry(), problem, block("tracker"), block("schedule"), block("glmo"));
  (void)method;
}

}  // namespace scfw_fuzz

// Loads the plugins and creates the work folder before the first input, so that libFuzzer sees
// the plugins' coverage counters from the start. The replay driver calls it too.
// The memory limit is 64 MiB: a fuzzed problem may ask for any size of synthetic data, and
// generating 480 MiB of it took 39 s under the sanitizers on a loaded machine (over the 30-s
// timeout of a unit); over the limit, the composer refuses the block before it allocates, and
// that message is checked like any other.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("SCFW_MEMORY_LIMIT", "64MiB", 1);
  scfw_fuzz::registry();
  scfw_fuzz::work_dir();
  return 0;
}
