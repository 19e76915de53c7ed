// scfw SDK: registering components from a plugin library.
//
// A plugin library exports one plain descriptor through a Boost.DLL alias named `scfw_plugin`:
// the ABI version (checked by the host before any C++ object crosses), the library's name and
// version, and a function that registers the library's components. Usage:
//
//   #include <scfw/plugin.hpp>
//   class MaxOuter : public scfw::OuterFunction { ... };
//   static void register_components(scfw::Registrar& r) {
//     r.add<MaxOuter>(scfw::Kind::Outer, "max", "F(u) = max_i u_i (robust minimax)", {});
//   }
//   SCFW_PLUGIN("max", "1.0.0", register_components)
//
// This header (and only this one) needs Boost's header-only DLL library.
#pragma once

#include <boost/dll/alias.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scfw/params.hpp"
#include "scfw/roles.hpp"

namespace scfw {

enum class Kind { Oracle, Outer, Domain, Glmo, Tracker, Schedule };

/// "oracle", "outer", "domain", "glmo", "tracker", "schedule" — the JSON block names.
const char* to_string(Kind k);

/// What a factory knows besides its own parameters.
struct Context {
  int dim = -1;           ///< d of the problem's oracle (-1 while building the oracle itself)
  int outputs = -1;       ///< n of the problem's oracle (-1 while building the oracle itself)
  std::string base_dir;   ///< folder of the problem file: relative data paths resolve against it
};

using Factory = std::function<std::unique_ptr<Component>(const Params&, const Context&)>;

struct ComponentInfo {
  Kind kind = Kind::Oracle;
  std::string name;     ///< the name users write in JSON: {"plugin": name}
  std::string summary;  ///< one line: what it is, with the paper's formula
  std::vector<ParamSpec> params;
  Factory make;
};

class Registrar {
 public:
  virtual ~Registrar();
  virtual void add(ComponentInfo info) = 0;

  /// Registers T, constructed as T(const Params&, const Context&).
  template <class T>
  void add(Kind kind, std::string name, std::string summary, std::vector<ParamSpec> params) {
    add(ComponentInfo{kind, std::move(name), std::move(summary), std::move(params),
                      [](const Params& p, const Context& c) -> std::unique_ptr<Component> {
                        return std::make_unique<T>(p, c);
                      }});
  }
};

/// The plain descriptor behind the `scfw_plugin` alias. Its layout never changes: the host
/// reads abi_version first and trusts nothing else when it differs from kAbiVersion.
struct PluginDescriptor {
  std::uint32_t abi_version;
  const char* library;
  const char* version;
  void (*register_components)(Registrar&);
};

}  // namespace scfw

/// Exports the library's descriptor with an explicit ABI number (tests use it to build a
/// library of another ABI version). Plugins use SCFW_PLUGIN.
#define SCFW_PLUGIN_WITH_ABI(ABI, LIBRARY, VERSION, REGISTER)                                  \
  namespace scfw_plugin_detail {                                                               \
  const ::scfw::PluginDescriptor descriptor{(ABI), (LIBRARY), (VERSION), &(REGISTER)};          \
  }                                                                                            \
  BOOST_DLL_ALIAS(scfw_plugin_detail::descriptor, scfw_plugin)

#define SCFW_PLUGIN(LIBRARY, VERSION, REGISTER) \
  SCFW_PLUGIN_WITH_ABI(::scfw::kAbiVersion, LIBRARY, VERSION, REGISTER)
