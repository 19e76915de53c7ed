#include "fuzz_support.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <system_error>
#include <typeinfo>

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
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/scfw-fuzz-XXXXXX";
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

void expect_scfw_outcome(const char* target, std::initializer_list<std::string> files, void (*body)(void*),
                         void* arg) {
  try {
    body(arg);
  } catch (const scfw::InputError& e) {
    // Bad input: a message that names where. Line breaks are not checked: the app prints every
    // message through one_line() (a newline or carriage return quoted from a data file becomes a
    // space); docs/reliability.md, "Findings", lists the readers that quote them.
    const std::string what = e.what();
    bool named = false;
    for (const auto& f : files) named = named || what.find(f) != std::string::npos;
    if (what.empty() || !named) {
      std::fprintf(stderr, "fuzz %s: an InputError does not name the file: [%s]\n", target, what.c_str());
      std::abort();
    }
  } catch (const scfw::Error&) {
    // A run-time failure of a plugin: exit 1 in the app, with the plugin's name.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz %s: unexpected exception %s: %s\n", target, typeid(e).name(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz %s: unexpected exception of a non-standard type\n", target);
    std::abort();
  }
}

void compose_document(const nlohmann::json& doc) {
  const fs::path source = work_dir() / "problem.json";
  const scfw::Composition composed = scfw::compose(registry(), doc, source.string(), work_dir());
  (void)composed;
}

}  // namespace scfw_fuzz

// Loads the plugins and creates the work folder before the first input, so that libFuzzer sees
// the plugins' coverage counters from the start. The replay driver calls it too.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  scfw_fuzz::registry();
  scfw_fuzz::work_dir();
  return 0;
}
