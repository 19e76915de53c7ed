// Shared by the tests that build components from the real plugins directly (without a problem
// file): the registry of everything in the build's plugin folder, a typed build from a JSON block
// through Registry::make (validated like a problem file's block), and a Context built by hand.
#pragma once

#include <doctest/doctest.h>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sanitizer_support.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/scfw.hpp"

namespace scfw::test {

/// Domain::lmo's answer as a d-vector, whatever kind of atom the domain returns.
inline void lmo_dense(const Domain& domain, const Vec& g, Vec& x) {
  Atom s;
  domain.lmo(g, s);
  s.to_dense(x);
}

/// X = {x in [-1, 1]^6 : sum x <= 3} as a polytope domain block (A row-major, b): the polytope
/// whose LMO keeps Clp's basis between calls in the tests of resumes and of reused problems.
inline nlohmann::json box_cut_polytope() {
  nlohmann::json A = nlohmann::json::array(), b = nlohmann::json::array();
  for (int sign : {1, -1})
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) A.push_back(i == j ? sign : 0);
      b.push_back(1);
    }
  for (int j = 0; j < 6; ++j) A.push_back(1);
  b.push_back(3);
  return {{"plugin", "polytope"}, {"A", A}, {"b", b}};
}

inline Registry& registry() {
  static Registry r;
  static const bool loaded = (r.load_directory(SCFW_PLUGIN_DIR), true);
  (void)loaded;
  return r;
}

/// The message of the scfw::InputError that f throws, "not an InputError: ..." for another
/// exception, or "(no InputError)".
inline std::string input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not an InputError: ") + e.what();
  }
  return "(no InputError)";
}

/// The message of the exception (any std::exception) that f throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

/// A fresh folder under the system temp dir (one per object: the process id and a counter name
/// it), removed with everything in it when the object goes.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static int count = 0;
    path = std::filesystem::temp_directory_path() /
           ("scfw_test_" + std::to_string(::getpid()) + "_" + std::to_string(count++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  /// Writes `text` to the file `name` in the folder; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = path / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

inline Context context(int d, int n, std::string base_dir = {}) {
  Context c;
  c.dim = d;
  c.outputs = n;
  c.base_dir = std::move(base_dir);
  return c;
}

/// A JSON block and where it is said to be, for messages ("problem.json: /domain/radius: ...").
struct Block {
  nlohmann::json value = nlohmann::json::object();
  std::string source;
  std::string pointer;
};

/// The block {"name": value, ...} located at `source`: `pointer`; params({}) is the empty block.
inline Block params(nlohmann::json values, std::string source = {}, std::string pointer = {}) {
  if (values.is_null()) values = nlohmann::json::object();
  return Block{std::move(values), std::move(source), std::move(pointer)};
}

/// The registered component `name` of T's role, built from `block` by Registry::make: validated
/// against its declarations (defaults filled in, ranges checked), as a problem file's block is.
template <class T>
std::unique_ptr<T> make(const std::string& name, const Block& block, const Context& c) {
  REQUIRE_MESSAGE(registry().find(kind_of<T>(), name) != nullptr,
                  "plugin \"" << name << "\" not found in " << SCFW_PLUGIN_DIR);
  return registry().make<T>(name, block.value, c, block.source, block.pointer);
}

// The plugins most suites build.
inline std::unique_ptr<OuterFunction> make_max(int d, int n) { return make<OuterFunction>("max", {}, context(d, n)); }
inline std::unique_ptr<OuterFunction> make_linear(int d, int n, int k) {
  return make<OuterFunction>("linear", params({{"component", std::int64_t{k}}}), context(d, n));
}
inline std::unique_ptr<Domain> make_l1(int d, int n, double radius) {
  return make<Domain>("l1_ball", params({{"radius", radius}, {"dim", std::int64_t{d}}}), context(d, n));
}
inline std::unique_ptr<Domain> make_simplex(int d, int n, double scale) {
  return make<Domain>("simplex", params({{"scale", scale}, {"dim", std::int64_t{d}}}), context(d, n));
}
inline std::unique_ptr<Domain> make_box(int d, int n, std::vector<double> lower, std::vector<double> upper) {
  return make<Domain>("box", params({{"lower", std::move(lower)}, {"upper", std::move(upper)}, {"dim", d}}),
                      context(d, n));
}

inline double rel_diff(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(b)); }

/// A GLMO input (z, V, y).
struct Instance {
  Vec z;
  Mat V;
  Vec y;
};

/// A random GLMO instance with y a point of the domain: a random convex combination of LMO
/// vertices, as Frank-Wolfe iterates are. z ~ U(-1, 1), or N(0, 1) with gaussian_z.
inline Instance random_instance(const Domain& domain, int n, std::mt19937_64& rng, bool gaussian_z = false) {
  const int d = domain.dim();
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unif(-1.0, 1.0);
  Instance in{Vec(n), Mat(n, d), domain.initial_point()};
  for (int i = 0; i < n; ++i) in.z[i] = gaussian_z ? normal(rng) : unif(rng);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) in.V(i, j) = normal(rng);
  Vec g(d), v(d);
  for (int s = 0; s < 3; ++s) {
    for (int j = 0; j < d; ++j) g[j] = normal(rng);
    lmo_dense(domain, g, v);
    const double w = std::uniform_real_distribution<double>(0.0, 0.5)(rng);
    in.y = (1.0 - w) * in.y + w * v;
  }
  return in;
}

