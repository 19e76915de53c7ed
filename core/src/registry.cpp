#include "scfw/core/registry.hpp"
#include "scfw/core/diagnostics.hpp"

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <set>
#include <system_error>

#include "scfw/core/params_json.hpp"
#include "scfw/error.hpp"
#include "scfw/plugin.hpp"

#include "elf_file.hpp"

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

// Why the descriptor refuses its library, or "", judged on its first `known` bytes: the ABI number
// first (nothing else is trusted when it differs), then the descriptor's size, then the fixed-size
// build fingerprint; a check whose field lies past `known` is left to a later call.
std::string descriptor_problem(const PluginDescriptor& desc, std::size_t known) {
  auto has = [&](std::size_t offset, std::size_t size) { return offset + size <= known; };
  if (!has(offsetof(PluginDescriptor, abi_version), sizeof desc.abi_version)) return {};
  if (desc.abi_version != kAbiVersion)
    return "built for scfw plugin ABI version " + std::to_string(desc.abi_version) + ", this scfw needs ABI version " +
           std::to_string(kAbiVersion);
  if (!has(offsetof(PluginDescriptor, descriptor_size), sizeof desc.descriptor_size)) return {};
  if (desc.descriptor_size != sizeof(PluginDescriptor))
    return "its scfw_plugin descriptor has " + std::to_string(desc.descriptor_size) + " bytes, this scfw's has " +
           std::to_string(sizeof(PluginDescriptor));
  if (!has(offsetof(PluginDescriptor, build), sizeof desc.build)) return {};
  return fingerprint_mismatch(desc.build);
}

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
  if (std::string problem = elf::problem(canonical); !problem.empty()) return fail("cannot be loaded: " + problem);
  // The descriptor as the file has it, checked before dlopen: a library built with the other
  // std::string ABI that calls the SDK names symbols no library defines, and its fingerprint,
  // not the loader's "undefined symbol", says why. A refused library is never loaded, so none
  // of its static initializers runs. When the file cannot be read this way the checks below,
  // after dlopen, decide alone.
  const elf::DescriptorInFile in_file = elf::read_descriptor(canonical);
  if (in_file.status == elf::DescriptorInFile::Status::damaged) return fail("cannot be loaded: " + in_file.damage);
  if (in_file.status == elf::DescriptorInFile::Status::read)
    if (std::string problem = descriptor_problem(in_file.descriptor, in_file.bytes); !problem.empty())
      return fail(std::move(problem));
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

  // The same checks on the loaded descriptor: they cover a layout the file reading does not follow.
  if (std::string problem = descriptor_problem(desc, sizeof desc); !problem.empty()) return fail(std::move(problem));
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
