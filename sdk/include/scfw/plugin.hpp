// scfw SDK: the registration line of a plugin library.
//
// A plugin library exports one plain descriptor through a Boost.DLL alias named `scfw_plugin`:
// the ABI version and the build fingerprint (SDK version and interface hash, C++ library and its
// string ABI, Eigen version and alignment, sizes of the types that cross; checked by the host
// before any C++ object crosses), the library's name and version, and a function that registers
// the library's components. Usage:
//
//   #include <scfw/plugin.hpp>
//   class MaxOuter : public scfw::OuterFunction { ... };
//   static void register_components(scfw::Registrar& r) {
//     r.add<MaxOuter>("max", "F(u) = max_i u_i (robust minimax)", {});
//   }
//   SCFW_PLUGIN("max", SCFW_PLUGIN_VERSION, register_components)
//
// SCFW_PLUGIN_VERSION is the version of the CMake project the plugin is built in, defined by
// scfw_add_plugin(); any string literal will do.
//
// This header is the only one that includes Boost.DLL, and only its alias header; Context,
// ComponentInfo and Registrar live in registrar.hpp, which needs no Boost.
#pragma once

#include <boost/dll/alias.hpp>

#include "scfw/registrar.hpp"

/// Exports the library's descriptor with an explicit ABI number (tests use it to build a
/// library of another ABI version). Plugins use SCFW_PLUGIN. The descriptor is a constant: it
/// records the build fingerprint of the translation unit this line is in.
#define SCFW_PLUGIN_WITH_ABI(ABI, LIBRARY, VERSION, REGISTER)                                  \
  namespace scfw_plugin_detail {                                                               \
  constexpr ::scfw::PluginDescriptor descriptor =                                              \
      ::scfw::detail::make_descriptor((ABI), (LIBRARY), (VERSION), SCFW_BUILD_FINGERPRINT, &(REGISTER)); \
  }                                                                                            \
  BOOST_DLL_ALIAS(scfw_plugin_detail::descriptor, scfw_plugin)

#define SCFW_PLUGIN(LIBRARY, VERSION, REGISTER) \
  SCFW_PLUGIN_WITH_ABI(::scfw::kAbiVersion, LIBRARY, VERSION, REGISTER)