/// A degenerate variant of a random instance, by kind (0..5): tied rows, zero columns, z all equal
/// with a duplicate row, V = 0, rank-one V with z = 0, small integers (exact ties among ratios).
inline void make_degenerate(Instance& in, int kind, std::mt19937_64& rng) {
  const int n = static_cast<int>(in.V.rows()), d = static_cast<int>(in.V.cols());
  switch (kind) {
    case 0:  // tied rows: duplicates of V and of z
      for (int i = 1; i < n; i += 2) {
        in.V.row(i) = in.V.row(i - 1);
        in.z[i] = in.z[i - 1];
      }
      break;
    case 1:  // zero columns of V
      for (int j = 0; j < d; j += 3) in.V.col(j).setZero();
      break;
    case 2:  // z all equal, a duplicate row of V
      in.z.setConstant(0.25);
      in.V.row(n - 1) = in.V.row(0);
      break;
    case 3:  // V = 0: every x is optimal
      in.V.setZero();
      break;
    case 4:  // rank-one V, z = 0: a heavily degenerate vertex
      for (int i = 1; i < n; ++i) in.V.row(i) = in.V.row(0);
      in.z.setZero();
      break;
    default: {  // small integers: exact ties among the ratios
      std::uniform_int_distribution<int> small(-2, 2);
      for (int i = 0; i < n; ++i) {
        in.z[i] = small(rng);
        for (int j = 0; j < d; ++j) in.V(i, j) = small(rng);
      }
    }
  }
}

/// A GLMO's warm solves allocate nothing: 1000 instances whose V drifts by b toward fresh normals
/// (seed 9; z and y fixed) are built first, one solve warms the GLMO, then the 1000 are solved
/// while `mallocs()` (the test's counting malloc) must not move. Returns the pivots they took.
template <class Count>
long check_warm_solves_allocate_nothing(Glmo& glmo, const Domain& domain, int n, double b, const Count& mallocs) {
  const int d = domain.dim();
  std::mt19937_64 rng(9);
  std::normal_distribution<double> normal;
  Instance in = random_instance(domain, n, rng);
  std::vector<Jacobian> Vs(1000, Jacobian(in.V));
  for (auto& Vk : Vs) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < d; ++j) in.V(i, j) = (1.0 - b) * in.V(i, j) + b * normal(rng);
    Vk.dense() = in.V;
  }
  Vec x(d);
  glmo.solve(in.z, Vs[0], in.y, x);
  long pivots = 0;
  const long before = mallocs();
  for (const Jacobian& Vk : Vs) pivots += glmo.solve(in.z, Vk, in.y, x).iterations;
  CHECK(mallocs() == before);
  MESSAGE("allocation check: " << pivots << " pivots over 1000 warm solves");
  return pivots;
}

/// check_warm_solves_allocate_nothing for the GLMO `plugin` (its default parameters) over
/// max_i u_i and the l1 ball of Task 1's size (d = 100, n = 10, radius 5). Returns the pivots, or
/// nothing under a sanitizer that owns malloc (the check skipped with kSanitizerSkipMessage).
template <class Count>
std::optional<long> check_task1_warm_solves_allocate_nothing(const std::string& plugin, double b,
                                                             const Count& mallocs) {
  if (kAllocatorSanitized) {
    MESSAGE(kSanitizerSkipMessage);
    return std::nullopt;
  }
  const int d = 100, n = 10;
  auto domain = make_l1(d, n, 5.0);
  auto outer = make_max(d, n);
  auto glmo = make<Glmo>(plugin, {}, context(d, n));
  glmo->setup(*outer, *domain, n, d);
  return check_warm_solves_allocate_nothing(*glmo, *domain, n, b, mallocs);
}

