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

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "scfw/host_arrays.hpp"
#include "scfw/memory.hpp"
#include "scfw/params.hpp"
#include "scfw/roles.hpp"
#include "scfw/sdk_interface.hpp"
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
  /// The run's memory account: charge what the factory is about to allocate, before allocating
  /// it (memory.hpp). Charges over the limit are refused at the block's pointer with exit 2.
  Memory memory;
  /// The oracle's share of the data when the run is spread over MPI ranks (shard.hpp); null in a
  /// one-process run and for every role but the oracle.
  const Shard* shard = nullptr;
  /// The values one Jacobian of the problem's oracle stores: its pattern's non-zeros when it
  /// declares one (jacobian.hpp), else -1 (dense, n x d). For trackers' memory charges.
  std::int64_t jacobian_nnz = -1;
  /// The arrays the host passed by name in place of data files (host_arrays.hpp; read them with
  /// host_array()); null when it passed none, as under `scfw run`.
  const HostArrays* arrays = nullptr;
  /// The oracle's matrix entries when its coordinates are some entries of a matrix
  /// (Oracle::matrix_entries, atom.hpp), for the domain and the GLMO; null otherwise and while
  /// building the oracle itself.
  std::shared_ptr<const MatrixEntries> entries;
  /// The number of doubles of one Jacobian: jacobian_nnz, or n x d for a dense one.
  std::int64_t jacobian_size() const {
    return jacobian_nnz >= 0 ? jacobian_nnz : std::int64_t{outputs < 0 ? 0 : outputs} * (dim < 0 ? 0 : dim);
  }
};

/// Builds a component from parameters the host has validated against the declarations (defaults
/// filled in, ranges checked, unknown keys refused). Only the host's registry runs factories.
using Factory = std::function<std::unique_ptr<Component>(const Params&, const Context&)>;

/// How the host picks a plugin for a role whose block a problem file leaves out (docs/plugins.md,
/// "The automatic choice"). A plugin of rank 0 (the default) is used only where a file names it.
/// Among the ranked plugins of a role the highest rank is the role's default; for the GLMO the
/// ranked ones are asked in decreasing rank, and the first whose supports() accepts the problem
/// is used. Equal ranks go by name.
struct Preference {
  int rank = 0;
  /// A GLMO's reason for the run summary's note: "glmo: NAME selected automatically (<reason>)".
  /// Empty: the note names the GLMO of the next higher rank that declined, and its reason.
  std::string reason = {};
  /// A GLMO named in a problem file that declines a domain with no LP model hands over to the
  /// automatic choice (with a note) instead of failing.
  bool hands_over = false;
};

struct ComponentInfo {
  Kind kind = Kind::Oracle;
  std::string name;     ///< the name users write in JSON: {"plugin": name}
  std::string summary;  ///< one line: what it is, with the paper's formula
  std::vector<ParamSpec> params;
  Factory make;
  Preference preference;  ///< whether and when the host picks it for an absent block
};

