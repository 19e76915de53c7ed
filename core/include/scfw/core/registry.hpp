// scfw core: run-time discovery of plugin libraries.
//
// Every plugin is its own shared library. The registry opens each candidate with Boost.DLL,
// reads the plain `scfw_plugin` descriptor, checks its ABI number and then its build fingerprint
// (SDK interface hash, C++ library and string ABI, Eigen version and alignment, type sizes)
// before any C++ object crosses,
// and lets it register its components. A library that fails (not a plugin, missing symbol, other
// ABI version, throws while registering) is recorded once with its path and reason and the
// others still load. When two libraries register the same (kind, name), the one loaded first (the
// search path's order: --plugin-path, then $SCFW_PLUGIN_PATH, then the built-in folder; within a
// folder, sorted file names) keeps it and a warning names both files. Libraries are never unloaded: anything a library made (objects, deleters,
// std::function targets, exceptions in flight) stays valid until the process exits.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "scfw/error.hpp"
#include "scfw/registrar.hpp"

namespace scfw {

class Registry;

/// A registered component. Its factory is the registry's alone (info.make is empty here): the
/// one way to build the component is Registry::make, which validates the parameters first.
struct RegisteredComponent {
  ComponentInfo info;
  std::string library_path;     ///< the file it came from
  std::string library_name;     ///< PluginDescriptor::library
  std::string library_version;  ///< PluginDescriptor::version

 private:
  friend class Registry;
  Factory factory_;
};

struct LoadFailure {
  std::string path;
  std::string reason;
};

/// A library that loaded, but not all of it is used: a name it registers was registered first by
/// another library. `message` is one line naming both files.
struct LoadWarning {
  std::string path;
  std::string message;
};

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  /// The standard search path, in order: each extra directory (e.g. from --plugin-path), each
  /// directory of $SCFW_PLUGIN_PATH (':'-separated), then the first folder that exists of
  /// <exe>/../lib/scfw/plugins (the build tree and an install prefix alike), the plugins beside
  /// the libscfw_core.so in use (<libdir>/scfw/plugins: for a host application elsewhere) and
  /// the compiled-in <prefix>/lib/scfw/plugins. Missing directories are skipped; duplicates
  /// removed.
  static std::vector<std::filesystem::path> search_path(
      const std::vector<std::filesystem::path>& extra = {});

  /// Loads every shared library (*.so) directly inside each directory, in sorted order.
  void load_path(const std::vector<std::filesystem::path>& dirs);
  void load_directory(const std::filesystem::path& dir);
  /// Loads one library. Returns false (and records a LoadFailure) when it is not a usable
  /// plugin. A component whose (kind, name) another library registered first is left out and
  /// recorded as a LoadWarning; the library's other components load.
  bool load_library(const std::filesystem::path& file);

  /// The component of this kind with this name, or nullptr.
  const RegisteredComponent* find(Kind kind, const std::string& name) const;
  /// Components of other kinds with this name (to say "X is a domain, not an outer function").
  std::vector<const RegisteredComponent*> find_any_kind(const std::string& name) const;
  /// Up to `count` registered names of this kind closest to `name` (edit distance).
  std::vector<std::string> closest(Kind kind, const std::string& name, size_t count = 3) const;

  /// The component `name` of T's role (T is Oracle, Domain, ...), built from a JSON block:
  /// the block is validated against the component's declarations (defaults filled in, ranges
  /// checked, unknown keys refused; a "plugin" key is ignored), then the factory runs. `source`
  /// and `pointer` locate the block in messages: "<source>: <pointer>/radius: ...". This is the
  /// only way to run a factory, for the composer, tools, tests and benches alike.
  /// Errors: InputError for bad parameters (the plugin's own Params::fail passes unchanged) and
  /// for any other exception of the factory ("<source>: <pointer>: NAME: what"); Error when no
  /// such component is loaded or its factory makes an object of another role.
  template <class T>
  std::unique_ptr<T> make(const std::string& name, const nlohmann::json& block, const Context& context,
                          const std::string& source = "", const std::string& pointer = "") const {
    return typed<T>(make_component(kind_of<T>(), name, block, context, source, pointer), name);
  }
  /// The same from parameters that validate_params (params_json.hpp) already made of the block
  /// for `component`, a component of T's role in this registry: the composer validates every
  /// block once, before any factory runs.
  template <class T>
  std::unique_ptr<T> make(const RegisteredComponent& component, const Params& params, const Context& context,
                          const std::string& source = "", const std::string& pointer = "") const {
    return typed<T>(build(component, params, context, source, pointer), component.info.name);
  }

  const std::vector<RegisteredComponent>& components() const { return components_; }
  const std::vector<LoadFailure>& failures() const { return failures_; }
  const std::vector<LoadWarning>& warnings() const { return warnings_; }
  const std::vector<std::string>& libraries() const { return libraries_; }

 private:
  std::unique_ptr<Component> make_component(Kind kind, const std::string& name, const nlohmann::json& block,
                                            const Context& context, const std::string& source,
                                            const std::string& pointer) const;
  /// Runs the factory of `component` on validated parameters.
  static std::unique_ptr<Component> build(const RegisteredComponent& component, const Params& params,
                                          const Context& context, const std::string& source,
                                          const std::string& pointer);
  template <class T>
  static std::unique_ptr<T> typed(std::unique_ptr<Component> made, const std::string& name) {
    T* object = dynamic_cast<T*>(made.get());
    if (!object) wrong_role(name, kind_of<T>());
    made.release();
    return std::unique_ptr<T>(object);
  }
  [[noreturn]] static void wrong_role(const std::string& name, Kind kind);

  std::vector<RegisteredComponent> components_;
  std::vector<LoadFailure> failures_;
  std::vector<LoadWarning> warnings_;
  std::vector<std::string> libraries_;  // canonical paths of the libraries loaded
};

/// Why a library's build fingerprint does not match this scfw's ("build fingerprint mismatch:
/// _GLIBCXX_USE_CXX11_ABI=0 in the library, 1 in this scfw (...); ..."), or "" when it matches.
/// The registry skips a mismatched library with this reason before calling anything in it.
std::string fingerprint_mismatch(const BuildFingerprint& library);

}  // namespace scfw