/// A warm GLMO's saved state resumes bitwise. From a random instance (seed 13), 20 steps drift z
/// and V by b = 0.1 toward fresh normals; one GLMO solves all 20, another the first 10, then
/// saves its state, which a third, fresh one loads to solve the last 10: values, pivots and x
/// equal to the first's, bit for bit, and the drift made pivots (so the warm basis is what is
/// compared). `make` builds a GLMO not yet set up.
template <class Make>
void check_resumes_bitwise(const Make& make, const std::string& plugin, const OuterFunction& outer,
                           const Domain& domain, int n) {
  const int d = domain.dim();
  std::mt19937_64 rng(13);
  std::normal_distribution<double> normal;
  Instance in = random_instance(domain, n, rng);
  std::vector<Instance> steps;
  const double b = 0.1;
  for (int k = 0; k < 20; ++k) {
    for (int i = 0; i < n; ++i) {
      in.z[i] = (1.0 - b) * in.z[i] + b * normal(rng);
      for (int j = 0; j < d; ++j) in.V(i, j) = (1.0 - b) * in.V(i, j) + b * normal(rng);
    }
    steps.push_back(in);
  }
  auto ready = [&] {
    auto g = make();
    g->setup(outer, domain, n, d);
    return g;
  };
  auto whole = ready();
  auto first = ready();
  CHECK(first->capabilities().has(Capability::SavedState));
  Vec xw(d), xr(d);
  for (int k = 0; k < 10; ++k) {
    const Instance& s = steps[static_cast<size_t>(k)];
    whole->solve(s.z, s.V, s.y, xw);
    first->solve(s.z, s.V, s.y, xr);
  }
  StateWriter w;
  first->save_state(w);
  auto resumed = ready();
  StateReader r(w.text(), plugin);
  resumed->load_state(r);
  long pivots = 0;
  for (int k = 10; k < 20; ++k) {
    const Instance& s = steps[static_cast<size_t>(k)];
    const GlmoResult a = whole->solve(s.z, s.V, s.y, xw);
    const GlmoResult c = resumed->solve(s.z, s.V, s.y, xr);
    CHECK(a.value == c.value);
    CHECK(a.iterations == c.iterations);
    for (int j = 0; j < d; ++j) CHECK(xw[j] == xr[j]);
    pivots += a.iterations;
  }
  CHECK(pivots > 0);
  CHECK(whole->describe() == resumed->describe());
}

/// A test's dense n x d Mat handed to Oracle::evaluate() or exact(), which take a Jacobian*:
/// the matrix's storage moves into a dense Jacobian for the call and back at the end of the full
/// expression, without a copy: `oracle.evaluate(s, x, &f, as_jacobian(J));`.
class as_jacobian {
 public:
  explicit as_jacobian(Mat& m) : m_(m), J_(std::move(m)) {}
  ~as_jacobian() { m_ = std::move(J_.dense()); }
  as_jacobian(const as_jacobian&) = delete;
  as_jacobian& operator=(const as_jacobian&) = delete;
  operator Jacobian*() { return &J_; }  // NOLINT(google-explicit-constructor)

 private:
  Mat& m_;
  Jacobian J_;
};

// A test-only domain known only through its LMO (the unit disc in R^2, like a nuclear-norm
// ball has no LP model): GLMOs that need a model must refuse it at setup.
class LmoOnlyDomain final : public Domain {
 public:
  int dim() const override { return 2; }
  Capabilities capabilities() const override { return {}; }  // no LP model
  void lmo(const Gradient& g, Atom& s) const override {
    Vec buf;
    s.set_dense(-g.to_dense(buf).normalized());
  }
  Vec initial_point() const override { return Vec::Zero(2); }
  bool contains(const Vec& x, double tol) const override { return x.norm() <= 1.0 + tol; }
};

/// What `glmo` (made for d = 2) throws when set up with `max` over an LmoOnlyDomain: the message
/// of its CapabilityError, "not a CapabilityError: ..." for another exception, or "(no error)".
inline std::string lmo_only_refusal(Glmo& glmo, int n) {
  const LmoOnlyDomain domain;
  auto outer = make_max(domain.dim(), n);
  try {
    glmo.setup(*outer, domain, n, domain.dim());
  } catch (const CapabilityError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a CapabilityError: ") + e.what();
  }
  return "(no error)";
}

// A test-only outer function whose model is deliberately broken, to check how a GLMO reports an
// LP it cannot solve; not a stand-in for `max`. Only the cone model is a true model (of
// ||u||_2); the others are LPs a GLMO must reject.
class BrokenLpOuter final : public OuterFunction {
 public:
  enum class Kind { Unbounded, Infeasible, Cone, UnboundedRay };
  explicit BrokenLpOuter(Kind k) : kind_(k) {}
  double value(const Vec& u, const Vec&) const override { return kind_ == Kind::Cone ? u.norm() : 0.0; }
  Expr model(Model& m, std::span<const Expr> u, std::span<const Expr>) const override {
    const Var t = m.add_var(-inf, inf, "t");
    switch (kind_) {
      case Kind::Unbounded:  // min -t, t free
        return -Expr(t);
      case Kind::Infeasible:  // t >= 1 and t <= 0
        m.add_row(Expr(t), 1.0, inf);
        m.add_row(Expr(t), -inf, 0.0);
        return Expr(t);
      case Kind::Cone:  // ||u||_2 <= t
        m.add_second_order_cone(Expr(t), std::vector<Expr>(u.begin(), u.end()));
        return Expr(t);
      case Kind::UnboundedRay:  // min t - 2 s with t >= u_0 + s, s >= 0: unbounded through rows
      {
        const Var s = m.add_var(0.0, inf, "s");
        m.add_ge(Expr(t), u[0] + Expr(s));
        return Expr(t) - 2.0 * Expr(s);
      }
    }
    return Expr(t);
  }
  OuterTraits traits() const override { return {}; }

 private:
  Kind kind_;
};

}  // namespace scfw::test