namespace detail {

/// Compile-time errors for a component written against ABI 6, whose capability queries and state
/// methods ABI 7 replaced (docs/plugins.md, "Migrating from ABI 6"), or against ABI 7, whose two
/// LMOs ABI 8 made one: each names what replaces the old method, so that such a class does not compile into a plugin whose overrides are never
/// called. (A class that still marks one of them `override` also gets the compiler's own error.)
template <class T>
constexpr bool check_removed_methods() {
  static_assert(!requires(const T& t) { t.has_exact(); },
                "scfw ABI 7: has_exact() is gone; declare Capability::Exact in capabilities() "
                "(docs/plugins.md, \"Migrating from ABI 6\")");
  static_assert(!requires(const T& t) { t.has_hessian_action(); },
                "scfw ABI 7: has_hessian_action() is gone; declare Capability::HessianAction in capabilities()");
  static_assert(!requires(const T& t) { t.sharded(); },
                "scfw ABI 7: sharded() is gone; declare Capability::Sharded in capabilities()");
  static_assert(!requires(const T& t) { t.has_model(); },
                "scfw ABI 7: has_model() is gone; a Domain declares Capability::LpModel in capabilities() "
                "(the default: a domain known only through its LMO returns a set without it)");
  static_assert(!requires(const T& t) { t.compact_atoms(); },
                "scfw ABI 7: compact_atoms() is gone; declare Capability::CompactAtoms in capabilities()");
  static_assert(!requires(const T& t) { t.accepts_sparse(); },
                "scfw ABI 7: accepts_sparse() is gone; a Glmo declares Capability::SparseV in capabilities()");
  static_assert(!requires(const T& t, const Sample& s, const Vec& x, Vec* f, Mat* J) { t.evaluate(s, x, f, J); },
                "scfw ABI 7: evaluate() takes a scfw::Jacobian* (jacobian.hpp): "
                "void evaluate(const Sample&, const Vec& x, Vec* f, Jacobian* J) const, a dense oracle "
                "writing J->dense()");
  static_assert(!requires(const T& t, const Vec& x, Vec* f, Mat* J) { t.exact(x, f, J); },
                "scfw ABI 7: exact() takes a scfw::Jacobian*: void exact(const Vec& x, Vec* f, Jacobian* J) const");
  static_assert(!requires(const T& t, const Sample& s, const Vec& x, Vec* f, double* v) { t.evaluate_sparse(s, x, f, v); },
                "scfw ABI 7: evaluate_sparse() is gone; evaluate() receives a sparse scfw::Jacobian* "
                "and writes J->data() when the oracle declares Capability::SparseJacobian");
  static_assert(!requires(const T& t, const Vec& x, Vec* f, double* v) { t.exact_sparse(x, f, v); },
                "scfw ABI 7: exact_sparse() is gone; exact() receives a sparse scfw::Jacobian* "
                "and writes J->data() when the oracle declares Capability::SparseJacobian");
  static_assert(!requires(const T& t) { t.state_support(); },
                "scfw ABI 7: state_support() is gone; declare Capability::SavedState (or UnsavedState) in "
                "capabilities() and keep save_state() / load_state() (scfw::Stateful)");
  static_assert(!requires(const T& t, const Vec& g, Vec& x) { t.lmo(g, x); },
                "scfw ABI 8: Domain::lmo(const Vec& g, Vec& x) is gone; override "
                "void lmo(const scfw::Gradient& g, scfw::Atom& s) const (atom.hpp): s.set_dense(dim()) "
                "returns the vector to fill (docs/plugins.md, \"Migrating from ABI 7\")");
  static_assert(!requires { &T::lmo_sparse; },
                "scfw ABI 8: Domain::lmo_sparse() is gone; the one lmo(const scfw::Gradient& g, scfw::Atom& s) "
                "receives the sparse gradient too (g.is_dense() is false)");
  return true;
}

}  // namespace detail

class Registrar {
 public:
  virtual ~Registrar();
  virtual void add(ComponentInfo info) = 0;

  /// Registers T under `name` in the role T derives from, constructed as
  /// T(const Params&, const Context&) with the parameters validated against `params`;
  /// `preference` says whether the host may pick it for an absent block.
  template <class T>
  void add(std::string name, std::string summary, std::vector<ParamSpec> params, Preference preference = {}) {
    static_assert(role_count_v<T> == 1,
                  "scfw::Registrar::add<T>: T must derive from exactly one of the six roles scfw::Oracle, "
                  "scfw::OuterFunction, scfw::Domain, scfw::Glmo, scfw::Tracker, scfw::Schedule");
    static_assert(std::is_constructible_v<T, const Params&, const Context&>,
                  "scfw::Registrar::add<T>: T needs a public constructor T(const scfw::Params&, const "
                  "scfw::Context&), and T must not be abstract (override every pure virtual method of its role)");
    static_assert(detail::check_removed_methods<T>());
    if constexpr (role_count_v<T> == 1 && std::is_constructible_v<T, const Params&, const Context&>) {
      add(ComponentInfo{kind_of<T>(), std::move(name), std::move(summary), std::move(params),
                        [](const Params& p, const Context& c) -> std::unique_ptr<Component> {
                          return std::make_unique<T>(p, c);
                        },
                        std::move(preference)});
    }
  }
};

/// The types whose sizes the build fingerprint records: the standard library and Eigen types that
/// cross between host and plugins, and the SDK's own structs.
inline constexpr std::size_t kFingerprintSizes = 10;
inline constexpr const char* kFingerprintSizeNames[kFingerprintSizes] = {
    "std::string", "std::vector<double>", "std::function<void()>", "scfw::Vec", "scfw::Mat",
    "scfw::ComponentInfo", "scfw::ParamSpec", "scfw::Params", "scfw::Context", "scfw::Expr"};

/// What a plugin was compiled with, recorded in its descriptor and compared by the host with its
/// own before anything else of the library is touched: a library built against other SDK headers
/// (one more virtual method in roles.hpp), with the other libstdc++ string ABI
/// (-D_GLIBCXX_USE_CXX11_ABI=0), another Eigen or Eigen alignment would otherwise crash or abort
/// at the first call. Plain C layout: integers and fixed, NUL-terminated char arrays.
struct BuildFingerprint {
  char sdk_version[16];                ///< SCFW_SDK_VERSION of the SDK headers used
  char compiler[64];                   ///< "GCC 12.2.0": recorded for messages, not compared
  std::uint64_t interface_hash;        ///< SCFW_SDK_INTERFACE_HASH: the SDK's declarations
  std::uint32_t std_library;           ///< 1 libstdc++, 2 libc++, 0 another
  std::uint32_t cxx11_string_abi;      ///< _GLIBCXX_USE_CXX11_ABI (libstdc++ only, else 0)
  std::uint32_t eigen_version;         ///< 10000 * world + 100 * major + minor (3.4.0: 30400)
  std::uint32_t eigen_max_align;       ///< EIGEN_MAX_ALIGN_BYTES
  std::uint32_t eigen_max_static_align;///< EIGEN_MAX_STATIC_ALIGN_BYTES
  std::uint32_t sizes[kFingerprintSizes];  ///< sizeof each of kFingerprintSizeNames, in order
};

