#include "scfw/core/registry.hpp"
#include "scfw/core/diagnostics.hpp"

#include <algorithm>
#include <bit>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <memory>
#include <set>
#include <system_error>

#include "scfw/core/params_json.hpp"
#include "scfw/error.hpp"
#include "scfw/plugin.hpp"

namespace fs = std::filesystem;

namespace scfw {

namespace {

// Libraries are never unloaded (see registry.hpp). The handles live in a process-wide list that
// is intentionally not destroyed at exit, so no static destructor can unload a library while an
// object it made is still alive.
std::vector<boost::dll::shared_library*>& loaded_handles() {
  static auto* handles = new std::vector<boost::dll::shared_library*>();
  return *handles;
}

// Why `file` cannot be a shared library for this process, or "" when its ELF header, program
// header table, loadable segments and section header table all lie within the file. dlopen maps
// the segments a header names; a page of one that lies past the end of a truncated file is
// mapped anyway, and touching it kills the process with SIGBUS.
std::string elf_problem(const fs::path& file) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(file, ec);
  std::ifstream in(file, std::ios::binary);
  if (ec || !in) return {};  // the loader's own message says why it cannot be opened
  auto read_at = [&](std::uint64_t offset, void* out, std::size_t n) {
    in.clear();
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(static_cast<char*>(out), static_cast<std::streamsize>(n));
    return static_cast<std::size_t>(in.gcount()) == n;
  };
  // The end of a table of `count` entries of `entry` bytes at `offset`, or UINT64_MAX when it
  // does not fit in 64 bits.
  auto table_end = [](std::uint64_t offset, std::uint64_t count, std::uint64_t entry) -> std::uint64_t {
    if (entry != 0 && count > (UINT64_MAX - offset) / entry) return UINT64_MAX;
    return offset + count * entry;
  };
  auto truncated = [&](const char* what, std::uint64_t end) {
    return std::string("truncated or damaged: its ") + what + " ends at byte " +
           (end == UINT64_MAX ? std::string("2^64 or beyond") : std::to_string(end)) + ", the file has " +
           std::to_string(size) + " bytes";
  };
  Elf64_Ehdr h{};
  if (size < EI_NIDENT || !read_at(0, h.e_ident, EI_NIDENT) || std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0)
    return "not an ELF shared library (no ELF header)";
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || sizeof(void*) != 8)
    return "not a 64-bit ELF library (this scfw is a 64-bit program)";
  const unsigned char native = std::endian::native == std::endian::little ? ELFDATA2LSB : ELFDATA2MSB;
  if (h.e_ident[EI_DATA] != native) return "an ELF library of the other byte order";
  if (size < sizeof h || !read_at(0, &h, sizeof h)) return truncated("ELF header", sizeof h);
  if (h.e_type != ET_DYN) return "not an ELF shared library (ELF type " + std::to_string(h.e_type) + ")";
  if (h.e_phnum != 0 && h.e_phentsize != sizeof(Elf64_Phdr))
    return "damaged: program header entries of " + std::to_string(h.e_phentsize) + " bytes";
  if (const auto end = table_end(h.e_phoff, h.e_phnum, sizeof(Elf64_Phdr)); end > size)
    return truncated("program header table", end);
  for (unsigned i = 0; i < h.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!read_at(h.e_phoff + std::uint64_t{i} * sizeof ph, &ph, sizeof ph))
      return truncated("program header table", table_end(h.e_phoff, h.e_phnum, sizeof ph));
    if (ph.p_type != PT_LOAD && ph.p_type != PT_DYNAMIC) continue;
    if (const auto end = table_end(ph.p_offset, 1, ph.p_filesz); end > size)
      return truncated(ph.p_type == PT_LOAD ? "loadable segment" : "dynamic section", end);
  }
  if (h.e_shnum != 0 && h.e_shentsize != sizeof(Elf64_Shdr))
    return "damaged: section header entries of " + std::to_string(h.e_shentsize) + " bytes";
  if (const auto end = table_end(h.e_shoff, h.e_shnum, sizeof(Elf64_Shdr)); end > size)
    return truncated("section header table", end);
  return {};
}

