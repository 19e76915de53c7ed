// The run-time loader: each broken library is reported with its path and reason, the good ones
// in the same folder still load, a duplicate name is kept by the library found first (one warning
// naming both files), and the search
// path honours SCFW_PLUGIN_PATH. The broken libraries are built from tests/fixtures/<case>/.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "scfw/core/diagnostics.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/error.hpp"
#include "scfw/plugin.hpp"

namespace fs = std::filesystem;
using scfw::Kind;
using scfw::Registry;

namespace {

fs::path fixture(const std::string& folder) { return fs::path(SCFW_FIXTURE_DIR) / folder; }

/// The path the registry records for a library: its canonical form.
std::string lib(const std::string& folder, const std::string& stem) {
  return fs::weakly_canonical(fixture(folder) / ("lib" + stem + ".so")).string();
}

const scfw::LoadFailure* failure_for(const Registry& r, const std::string& path) {
  for (const auto& f : r.failures())
    if (f.path == path) return &f;
  return nullptr;
}

/// Loads fixture(folder)/lib<stem>.so into the empty registry `r`, which must refuse it: its one
/// failure, recorded under the library's canonical path, and nothing of it registered.
const scfw::LoadFailure& refused(Registry& r, const std::string& folder, const std::string& stem) {
  CHECK_FALSE(r.load_library(fixture(folder) / ("lib" + stem + ".so")));
  REQUIRE(r.failures().size() == 1);
  CHECK(r.failures()[0].path == lib(folder, stem));
  CHECK(r.components().empty());
  CHECK(r.libraries().empty());
  return r.failures()[0];
}

/// An empty folder of its own in the temporary folder, for damaged copies of a fixture.
fs::path fresh_dir(const std::string& stem) {
  const fs::path dir = fs::temp_directory_path() / (stem + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Writes dir/name; the path the registry records for it.
std::string write_file(const fs::path& dir, const std::string& name, const std::string& content) {
  std::ofstream(dir / name, std::ios::binary) << content;
  return fs::weakly_canonical(dir / name).string();
}

}  // namespace

TEST_CASE("a good fixture library loads and registers its component") {
  Registry r;
  CHECK(r.load_library(fixture("good") / "libgood.so"));
  CHECK(r.failures().empty());
  REQUIRE(r.components().size() == 1);
  const auto* c = r.find(Kind::Outer, "fixture_sum");
  REQUIRE(c != nullptr);
  CHECK(c->library_path == lib("good", "good"));
  CHECK(c->library_name == "fixture_good");
  CHECK(c->library_version == "1.0.0");
  CHECK(r.find(Kind::Domain, "fixture_sum") == nullptr);
  CHECK(r.find_any_kind("fixture_sum").size() == 1);

  // The component works through the registry's make (its factory is not handed out).
  CHECK_FALSE(c->info.make);
  auto outer = r.make<scfw::OuterFunction>("fixture_sum", nlohmann::json::object(), scfw::Context{});
  REQUIRE(outer != nullptr);
  CHECK(outer->value(scfw::Vec::Constant(3, 2.0), scfw::Vec::Zero(1)) == 6.0);
}

TEST_CASE("loading the same library twice is a no-op") {
  Registry r;
  CHECK(r.load_library(fixture("good") / "libgood.so"));
  CHECK(r.load_library(fixture("good") / "libgood.so"));
  // Another spelling of the same file is the same library.
  CHECK(r.load_library(fixture("good") / ".." / "good" / "libgood.so"));
  CHECK(r.components().size() == 1);
  CHECK(r.libraries().size() == 1);
  CHECK(r.failures().empty());

  // A failing library is recorded once, however often it is tried.
  CHECK_FALSE(r.load_library(fixture("throws") / "libthrows.so"));
  CHECK_FALSE(r.load_library(fixture("throws") / "libthrows.so"));
  CHECK(r.failures().size() == 1);
}

TEST_CASE("a library built for another ABI version is refused with its path and reason") {
  Registry r;
  CHECK(refused(r, "bad_abi", "bad_abi").reason ==
        "built for scfw plugin ABI version 999, this scfw needs ABI version " + std::to_string(scfw::kAbiVersion));
}

/// The hash a generated scfw/sdk_interface.hpp states, as 16 hex digits.
std::string interface_hash_in(const fs::path& header) {
  std::ifstream in(header);
  std::string line;
  const std::string key = "#define SCFW_SDK_INTERFACE_HASH 0x";
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return line.substr(key.size(), 16);
  return "(no hash in " + header.string() + ")";
}

// The fixtures are built by the compiler of this test (g++ in ./test.sh, clang in the sanitizer job).
// The message trims the compiler string's trailing space (__clang_version__ ends with one).
std::string compiler_name() {
  std::string c = SCFW_DETAIL_COMPILER;
  while (!c.empty() && c.back() == ' ') c.pop_back();
  return c;
}
const std::string kBuiltBy = std::string(" (library built by ") + compiler_name() + " against scfw SDK " SCFW_SDK_VERSION
                                                                               "); rebuild it against this scfw";

TEST_CASE("a library built with the other libstdc++ string ABI is skipped on its fingerprint") {
  // string_abi calls no SDK function taking a std::string; string_abi_sdk does, under the old-ABI
  // names no library defines (ParamSpec::number(std::string, std::string), ...). Both are judged
  // on the descriptor read from the file, and neither is loaded: not "undefined symbol".
  for (const char* name : {"string_abi", "string_abi_sdk"}) {
    CAPTURE(name);
    Registry r;
    CHECK(refused(r, name, name).reason ==
          "build fingerprint mismatch: _GLIBCXX_USE_CXX11_ABI=0 in the library, 1 in this scfw (the std::string layouts "
          "differ)" + kBuiltBy);
  }
}

TEST_CASE("a library built against a roles.hpp with one more virtual method is skipped on its interface hash") {
  const std::string lib_hash = interface_hash_in(fs::path(SCFW_FIXTURE_DIR) / "interface_sdk/scfw/sdk_interface.hpp");
  const std::string host_hash = interface_hash_in(fs::path(SCFW_BINARY_DIR) / "sdk/generated/scfw/sdk_interface.hpp");
  REQUIRE(lib_hash.size() == 16);
  REQUIRE(host_hash.size() == 16);
  CHECK(lib_hash != host_hash);
  Registry r;
  CHECK(refused(r, "interface", "good").reason == "build fingerprint mismatch: SDK interface hash " + lib_hash +
                                                       " in the library, " + host_hash +
                                                       " in this scfw (it was compiled against other SDK headers)" + kBuiltBy);
}

TEST_CASE("mismatched libraries beside the real plugins: skipped, and the rest load and run") {
  Registry r;
  r.load_path({fixture("string_abi"), fixture("interface"), fixture("good"), fs::path(SCFW_PLUGIN_DIR)});
  REQUIRE(r.failures().size() == 2);
  CHECK(r.failures()[0].path == lib("string_abi", "string_abi"));
  CHECK(r.failures()[1].path == lib("interface", "good"));
  CHECK(r.warnings().empty());
  auto sum = r.make<scfw::OuterFunction>("fixture_sum", nlohmann::json::object(), scfw::Context{});
  CHECK(sum->value(scfw::Vec::Constant(4, 0.5), scfw::Vec::Zero(1)) == 2.0);
  auto max = r.make<scfw::OuterFunction>("max", nlohmann::json::object(), scfw::Context{});
  CHECK(max->value(scfw::Vec::LinSpaced(4, -1.0, 2.0), scfw::Vec::Zero(1)) == 2.0);
}

TEST_CASE("fingerprint_mismatch names each differing setting; sizes only when the named settings agree") {
  constexpr scfw::BuildFingerprint here = SCFW_BUILD_FINGERPRINT;
  CHECK(scfw::fingerprint_mismatch(here).empty());
  CHECK(std::string(here.compiler) == SCFW_DETAIL_COMPILER);
  CHECK(here.sizes[0] == sizeof(std::string));

  scfw::BuildFingerprint other = here;
  other.sizes[0] = 8;
  other.sizes[5] = 100;
  CHECK(scfw::fingerprint_mismatch(other) ==
        "build fingerprint mismatch: sizeof(std::string) 8 in the library, " + std::to_string(sizeof(std::string)) +
            " in this scfw; sizeof(scfw::ComponentInfo) 100 in the library, " +
            std::to_string(sizeof(scfw::ComponentInfo)) + " in this scfw" + kBuiltBy);

  other.eigen_max_align = here.eigen_max_align * 2;
  other.eigen_version = 30302;
  other.std_library = 2;
  CHECK(scfw::fingerprint_mismatch(other) ==
        "build fingerprint mismatch: C++ standard library libc++ in the library, libstdc++ in this scfw; Eigen 3.3.2 in "
        "the library, " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
            std::to_string(EIGEN_MINOR_VERSION) + " in this scfw; EIGEN_MAX_ALIGN_BYTES=" +
            std::to_string(here.eigen_max_align * 2) + " in the library, " + std::to_string(here.eigen_max_align) +
            " in this scfw" + kBuiltBy);
}

TEST_CASE("a shared library without a descriptor is not a plugin") {
  Registry r;
  CHECK(refused(r, "no_descriptor", "no_descriptor").reason == "not an scfw plugin (no scfw_plugin descriptor)");
}

TEST_CASE("a library whose registration throws is reported with the exception's message") {
  Registry r;
  CHECK(refused(r, "throws", "throws").reason == "threw while registering its components: boom");
}

TEST_CASE("a library with an unresolved symbol fails at load time, not at its first call") {
  Registry r;
  const scfw::LoadFailure& failure = refused(r, "missing_symbol", "missing_symbol");
  const std::string path = lib("missing_symbol", "missing_symbol");
  // Boost.DLL's message around the dynamic loader's own explanation.
  CHECK(failure.reason ==
        "cannot be loaded: boost::dll::shared_library::load() failed (dlerror system message: " + path +
            ": undefined symbol: scfw_fixture_undefined_function): Bad file descriptor");
}

TEST_CASE("a file that does not exist is reported, not thrown") {
  Registry r;
  CHECK_FALSE(r.load_library(fixture("good") / "libnot_there.so"));
  REQUIRE(r.failures().size() == 1);
  CHECK(r.failures()[0].path == fixture("good").string() + "/libnot_there.so");
  CHECK(r.failures()[0].reason.rfind("cannot be loaded: ", 0) == 0);
}

TEST_CASE("in a folder with a good and a bad library, the good one still loads") {
  Registry r;
  r.load_directory(fixture("mixed"));
  REQUIRE(r.failures().size() == 1);
  CHECK(r.failures()[0].path == lib("mixed", "bad_abi"));
  CHECK(r.failures()[0].reason == "built for scfw plugin ABI version 999, this scfw needs ABI version " + std::to_string(scfw::kAbiVersion));
  REQUIRE(r.libraries().size() == 1);
  CHECK(r.libraries()[0] == lib("mixed", "good"));
  CHECK(r.find(Kind::Outer, "fixture_sum") != nullptr);
}

TEST_CASE("every broken fixture in one pass: each reported, the good ones loaded") {
  Registry r;
  r.load_path({fixture("bad_abi"), fixture("no_descriptor"), fixture("throws"), fixture("missing_symbol"),
               fixture("good")});
  CHECK(r.failures().size() == 4);
  for (const char* name : {"bad_abi", "no_descriptor", "throws", "missing_symbol"})
    CHECK_MESSAGE(failure_for(r, lib(name, name)) != nullptr, name);
  CHECK(r.find(Kind::Outer, "fixture_sum") != nullptr);
}

TEST_CASE("two libraries registering the same name: the first loaded keeps it, one warning names both") {
  Registry r;
  CHECK(r.load_library(fixture("duplicate") / "libduplicate.so"));
  REQUIRE(r.find(Kind::Outer, "max") != nullptr);

  const fs::path real_max = fs::path(SCFW_PLUGIN_DIR) / "libscfw_max.so";
  REQUIRE_MESSAGE(fs::exists(real_max), "build the max plugin first: ", real_max.string());
  const std::string real = fs::weakly_canonical(real_max).string();
  CHECK(r.load_library(real_max));
  CHECK(r.failures().empty());
  REQUIRE(r.warnings().size() == 1);
  CHECK(r.warnings()[0].path == real);
  CHECK(r.warnings()[0].message == "outer plugin \"max\" is registered by two libraries: using " +
                                       lib("duplicate", "duplicate") + " (found first on the search path), ignoring " +
                                       real);
  // The fixture's max is the one built; the real library is loaded, its max left out.
  CHECK(r.components().size() == 1);
  CHECK(r.find(Kind::Outer, "max")->library_path == lib("duplicate", "duplicate"));
  CHECK(r.libraries().size() == 2);

  // The other order: the real one keeps the name.
  Registry r2;
  CHECK(r2.load_library(real_max));
  CHECK(r2.load_library(fixture("duplicate") / "libduplicate.so"));
  REQUIRE(r2.warnings().size() == 1);
  CHECK(r2.warnings()[0].message == "outer plugin \"max\" is registered by two libraries: using " + real +
                                        " (found first on the search path), ignoring " + lib("duplicate", "duplicate"));
  CHECK(r2.find(Kind::Outer, "max")->library_path == real);
}

TEST_CASE("search-path order decides a duplicate: an extra folder overrides the built-in plugins") {
  Registry r;
  r.load_path(Registry::search_path({fixture("duplicate")}));
  CHECK(r.find(Kind::Outer, "max")->library_path == lib("duplicate", "duplicate"));
  REQUIRE(r.warnings().size() == 1);
  CHECK(r.warnings()[0].path == fs::weakly_canonical(fs::path(SCFW_PLUGIN_DIR) / "libscfw_max.so").string());
  // Every other built-in plugin still loads and builds.
  CHECK(r.find(Kind::Domain, "l1_ball") != nullptr);
  auto outer = r.make<scfw::OuterFunction>("max", nlohmann::json::object(), scfw::Context{});
  CHECK(outer->value(scfw::Vec::LinSpaced(3, 1.0, 3.0), scfw::Vec::Zero(1)) == 3.0);
}

TEST_CASE("SCFW_PLUGIN_PATH directories are searched, in order, after the extra ones") {
  const char* old = std::getenv("SCFW_PLUGIN_PATH");
  const std::string saved = old ? old : "";
  const std::string env = fixture("good").string() + ":/no/such/folder::" + fixture("throws").string();
  REQUIRE(setenv("SCFW_PLUGIN_PATH", env.c_str(), 1) == 0);

  const auto dirs = Registry::search_path({fixture("bad_abi")});
  if (old) setenv("SCFW_PLUGIN_PATH", saved.c_str(), 1);
  else unsetenv("SCFW_PLUGIN_PATH");

  REQUIRE(dirs.size() >= 3);
  CHECK(dirs[0] == fs::weakly_canonical(fixture("bad_abi")));
  CHECK(dirs[1] == fs::weakly_canonical(fixture("good")));
  CHECK(dirs[2] == fs::weakly_canonical(fixture("throws")));
  // Missing folders are skipped.
  CHECK(std::none_of(dirs.begin(), dirs.end(), [](const fs::path& p) { return p == "/no/such/folder"; }));

  Registry r;
  r.load_path(dirs);
  CHECK(r.find(Kind::Outer, "fixture_sum") != nullptr);
  CHECK(failure_for(r, lib("throws", "throws")) != nullptr);
  CHECK(failure_for(r, lib("bad_abi", "bad_abi")) != nullptr);
}

TEST_CASE("closest names for suggestions") {
  CHECK(scfw::edit_distance("maks", "max") == 2);
  CHECK(scfw::edit_distance("", "abc") == 3);
  CHECK(scfw::edit_distance("l1_ball", "l1_ball") == 0);
  CHECK(scfw::edit_distance("simplx", "simplex") == 1);

  const std::vector<std::string> names = {"simplex", "box", "l1_ball", "l2_ball"};
  CHECK(scfw::closest_names("l1_bal", names) == std::vector<std::string>{"l1_ball", "l2_ball", "box"});
  CHECK(scfw::closest_names("simplx", names, 1) == std::vector<std::string>{"simplex"});
  CHECK(scfw::closest_names("box", {"box", "box"}) == std::vector<std::string>{"box"});

  Registry r;
  r.load_library(fixture("good") / "libgood.so");
  r.load_library(fixture("duplicate") / "libduplicate.so");
  CHECK(r.closest(Kind::Outer, "maks") == std::vector<std::string>{"max", "fixture_sum"});
  CHECK(r.closest(Kind::Outer, "fixture_sun", 1) == std::vector<std::string>{"fixture_sum"});
  CHECK(r.closest(Kind::Domain, "maks").empty());
}

TEST_CASE("a truncated or non-ELF library is skipped before dlopen, not a SIGBUS inside it") {
  const fs::path dir = fresh_dir("scfw_truncated");
  const std::string bytes = bytes_of(fixture("good") / "libgood.so");
  REQUIRE(bytes.size() > 4096);
  auto write = [&](const std::string& name, const std::string& content) { return write_file(dir, name, content); };
  const std::string short_tail = write("libshort_tail.so", bytes.substr(0, bytes.size() - 1));
  const std::string half = write("libhalf.so", bytes.substr(0, bytes.size() / 2));
  const std::string stub = write("libstub.so", bytes.substr(0, 30));
  const std::string text = write("libtext.so", "not a library\n");
  const std::string empty = write("libempty.so", "");
  write("libgood_copy.so", bytes);

  Registry r;
  r.load_directory(dir);
  // The good copy still loads; each damaged file is one failure with its reason.
  CHECK(r.libraries().size() == 1);
  CHECK(r.find(Kind::Outer, "fixture_sum") != nullptr);
  CHECK(r.failures().size() == 5);
  const std::string size = std::to_string(bytes.size());
  REQUIRE(failure_for(r, short_tail) != nullptr);
  // The linker puts the section header table last: one byte short cuts it.
  CHECK(failure_for(r, short_tail)->reason == "cannot be loaded: truncated or damaged: its section header table ends at byte " +
                                                  size + ", the file has " + std::to_string(bytes.size() - 1) + " bytes");
  REQUIRE(failure_for(r, half) != nullptr);
  CHECK(failure_for(r, half)->reason.rfind("cannot be loaded: truncated or damaged: its ", 0) == 0);
  REQUIRE(failure_for(r, stub) != nullptr);
  CHECK(failure_for(r, stub)->reason ==
        "cannot be loaded: truncated or damaged: its ELF header ends at byte 64, the file has 30 bytes");
  for (const auto& p : {text, empty}) {
    REQUIRE(failure_for(r, p) != nullptr);
    CHECK(failure_for(r, p)->reason == "cannot be loaded: not an ELF shared library (no ELF header)");
  }
  fs::remove_all(dir);
}

namespace {

template <class T>
T read_as(const std::string& bytes, std::size_t offset) {
  T out{};
  REQUIRE(offset + sizeof out <= bytes.size());
  std::memcpy(&out, bytes.data() + offset, sizeof out);
  return out;
}

template <class T>
void write_as(std::string& bytes, std::size_t offset, const T& value) {
  REQUIRE(offset + sizeof value <= bytes.size());
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

// Where a library's `scfw_plugin` alias is described: its .dynsym entry and the .rela.dyn entry
// that relocates the pointer it holds (found the way the linker lays them out: section headers).
struct AliasInFile {
  std::size_t symbol = 0;      // file offset of the Elf64_Sym
  std::size_t relocation = 0;  // file offset of the Elf64_Rela, 0 when there is none
};

AliasInFile find_alias(const std::string& bytes) {
  const auto h = read_as<Elf64_Ehdr>(bytes, 0);
  AliasInFile out;
  std::uint64_t address = 0;
  for (unsigned i = 0; i < h.e_shnum; ++i) {
    const auto s = read_as<Elf64_Shdr>(bytes, h.e_shoff + i * sizeof(Elf64_Shdr));
    if (s.sh_type != SHT_DYNSYM) continue;
    const auto strings = read_as<Elf64_Shdr>(bytes, h.e_shoff + s.sh_link * sizeof(Elf64_Shdr));
    for (std::size_t at = s.sh_offset; at < s.sh_offset + s.sh_size; at += sizeof(Elf64_Sym)) {
      const auto sym = read_as<Elf64_Sym>(bytes, at);
      if (std::strcmp(bytes.c_str() + strings.sh_offset + sym.st_name, "scfw_plugin") == 0 && sym.st_shndx != SHN_UNDEF) {
        out.symbol = at;
        address = sym.st_value;
      }
    }
  }
  REQUIRE(out.symbol != 0);
  for (unsigned i = 0; i < h.e_shnum; ++i) {
    const auto s = read_as<Elf64_Shdr>(bytes, h.e_shoff + i * sizeof(Elf64_Shdr));
    if (s.sh_type != SHT_RELA) continue;
    for (std::size_t at = s.sh_offset; at < s.sh_offset + s.sh_size; at += sizeof(Elf64_Rela))
      if (read_as<Elf64_Rela>(bytes, at).r_offset == address) out.relocation = at;
  }
  return out;
}

}  // namespace

TEST_CASE("a library whose scfw_plugin symbol or descriptor lies outside the file is reported, not loaded") {
  const fs::path dir = fresh_dir("scfw_alias");
  const std::string bytes = bytes_of(fixture("good") / "libgood.so");
  const AliasInFile alias = find_alias(bytes);
  auto write = [&](const std::string& name, const std::string& content) { return write_file(dir, name, content); };
  const std::uint64_t far = std::uint64_t{1} << 46;  // mapped by no segment of a small library

  // The symbol's address: dlsym would hand out a pointer into unmapped memory.
  std::string symbol_far = bytes;
  write_as(symbol_far, alias.symbol + offsetof(Elf64_Sym, st_value), far);
  const std::string symbol_path = write("libsymbol_far.so", symbol_far);

  // The pointer the symbol holds, as its relocation sets it.
  REQUIRE(alias.relocation != 0);
  std::string target_far = bytes;
  write_as(target_far, alias.relocation + offsetof(Elf64_Rela, r_addend), static_cast<std::int64_t>(far));
  const std::string target_path = write("libtarget_far.so", target_far);

  // A symbol of an unexpected size is not followed in the file: the loader's path decides, and
  // the library loads.
  std::string odd_size = bytes;
  write_as(odd_size, alias.symbol + offsetof(Elf64_Sym, st_size), std::uint64_t{4});
  write("libodd_size.so", odd_size);

  Registry r;
  r.load_directory(dir);
  CHECK(r.failures().size() == 2);
  REQUIRE(failure_for(r, symbol_path) != nullptr);
  CHECK(failure_for(r, symbol_path)->reason ==
        "cannot be loaded: damaged: its scfw_plugin symbol lies outside every loadable segment");
  REQUIRE(failure_for(r, target_path) != nullptr);
  CHECK(failure_for(r, target_path)->reason ==
        "cannot be loaded: damaged: its scfw_plugin descriptor lies outside every loadable segment");
  CHECK(r.libraries().size() == 1);
  CHECK(r.find(Kind::Outer, "fixture_sum") != nullptr);
  fs::remove_all(dir);
}