/// The plain descriptor behind the `scfw_plugin` alias. abi_version stays the first field in
/// every version: the host reads it first and trusts nothing else when it differs from
/// kAbiVersion; then it compares the build fingerprint and calls register_components only when
/// both agree.
struct PluginDescriptor {
  std::uint32_t abi_version;
  std::uint32_t descriptor_size;  ///< sizeof(PluginDescriptor) in the plugin
  char library[64];               ///< the library's name (cut to 63 bytes)
  char version[32];               ///< the library's version (cut to 31 bytes)
  BuildFingerprint build;
  void (*register_components)(Registrar&);
};

namespace detail {

template <std::size_t N>
constexpr void copy_text(char (&out)[N], const char* text) {
  std::size_t i = 0;
  for (; text != nullptr && i + 1 < N && text[i] != '\0'; ++i) out[i] = text[i];
  for (; i < N; ++i) out[i] = '\0';
}

constexpr BuildFingerprint make_fingerprint(const char* sdk_version, const char* compiler, std::uint64_t interface_hash,
                                            std::uint32_t std_library, std::uint32_t cxx11_string_abi,
                                            std::uint32_t eigen_version, std::uint32_t eigen_max_align,
                                            std::uint32_t eigen_max_static_align,
                                            const std::uint32_t (&sizes)[kFingerprintSizes]) {
  BuildFingerprint f{};
  copy_text(f.sdk_version, sdk_version);
  copy_text(f.compiler, compiler);
  f.interface_hash = interface_hash;
  f.std_library = std_library;
  f.cxx11_string_abi = cxx11_string_abi;
  f.eigen_version = eigen_version;
  f.eigen_max_align = eigen_max_align;
  f.eigen_max_static_align = eigen_max_static_align;
  for (std::size_t i = 0; i < kFingerprintSizes; ++i) f.sizes[i] = sizes[i];
  return f;
}

constexpr PluginDescriptor make_descriptor(std::uint32_t abi, const char* library, const char* version,
                                           const BuildFingerprint& build, void (*register_components)(Registrar&)) {
  PluginDescriptor d{};
  d.abi_version = abi;
  d.descriptor_size = sizeof(PluginDescriptor);
  copy_text(d.library, library);
  copy_text(d.version, version);
  d.build = build;
  d.register_components = register_components;
  return d;
}

}  // namespace detail

}  // namespace scfw

#if defined(__clang__)
#define SCFW_DETAIL_COMPILER "Clang " __clang_version__
#elif defined(__GNUC__)
#define SCFW_DETAIL_COMPILER "GCC " __VERSION__
#else
#define SCFW_DETAIL_COMPILER "an unknown compiler"
#endif
#if defined(_LIBCPP_VERSION)
#define SCFW_DETAIL_STD_LIBRARY 2u
#elif defined(__GLIBCXX__)
#define SCFW_DETAIL_STD_LIBRARY 1u
#else
#define SCFW_DETAIL_STD_LIBRARY 0u
#endif
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define SCFW_DETAIL_CXX11_ABI static_cast<std::uint32_t>(_GLIBCXX_USE_CXX11_ABI)
#else
#define SCFW_DETAIL_CXX11_ABI 0u
#endif

/// The build fingerprint of the translation unit it is expanded in (a constant expression): the
/// plugin's in SCFW_PLUGIN, the host's in the registry.
#define SCFW_BUILD_FINGERPRINT                                                                          \
  ::scfw::detail::make_fingerprint(                                                                     \
      SCFW_SDK_VERSION, SCFW_DETAIL_COMPILER, SCFW_SDK_INTERFACE_HASH, SCFW_DETAIL_STD_LIBRARY,         \
      SCFW_DETAIL_CXX11_ABI, EIGEN_WORLD_VERSION * 10000u + EIGEN_MAJOR_VERSION * 100u + EIGEN_MINOR_VERSION, \
      static_cast<std::uint32_t>(EIGEN_MAX_ALIGN_BYTES), static_cast<std::uint32_t>(EIGEN_MAX_STATIC_ALIGN_BYTES), \
      {sizeof(std::string), sizeof(std::vector<double>), sizeof(std::function<void()>), sizeof(::scfw::Vec),  \
       sizeof(::scfw::Mat), sizeof(::scfw::ComponentInfo), sizeof(::scfw::ParamSpec), sizeof(::scfw::Params), \
       sizeof(::scfw::Context), sizeof(::scfw::Expr)})