class CollectingRegistrar : public Registrar {
 public:
  using Registrar::add;
  void add(ComponentInfo info) override { collected.push_back(std::move(info)); }
  std::vector<ComponentInfo> collected;
};

fs::path executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return exe.parent_path();
}

/// The folder of the libscfw_core.so this code runs in: <prefix>/lib, or <build>/lib.
fs::path core_library_dir() {
  std::error_code ec;
  const fs::path lib = boost::dll::this_line_location(ec);
  if (ec) return {};
  return lib.parent_path();
}

// A fixed char array of a descriptor, read up to its first NUL and never past its end.
template <std::size_t N>
std::string fixed_text(const char (&text)[N]) {
  std::size_t n = 0;
  while (n < N && text[n] != '\0') ++n;
  return std::string(text, n);
}

std::string hex(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<size_t>(i)] = digits[v & 0xF];
  return out;
}

const char* std_library_name(std::uint32_t id) {
  return id == 1 ? "libstdc++" : id == 2 ? "libc++" : "another C++ standard library";
}

std::string eigen_name(std::uint32_t v) {
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

// The host's own fingerprint: the same macro a plugin's SCFW_PLUGIN expands.
constexpr BuildFingerprint kHostFingerprint = SCFW_BUILD_FINGERPRINT;

}  // namespace

std::string fingerprint_mismatch(const BuildFingerprint& lib) {
  const BuildFingerprint& host = kHostFingerprint;
  std::vector<std::string> found;
  auto there_here = [&](const std::string& what, const std::string& there, const std::string& here) {
    found.push_back(what + there + " in the library, " + here + " in this scfw");
  };
  if (lib.std_library != host.std_library)
    there_here("C++ standard library ", std_library_name(lib.std_library), std_library_name(host.std_library));
  else if (lib.cxx11_string_abi != host.cxx11_string_abi)
    found.push_back("_GLIBCXX_USE_CXX11_ABI=" + std::to_string(lib.cxx11_string_abi) + " in the library, " +
                    std::to_string(host.cxx11_string_abi) + " in this scfw (the std::string layouts differ)");
  if (lib.eigen_version != host.eigen_version)
    there_here("Eigen ", eigen_name(lib.eigen_version), eigen_name(host.eigen_version));
  if (lib.eigen_max_align != host.eigen_max_align)
    there_here("EIGEN_MAX_ALIGN_BYTES=", std::to_string(lib.eigen_max_align), std::to_string(host.eigen_max_align));
  if (lib.eigen_max_static_align != host.eigen_max_static_align)
    there_here("EIGEN_MAX_STATIC_ALIGN_BYTES=", std::to_string(lib.eigen_max_static_align),
               std::to_string(host.eigen_max_static_align));
  if (lib.interface_hash != host.interface_hash)
    found.push_back("SDK interface hash " + hex(lib.interface_hash) + " in the library, " + hex(host.interface_hash) +
                    " in this scfw (it was compiled against other SDK headers)");
  // The sizes catch what the named settings do not (packing, another target); when a named
  // setting differs they follow from it and are not listed.
  if (found.empty())
    for (std::size_t i = 0; i < kFingerprintSizes; ++i)
      if (lib.sizes[i] != host.sizes[i])
        found.push_back(std::string("sizeof(") + kFingerprintSizeNames[i] + ") " + std::to_string(lib.sizes[i]) +
                        " in the library, " + std::to_string(host.sizes[i]) + " in this scfw");
  if (found.empty()) return {};
  std::string out = "build fingerprint mismatch: ";
  for (size_t i = 0; i < found.size(); ++i) out += (i ? "; " : "") + found[i];
  // __clang_version__ ends with a space ("14.0.6 "): trimmed, so the message has single spaces.
  std::string compiler = fixed_text(lib.compiler);
  while (!compiler.empty() && compiler.back() == ' ') compiler.pop_back();
  out += " (library built by " + compiler + " against scfw SDK " + fixed_text(lib.sdk_version) +
         "); rebuild it against this scfw";
  return out;
}

