// Shared by the tests that build components from the real plugins directly (without a problem
// file): the registry of everything in the build's plugin folder, a typed factory call, and
// Params / Context built by hand.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "scfw/core/registry.hpp"
#include "scfw/scfw.hpp"

namespace scfw::test {

inline Registry& registry() {
  static Registry r;
  static const bool loaded = (r.load_directory(SCFW_PLUGIN_DIR), true);
  (void)loaded;
  return r;
}

/// The registered component `name` of `kind`, built with these parameters and cast to its role.
template <class T>
std::unique_ptr<T> make(Kind kind, const std::string& name, const Params& p, const Context& c) {
  const RegisteredComponent* rc = registry().find(kind, name);
  REQUIRE_MESSAGE(rc != nullptr, "plugin \"" << name << "\" not found in " << SCFW_PLUGIN_DIR);
  std::unique_ptr<Component> made = rc->info.make(p, c);
  T* typed = dynamic_cast<T*>(made.get());
  REQUIRE(typed != nullptr);
  made.release();
  return std::unique_ptr<T>(typed);
}

inline Context context(int d, int n, std::string base_dir = {}) {
  Context c;
  c.dim = d;
  c.outputs = n;
  c.base_dir = std::move(base_dir);
  return c;
}

using Entries = std::vector<std::pair<std::string, ParamValue>>;
/// Params as the composer would hand them, located at `source`: `pointer` for messages.
inline Params params(const Entries& values, const std::string& source = {}, const std::string& pointer = {}) {
  Params p(source, pointer);
  for (const auto& [name, v] : values) p.set(name, v);
  return p;
}

}  // namespace scfw::test
