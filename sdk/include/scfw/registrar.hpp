// scfw SDK: what a plugin registers, without the export machinery. The host's registry and the
// tests include this header; only the registration line's header (plugin.hpp) needs Boost.DLL.
//
//   class MaxOuter : public scfw::OuterFunction {
//    public:
//     MaxOuter(const scfw::Params& p, const scfw::Context& c);
//     ...
//   };
//   r.add<MaxOuter>("max", "F(u) = max_i u_i (robust minimax)", {});
//
// add<T> deduces the role (the JSON block T is written in) from T's base class and checks at
// compile time that T is constructible from (const Params&, const Context&).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "scfw/params.hpp"
#include "scfw/roles.hpp"
#include "scfw/shard.hpp"

namespace scfw {

enum class Kind { Oracle, Outer, Domain, Glmo, Tracker, Schedule };

/// "oracle", "outer", "domain", "glmo", "tracker", "schedule" — the JSON block names.
const char* to_string(Kind k);

/// How many of the six role interfaces T derives from (a component implements exactly one).
template <class T>
inline constexpr int role_count_v = int{std::is_base_of_v<Oracle, T>} + int{std::is_base_of_v<OuterFunction, T>} +
                                    int{std::is_base_of_v<Domain, T>} + int{std::is_base_of_v<Glmo, T>} +
                                    int{std::is_base_of_v<Tracker, T>} + int{std::is_base_of_v<Schedule, T>};

/// The role of T, a class deriving from exactly one of the six role interfaces (or the
/// interface itself).
template <class T>
constexpr Kind kind_of() {
  static_assert(role_count_v<T> == 1,
                "scfw: a component class must derive from exactly one of the six roles scfw::Oracle, "
                "scfw::OuterFunction, scfw::Domain, scfw::Glmo, scfw::Tracker, scfw::Schedule");
  if constexpr (std::is_base_of_v<Oracle, T>) return Kind::Oracle;
  else if constexpr (std::is_base_of_v<OuterFunction, T>) return Kind::Outer;
  else if constexpr (std::is_base_of_v<Domain, T>) return Kind::Domain;
  else if constexpr (std::is_base_of_v<Glmo, T>) return Kind::Glmo;
  else if constexpr (std::is_base_of_v<Tracker, T>) return Kind::Tracker;
  else return Kind::Schedule;
}

/// What a factory knows besides its own parameters.
struct Context {
  int dim = -1;           ///< d of the problem's oracle (-1 while building the oracle itself)
  int outputs = -1;       ///< n of the problem's oracle (-1 while building the oracle itself)
  std::string base_dir;   ///< folder of the problem file: relative data paths resolve against it
  /// The oracle's share of the data when the run is spread over MPI ranks (shard.hpp); null in a
  /// one-process run and for every role but the oracle.
  const Shard* shard = nullptr;
};

/// Builds a component from parameters the host has validated against the declarations (defaults
/// filled in, ranges checked, unknown keys refused). Only the host's registry runs factories.
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

  /// Registers T under `name` in the role T derives from, constructed as
  /// T(const Params&, const Context&) with the parameters validated against `params`.
  template <class T>
  void add(std::string name, std::string summary, std::vector<ParamSpec> params) {
    static_assert(role_count_v<T> == 1,
                  "scfw::Registrar::add<T>: T must derive from exactly one of the six roles scfw::Oracle, "
                  "scfw::OuterFunction, scfw::Domain, scfw::Glmo, scfw::Tracker, scfw::Schedule");
    static_assert(std::is_constructible_v<T, const Params&, const Context&>,
                  "scfw::Registrar::add<T>: T needs a public constructor T(const scfw::Params&, const "
                  "scfw::Context&), and T must not be abstract (override every pure virtual method of its role)");
    if constexpr (role_count_v<T> == 1 && std::is_constructible_v<T, const Params&, const Context&>) {
      add(ComponentInfo{kind_of<T>(), std::move(name), std::move(summary), std::move(params),
                        [](const Params& p, const Context& c) -> std::unique_ptr<Component> {
                          return std::make_unique<T>(p, c);
                        }});
    }
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