std::vector<fs::path> Registry::search_path(const std::vector<fs::path>& extra) {
  std::vector<fs::path> dirs(extra.begin(), extra.end());
  if (const char* env = std::getenv("SCFW_PLUGIN_PATH")) {
    std::string s(env);
    size_t start = 0;
    while (start <= s.size()) {
      size_t end = s.find(':', start);
      if (end == std::string::npos) end = s.size();
      if (end > start) dirs.emplace_back(s.substr(start, end - start));
      start = end + 1;
    }
  }
  // The first that exists of: <exe>/../lib/scfw/plugins (build/lib/scfw/plugins for
  // build/bin/scfw, <prefix>/lib/scfw/plugins for an installed <prefix>/bin/scfw); the plugins
  // beside the libscfw_core.so in use, <libdir>/scfw/plugins (the same folders, for a host
  // application that lives elsewhere and links an installed or a built libscfw_core, wherever
  // the prefix was moved); the compiled-in install prefix.
  const fs::path exe_dir = executable_dir();
  const fs::path core_dir = core_library_dir();
  std::vector<fs::path> installed;
  if (!exe_dir.empty()) installed.push_back(exe_dir / ".." / "lib" / "scfw" / "plugins");
  if (!core_dir.empty()) installed.push_back(core_dir / "scfw" / "plugins");
#ifdef SCFW_INSTALL_PLUGIN_DIR
  installed.emplace_back(SCFW_INSTALL_PLUGIN_DIR);
#endif
  for (const auto& d : installed) {
    std::error_code ec;
    if (fs::is_directory(d, ec)) {
      dirs.push_back(d);
      break;
    }
  }
  std::vector<fs::path> out;
  std::set<fs::path> seen;
  for (const auto& d : dirs) {
    std::error_code e2;
    if (!fs::is_directory(d, e2)) continue;
    fs::path c = fs::weakly_canonical(d, e2);
    if (e2) c = d;
    if (seen.insert(c).second) out.push_back(c);
  }
  return out;
}

void Registry::load_path(const std::vector<fs::path>& dirs) {
  for (const auto& d : dirs) load_directory(d);
}

void Registry::load_directory(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() == ".so" && it->is_regular_file(ec)) files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) load_library(f);
}

bool Registry::load_library(const fs::path& file) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(file, ec);
  if (ec) canonical = file;
  const std::string path = canonical.string();
  if (std::find(libraries_.begin(), libraries_.end(), path) != libraries_.end()) return true;
  for (const auto& f : failures_)
    if (f.path == path) return false;
  auto fail = [&](std::string reason) {
    failures_.push_back(LoadFailure{path, std::move(reason)});
    return false;
  };

  // Checked before dlopen: a truncated library would kill the process inside it (SIGBUS).
  if (std::string problem = elf_problem(canonical); !problem.empty()) return fail("cannot be loaded: " + problem);
  std::unique_ptr<boost::dll::shared_library> lib;
  try {
    // rtld_now: an unresolved symbol is reported here, not as a crash at the first call.
    lib = std::make_unique<boost::dll::shared_library>(
        canonical, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    return fail(std::string("cannot be loaded: ") + e.what());
  }
  if (!lib->has("scfw_plugin")) {
    // Not unloaded: a library's static initializers may have registered anything.
    loaded_handles().push_back(lib.release());
    return fail("not an scfw plugin (no scfw_plugin descriptor)");
  }
  const PluginDescriptor& desc = lib->get_alias<const PluginDescriptor>("scfw_plugin");
  boost::dll::shared_library* handle = lib.release();
  loaded_handles().push_back(handle);

  // Only the plain ABI number is read before it is checked; then the fixed-size fingerprint.
  if (desc.abi_version != kAbiVersion)
    return fail("built for scfw plugin ABI version " + std::to_string(desc.abi_version) +
                ", this scfw needs ABI version " + std::to_string(kAbiVersion));
  if (desc.descriptor_size != sizeof(PluginDescriptor))
    return fail("its scfw_plugin descriptor has " + std::to_string(desc.descriptor_size) + " bytes, this scfw's has " +
                std::to_string(sizeof(PluginDescriptor)));
  if (std::string mismatch = fingerprint_mismatch(desc.build); !mismatch.empty()) return fail(std::move(mismatch));
  if (desc.register_components == nullptr) return fail("its scfw_plugin descriptor is incomplete");

  CollectingRegistrar registrar;
  try {
    desc.register_components(registrar);
  } catch (const std::exception& e) {
    return fail(std::string("threw while registering its components: ") + e.what());
  } catch (...) {
    return fail("threw a non-standard exception while registering its components");
  }
  for (const auto& info : registrar.collected) {
    if (info.name.empty()) return fail("registered a component with an empty name");
    if (!info.make) return fail("registered component \"" + info.name + "\" without a factory");
  }
  for (size_t i = 0; i < registrar.collected.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (registrar.collected[j].kind == registrar.collected[i].kind &&
          registrar.collected[j].name == registrar.collected[i].name)
        return fail(std::string("registers the ") + to_string(registrar.collected[i].kind) + " plugin \"" +
                    registrar.collected[i].name + "\" twice");
  // Same (kind, name) as a library loaded before: the first one found on the search path keeps
  // the name (so a folder given first overrides a built-in plugin), the later one's component is
  // left out with a warning naming both files; its other components still load.
  for (auto& info : registrar.collected) {
    const RegisteredComponent* first = find(info.kind, info.name);
    if (first == nullptr) continue;
    warnings_.push_back(LoadWarning{path, std::string(to_string(info.kind)) + " plugin \"" + info.name +
                                              "\" is registered by two libraries: using " + first->library_path +
                                              " (found first on the search path), ignoring " + path});
    info.make = nullptr;
  }
  for (auto& info : registrar.collected) {
    if (!info.make) continue;
    RegisteredComponent rc;
    rc.factory_ = std::move(info.make);
    info.make = nullptr;
    rc.info = std::move(info);
    rc.library_path = path;
    rc.library_name = fixed_text(desc.library);
    rc.library_version = fixed_text(desc.version);
    components_.push_back(std::move(rc));
  }
  libraries_.push_back(path);
  return true;
}

const RegisteredComponent* Registry::find(Kind kind, const std::string& name) const {
  for (const auto& c : components_)
    if (c.info.kind == kind && c.info.name == name) return &c;
  return nullptr;
}

std::unique_ptr<Component> Registry::make_component(Kind kind, const std::string& name, const nlohmann::json& block,
                                                   const Context& context, const std::string& source,
                                                   const std::string& pointer) const {
  const RegisteredComponent* rc = find(kind, name);
  if (!rc) throw Error("no " + std::string(to_string(kind)) + " plugin named \"" + name + "\" is loaded");
  return build(*rc, validate_params(rc->info.params, block, source, pointer, name), context, source, pointer);
}

std::unique_ptr<Component> Registry::build(const RegisteredComponent& rc, const Params& params,
                                           const Context& context, const std::string& source,
                                           const std::string& pointer) {
  const std::string& name = rc.info.name;
  std::unique_ptr<Component> made;
  try {
    made = rc.factory_(params, context);
  } catch (const MemoryLimitError& e) {
    diagnostics::input_error(source, pointer, e.what());  // charged by the factory before allocating
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    diagnostics::input_error(source, pointer, name + ": " + e.what());
  } catch (...) {
    diagnostics::input_error(source, pointer, name + ": its factory threw an exception that is not a std::exception");
  }
  if (!made) throw Error(name + ": its factory returned no object");
  return made;
}

void Registry::wrong_role(const std::string& name, Kind kind) {
  throw Error(name + ": registered as " + diagnostics::article(to_string(kind)) + " " + to_string(kind) +
              " plugin, but its factory made an object of another role");
}

std::vector<const RegisteredComponent*> Registry::find_any_kind(const std::string& name) const {
  std::vector<const RegisteredComponent*> out;
  for (const auto& c : components_)
    if (c.info.name == name) out.push_back(&c);
  return out;
}

std::vector<std::string> Registry::closest(Kind kind, const std::string& name, size_t count) const {
  std::vector<std::string> names;
  for (const auto& c : components_)
    if (c.info.kind == kind) names.push_back(c.info.name);
  return closest_names(name, names, count);
}

}  // namespace scfw
