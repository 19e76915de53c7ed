// scfw core: the host's wrappers around plugin objects (see checked.hpp).
//
// The hot path of every wrapper is a few integer compares and increments; messages are built
// only on failure, in the cold helpers below. A plugin's own scfw::Error (InputError,
// CapabilityError) passes unchanged; any other exception becomes scfw::Error("PLUGIN: what()").
#include "scfw/core/checked.hpp"

#include <chrono>
#include <cmath>
#include <exception>
#include <sstream>
#include <string>
#include <utility>

#include "scfw/error.hpp"
#include "scfw/state.hpp"

namespace scfw {

namespace {

// ---------------------------------------------------------------------------------------------
// Cold paths: build the message only when a check fails.

[[noreturn, gnu::cold, gnu::noinline]] void fail(const std::string& plugin, const std::string& what) {
  throw Error(plugin + ": " + what);
}

[[noreturn, gnu::cold, gnu::noinline]] void bad_vector(const std::string& plugin, const char* call,
                                                        const char* arg, long got, const char* dim_name,
                                                        long want) {
  fail(plugin, std::string(call) + ": " + arg + " has size " + std::to_string(got) + ", expected " +
                   dim_name + " = " + std::to_string(want));
}

[[noreturn, gnu::cold, gnu::noinline]] void bad_matrix(const std::string& plugin, const char* call,
                                                        const char* arg, long rows, long cols, long n,
                                                        long d) {
  fail(plugin, std::string(call) + ": " + arg + " is " + std::to_string(rows) + " x " +
                   std::to_string(cols) + ", expected n x d = " + std::to_string(n) + " x " +
                   std::to_string(d));
}

[[noreturn, gnu::cold, gnu::noinline]] void bad_output_vector(const std::string& plugin, const char* call,
                                                               const char* arg, long got,
                                                               const char* dim_name, long want) {
  fail(plugin, std::string(call) + ": left " + arg + " with size " + std::to_string(got) +
                   ", expected " + dim_name + " = " + std::to_string(want));
}

[[noreturn, gnu::cold, gnu::noinline]] void bad_output_matrix(const std::string& plugin, const char* call,
                                                               const char* arg, long rows, long cols,
                                                               long n, long d) {
  fail(plugin, std::string(call) + ": left " + arg + " as " + std::to_string(rows) + " x " +
                   std::to_string(cols) + ", expected n x d = " + std::to_string(n) + " x " +
                   std::to_string(d));
}

/// Rethrows the exception in flight: scfw errors unchanged, anything else as an scfw::Error that
/// names the plugin. Called only from a catch block.
[[noreturn, gnu::cold, gnu::noinline]] void translate(const std::string& plugin) {
  try {
    throw;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(plugin + ": " + e.what());
  } catch (...) {
    throw Error(plugin + ": threw an exception that is not a std::exception");
  }
}

#define SCFW_GUARD(plugin, ...) \
  try {                         \
    __VA_ARGS__;                \
  } catch (...) {               \
    translate(plugin);          \
  }

inline void check_vec(const std::string& plugin, const char* call, const char* arg, const Vec& v,
                      const char* dim_name, long want) {
  if (v.size() != want) [[unlikely]]
    bad_vector(plugin, call, arg, v.size(), dim_name, want);
}

inline void check_mat(const std::string& plugin, const char* call, const char* arg, const Mat& m, long n,
                      long d) {
  if (m.rows() != n || m.cols() != d) [[unlikely]]
    bad_matrix(plugin, call, arg, m.rows(), m.cols(), n, d);
}

inline void check_out_vec(const std::string& plugin, const char* call, const char* arg, const Vec& v,
                          const char* dim_name, long want) {
  if (v.size() != want) [[unlikely]]
    bad_output_vector(plugin, call, arg, v.size(), dim_name, want);
}

inline void check_out_mat(const std::string& plugin, const char* call, const char* arg, const Mat& m,
                          long n, long d) {
  if (m.rows() != n || m.cols() != d) [[unlikely]]
    bad_output_matrix(plugin, call, arg, m.rows(), m.cols(), n, d);
}

// Finiteness of every number a plugin hands back (issue #12: a NaN from the oracle used to
// surface as "the GLMO LP is unbounded", a NaN outer value as a run with exit 0 and a NaN gap).
// The hot path is one vectorized pass: sum(v * 0) is 0 exactly when every entry is finite (inf * 0
// and NaN * 0 are NaN), cheaper than Eigen's entry-by-entry allFinite() (measured in
// docs/journal/performance-history.md, "Finiteness checks"). The index is found only on failure.
// The solver puts "iteration K (phase): " in front of the message.

std::string number_words(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

[[noreturn, gnu::cold, gnu::noinline]] void not_finite_vec(const std::string& plugin, const char* call,
                                                           const char* verb, const char* arg, const Vec& v) {
  Eigen::Index i = 0;
  while (i < v.size() && std::isfinite(v[i])) ++i;
  fail(plugin, std::string(call) + "() " + verb + " a non-finite value at " + arg + "[" + std::to_string(i) +
                   "] = " + number_words(i < v.size() ? v[i] : 0.0));
}

[[noreturn, gnu::cold, gnu::noinline]] void not_finite_mat(const std::string& plugin, const char* call,
                                                           const char* verb, const char* arg, const Mat& m) {
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      if (!std::isfinite(m(i, j)))
        fail(plugin, std::string(call) + "() " + verb + " a non-finite value at " + arg + "[" + std::to_string(i) +
                         "," + std::to_string(j) + "] = " + number_words(m(i, j)));
  fail(plugin, std::string(call) + "() " + verb + " a non-finite value in " + arg);
}

[[noreturn, gnu::cold, gnu::noinline]] void not_finite_scalar(const std::string& plugin, const char* call,
                                                              const char* what, double v) {
  fail(plugin, std::string(call) + "() returned a non-finite " + what + ": " + number_words(v));
}

template <class M>
inline bool all_finite(const M& m) {
  return (m.array() * 0.0).sum() == 0.0;
}

inline void finite_vec(const std::string& plugin, const char* call, const char* verb, const char* arg,
                       const Vec& v) {
  if (!all_finite(v)) [[unlikely]]
    not_finite_vec(plugin, call, verb, arg, v);
}

inline void finite_mat(const std::string& plugin, const char* call, const char* verb, const char* arg,
                       const Mat& m) {
  if (!all_finite(m)) [[unlikely]]
    not_finite_mat(plugin, call, verb, arg, m);
}

// A sparse Jacobian's values: the failure names the row and column of the entry.
[[noreturn, gnu::cold, gnu::noinline]] void not_finite_sparse(const std::string& plugin, const char* call,
                                                              const char* verb, const char* arg,
                                                              const JacobianPattern& p, const double* v) {
  for (int i = 0; i < p.rows(); ++i)
    for (std::int64_t k = p.row_start()[static_cast<std::size_t>(i)]; k < p.row_start()[static_cast<std::size_t>(i) + 1]; ++k)
      if (!std::isfinite(v[k]))
        fail(plugin, std::string(call) + "() " + verb + " a non-finite value at " + arg + "[" + std::to_string(i) +
                         "," + std::to_string(p.col()[static_cast<std::size_t>(k)]) + "] = " + number_words(v[k]));
  fail(plugin, std::string(call) + "() " + verb + " a non-finite value in " + arg);
}

inline void finite_sparse(const std::string& plugin, const char* call, const char* verb, const char* arg,
                          const JacobianPattern& p, const double* v) {
  if (!all_finite(Eigen::Map<const Vec>(v, static_cast<Eigen::Index>(p.nnz())))) [[unlikely]]
    not_finite_sparse(plugin, call, verb, arg, p, v);
}

inline void finite_jacobian(const std::string& plugin, const char* call, const char* verb, const char* arg,
                            const Jacobian& J) {
  if (J.is_sparse())
    finite_sparse(plugin, call, verb, arg, J.pattern(), J.data());
  else
    finite_mat(plugin, call, verb, arg, J.dense());
}

/// The Jacobian handed to a tracker or GLMO has the oracle's shape and kind (the host makes it
/// with make_jacobian); a different one is the caller's bug, named here.
inline void check_jacobian(const std::string& plugin, const char* call, const char* arg, const Jacobian& J,
                           const JacobianPattern* pattern, long n, long d, bool output = false) {
  if (J.rows() != n || J.cols() != d) [[unlikely]] {
    if (output) bad_output_matrix(plugin, call, arg, J.rows(), J.cols(), n, d);
    bad_matrix(plugin, call, arg, J.rows(), J.cols(), n, d);
  }
  if ((pattern != nullptr) != J.is_sparse() || (pattern && &J.pattern() != pattern && !J.pattern().same_as(*pattern)))
      [[unlikely]]
    fail(plugin, std::string(call) + ": " + arg + " is " + (J.is_sparse() ? "sparse" : "dense") +
                     " but the oracle's Jacobian is " + (pattern ? "sparse in its pattern" : "dense"));
}

template <class T>
std::unique_ptr<T> require_inner(std::unique_ptr<T> inner, const std::string& plugin) {
  if (!inner) fail(plugin, "its factory returned no object");
  return inner;
}

// ---------------------------------------------------------------------------------------------
// What the wrappers of the three Stateful roles (Domain, Glmo, Tracker) share: the inner object,
// the plugin's name, and the forwarding of capabilities() and the state calls. The host saves or
// loads state only for a component that declares Capability::SavedState; a call without it is
// the caller's bug, named here.

template <class Role>
class CheckedStateful : public Role {
 public:
  Capabilities capabilities() const override {
    Capabilities r;
    SCFW_GUARD(plugin_, r = inner_->capabilities());
    return r;
  }
  void save_state(StateWriter& w) const override {
    require_saved_state("save_state");
    SCFW_GUARD(plugin_, inner_->save_state(w));
  }
  void load_state(StateReader& r) override {
    require_saved_state("load_state");
    SCFW_GUARD(plugin_, inner_->load_state(r));
  }

 protected:
  CheckedStateful(std::unique_ptr<Role> inner, std::string plugin)
      : inner_(require_inner(std::move(inner), plugin)), plugin_(std::move(plugin)) {}

  std::unique_ptr<Role> inner_;
  std::string plugin_;

 private:
  void require_saved_state(const char* call) const {
    if (!capabilities().has(Capability::SavedState))
      fail(plugin_, std::string(call) + " called, but it declares no saved state (capability \"saved_state\")");
  }
};

// ---------------------------------------------------------------------------------------------
// Oracle

/// Adds the wall time of its scope to a counter (CallCounters::oracle_seconds, which the solver
/// uses to split the tracker's time into oracle and tracker arithmetic). Two clock reads per call.
class ScopedTimer {
 public:
  explicit ScopedTimer(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

// The shape of x an oracle or a domain declares: none, or [rows, cols] with rows * cols = d.
template <class Role>
std::vector<int> checked_shape(const std::string& plugin, const Role& inner, long d) {
  std::vector<int> s;
  SCFW_GUARD(plugin, s = inner.shape());
  if (!s.empty() && (s.size() != 2 || s[0] < 1 || s[1] < 1 || static_cast<long>(s[0]) * s[1] != d))
    fail(plugin, "shape: expected none or [rows, cols] with rows * cols = d = " + std::to_string(d));
  return s;
}

// Auxiliary variables name coordinates of x, once each, under a role.
void check_auxiliary(const std::string& plugin, const char* call, const std::vector<AuxiliaryVariable>& aux, long d) {
  for (size_t i = 0; i < aux.size(); ++i) {
    if (aux[i].index < 0 || aux[i].index >= d)
      fail(plugin, std::string(call) + ": coordinate " + std::to_string(aux[i].index) + " is outside x (d = " +
                       std::to_string(d) + ")");
    if (aux[i].role.empty()) fail(plugin, std::string(call) + ": coordinate " + std::to_string(aux[i].index) + " has no role");
    for (size_t k = 0; k < i; ++k)
      if (aux[k].index == aux[i].index)
        fail(plugin, std::string(call) + ": coordinate " + std::to_string(aux[i].index) + " is named twice");
  }
}

class CheckedOracle final : public Oracle {
 public:
  CheckedOracle(std::unique_ptr<Oracle> inner, std::string plugin, std::shared_ptr<CallCounters> counters)
      : inner_(require_inner(std::move(inner), plugin)), plugin_(std::move(plugin)),
        counters_(counters ? std::move(counters) : std::make_shared<CallCounters>()) {
    SCFW_GUARD(plugin_, d_ = inner_->dim(); n_ = inner_->outputs());
    if (d_ < 1 || n_ < 1)
      fail(plugin_, "the oracle reports d = " + std::to_string(d_) + " and n = " + std::to_string(n_) +
                        "; both must be >= 1");
    // Capabilities and the pattern are fixed after construction: asked once, the pattern checked
    // against n x d.
    SCFW_GUARD(plugin_, capabilities_ = inner_->capabilities());
    if (capabilities_.has(Capability::SparseJacobian)) {
      SCFW_GUARD(plugin_, pattern_ = inner_->jacobian_pattern());
      if (!pattern_) fail(plugin_, "the oracle declares a sparse Jacobian and returned no pattern");
    }
    SCFW_GUARD(plugin_, entries_ = inner_->matrix_entries());
    if (entries_ && (!entries_->well_formed() || entries_->size() != d_))
      fail(plugin_, "matrix_entries: expected " + std::to_string(d_) +
                        " entries (one per coordinate) inside the shape, in strictly increasing row-major order");
    if (pattern_ && (pattern_->rows() != n_ || pattern_->cols() != d_))
      fail(plugin_, "the oracle's Jacobian pattern is " + std::to_string(pattern_->rows()) + " x " +
                        std::to_string(pattern_->cols()) + ", expected n x d = " + std::to_string(n_) + " x " +
                        std::to_string(d_));
  }

  int dim() const override { return d_; }
  int outputs() const override { return n_; }
  Capabilities capabilities() const override { return capabilities_; }

  std::unique_ptr<Sample> make_sample() const override {
    std::unique_ptr<Sample> s;
    SCFW_GUARD(plugin_, s = inner_->make_sample());
    if (!s) fail(plugin_, "make_sample returned no sample");
    return s;
  }

  void draw(Rng& rng, Sample& s) const override {
    ++counters_->draws;
    ScopedTimer timer(counters_->oracle_seconds);
    SCFW_GUARD(plugin_, inner_->draw(rng, s));
  }

  // J has the oracle's kind and shape on the way in (the caller made it with make_jacobian) and
  // on the way out; f has n entries; every number that comes back is finite.
  void evaluate(const Sample& s, const Vec& x, Vec* f, Jacobian* J) const override {
    check_vec(plugin_, "evaluate", "x", x, "d", d_);
    if (f) {
      check_vec(plugin_, "evaluate", "f", *f, "n", n_);
      ++counters_->values;
    }
    if (J) {
      check_jacobian(plugin_, "evaluate", "J", *J, pattern_.get(), n_, d_);
      ++counters_->jacobians;
    }
    {
      ScopedTimer timer(counters_->oracle_seconds);
      SCFW_GUARD(plugin_, inner_->evaluate(s, x, f, J));
    }
    if (f) check_out_vec(plugin_, "evaluate", "f", *f, "n", n_);
    if (J) check_jacobian(plugin_, "evaluate", "J", *J, pattern_.get(), n_, d_, true);
    if (f) finite_vec(plugin_, "evaluate", "returned", "f", *f);
    if (J) finite_jacobian(plugin_, "evaluate", "returned", "J", *J);
  }

  void exact(const Vec& x, Vec* f, Jacobian* J) const override {
    check_vec(plugin_, "exact", "x", x, "d", d_);
    if (f) check_vec(plugin_, "exact", "f", *f, "n", n_);
    if (J) check_jacobian(plugin_, "exact", "J", *J, pattern_.get(), n_, d_);
    ++counters_->exact;
    SCFW_GUARD(plugin_, inner_->exact(x, f, J));
    if (f) check_out_vec(plugin_, "exact", "f", *f, "n", n_);
    if (J) check_jacobian(plugin_, "exact", "J", *J, pattern_.get(), n_, d_, true);
    if (f) finite_vec(plugin_, "exact", "returned", "f", *f);
    if (J) finite_jacobian(plugin_, "exact", "returned", "J", *J);
  }

  void hessian_action(const Sample& s, const Vec& x, const Vec& v, Mat& out) const override {
    check_vec(plugin_, "hessian_action", "x", x, "d", d_);
    check_vec(plugin_, "hessian_action", "v", v, "d", d_);
    check_mat(plugin_, "hessian_action", "out", out, n_, d_);
    ++counters_->hessian;
    {
      ScopedTimer timer(counters_->oracle_seconds);
      SCFW_GUARD(plugin_, inner_->hessian_action(s, x, v, out));
    }
    check_out_mat(plugin_, "hessian_action", "out", out, n_, d_);
    finite_mat(plugin_, "hessian_action", "returned", "out", out);
  }

  std::shared_ptr<const JacobianPattern> jacobian_pattern() const override {
    if (!pattern_) [[unlikely]]
      fail(plugin_, "jacobian_pattern called, but the oracle declares no sparse Jacobian");
    return pattern_;
  }

  std::vector<std::string> variable_names() const override {
    std::vector<std::string> names;
    SCFW_GUARD(plugin_, names = inner_->variable_names());
    check_names("variable_names", names, "d", d_);
    return names;
  }

  std::vector<std::string> output_names() const override {
    std::vector<std::string> names;
    SCFW_GUARD(plugin_, names = inner_->output_names());
    check_names("output_names", names, "n", n_);
    return names;
  }

  std::vector<AuxiliaryVariable> auxiliary_variables() const override {
    std::vector<AuxiliaryVariable> aux;
    SCFW_GUARD(plugin_, aux = inner_->auxiliary_variables());
    check_auxiliary(plugin_, "auxiliary_variables", aux, d_);
    return aux;
  }

  std::vector<int> shape() const override { return checked_shape(plugin_, *inner_, d_); }
  std::shared_ptr<const MatrixEntries> matrix_entries() const override { return entries_; }

 private:
  // No names, or one per coordinate.
  void check_names(const char* call, const std::vector<std::string>& names, const char* what, int size) const {
    if (!names.empty() && static_cast<long>(names.size()) != size)
      fail(plugin_, std::string(call) + ": returned " + std::to_string(names.size()) + " names, expected none or " +
                        what + " = " + std::to_string(size));
  }

  std::unique_ptr<Oracle> inner_;
  std::string plugin_;
  std::shared_ptr<CallCounters> counters_;
  int d_ = 0, n_ = 0;
  Capabilities capabilities_;
  std::shared_ptr<const JacobianPattern> pattern_;
  std::shared_ptr<const MatrixEntries> entries_;
};

// ---------------------------------------------------------------------------------------------
// Outer function

class CheckedOuter final : public OuterFunction {
 public:
  CheckedOuter(std::unique_ptr<OuterFunction> inner, std::string plugin, int n, int d,
               std::shared_ptr<CallCounters> counters)
      : inner_(require_inner(std::move(inner), plugin)), plugin_(std::move(plugin)),
        counters_(counters ? std::move(counters) : std::make_shared<CallCounters>()), n_(n), d_(d) {}

  double value(const Vec& u, const Vec& x) const override {
    check_vec(plugin_, "value", "u", u, "n", n_);
    check_vec(plugin_, "value", "x", x, "d", d_);
    ++counters_->outer_values;
    double r = 0.0;
    SCFW_GUARD(plugin_, r = inner_->value(u, x));
    if (!std::isfinite(r)) [[unlikely]]
      not_finite_scalar(plugin_, "value", "value", r);
    return r;
  }

  Expr model(Model& m, std::span<const Expr> u, std::span<const Expr> x) const override {
    if (static_cast<long>(u.size()) != n_)
      fail(plugin_, "model: u has " + std::to_string(u.size()) + " expressions, expected n = " +
                        std::to_string(n_));
    if (static_cast<long>(x.size()) != d_)
      fail(plugin_, "model: x has " + std::to_string(x.size()) + " expressions, expected d = " +
                        std::to_string(d_));
    Expr r;
    SCFW_GUARD(plugin_, r = inner_->model(m, u, x));
    return r;
  }

  OuterTraits traits() const override {
    OuterTraits t;
    SCFW_GUARD(plugin_, t = inner_->traits());
    return t;
  }

  std::vector<AuxiliaryVariable> reads_auxiliary(int d) const override {
    std::vector<AuxiliaryVariable> aux;
    SCFW_GUARD(plugin_, aux = inner_->reads_auxiliary(d));
    check_auxiliary(plugin_, "reads_auxiliary", aux, d);
    return aux;
  }

 private:
  std::unique_ptr<OuterFunction> inner_;
  std::string plugin_;
  std::shared_ptr<CallCounters> counters_;
  long n_, d_;
};

// ---------------------------------------------------------------------------------------------
// Domain

class CheckedDomain final : public CheckedStateful<Domain> {
 public:
  CheckedDomain(std::unique_ptr<Domain> inner, std::string plugin) : CheckedStateful(std::move(inner), std::move(plugin)) {
    SCFW_GUARD(plugin_, d_ = inner_->dim());
    if (d_ < 1) fail(plugin_, "the domain reports dimension " + std::to_string(d_) + "; it must be >= 1");
  }

  int dim() const override { return d_; }

  std::vector<Expr> model(Model& m) const override {
    std::vector<Expr> x;
    SCFW_GUARD(plugin_, x = inner_->model(m));
    if (static_cast<long>(x.size()) != d_)
      fail(plugin_, "model: returned " + std::to_string(x.size()) + " expressions for x, expected d = " +
                        std::to_string(d_));
    return x;
  }

  // The LMO: the gradient's shape checked on the way in; the atom's size, indices and
  // finiteness on the way out.
  void lmo(const Gradient& g, Atom& s) const override {
    if (g.is_dense())
      check_vec(plugin_, "lmo", "g", g.dense(), "d", d_);
    else if (g.dim() != d_ || !g.well_formed())
      fail(plugin_, "lmo: got a sparse gradient of dimension " + std::to_string(g.dim()) + " with " +
                        std::to_string(g.index().size()) + " indices and " + std::to_string(g.value().size()) +
                        " values, expected dimension d = " + std::to_string(d_) +
                        " and indices strictly increasing in [0, d)");
    SCFW_GUARD(plugin_, inner_->lmo(g, s));
    if (s.dim() != d_)
      fail(plugin_, "lmo: returned an atom of dimension " + std::to_string(s.dim()) + ", expected d = " +
                        std::to_string(d_));
    bool finite = true;
    switch (s.kind()) {
      case Atom::Kind::Dense:
        check_out_vec(plugin_, "lmo", "x", s.dense(), "d", d_);
        finite_vec(plugin_, "lmo", "returned", "x", s.dense());
        break;
      case Atom::Kind::Sparse: {
        int last = -1;
        for (std::int64_t k = 0; k < s.nnz(); ++k) {
          const int j = s.index()[static_cast<size_t>(k)];
          if (j <= last || j >= d_)
            fail(plugin_, "lmo: returned a sparse atom whose indices are not strictly increasing in [0, d)");
          last = j;
          finite = finite && std::isfinite(s.value()[static_cast<size_t>(k)]);
        }
        break;
      }
      case Atom::Kind::RankOne:
        if (s.u().size() != s.rows() || s.v().size() != s.cols())
          fail(plugin_, "lmo: returned a rank-one atom whose factors do not have its rows and cols");
        finite = std::isfinite(s.scale()) && all_finite(s.u()) && all_finite(s.v());
        break;
    }
    if (!finite) fail(plugin_, "lmo() returned a non-finite value in its atom");
  }

  Vec initial_point() const override {
    Vec y;
    SCFW_GUARD(plugin_, y = inner_->initial_point());
    if (y.size() != d_)
      fail(plugin_, "initial_point: returned a point of size " + std::to_string(y.size()) +
                        ", expected d = " + std::to_string(d_));
    finite_vec(plugin_, "initial_point", "returned", "y", y);
    return y;
  }

  bool contains(const Vec& x, double tol) const override {
    check_vec(plugin_, "contains", "x", x, "d", d_);
    bool r = false;
    SCFW_GUARD(plugin_, r = inner_->contains(x, tol));
    return r;
  }

  std::vector<int> shape() const override { return checked_shape(plugin_, *inner_, d_); }

  bool separates(int j) const override {
    bool r = false;
    SCFW_GUARD(plugin_, r = inner_->separates(j));
    return r;
  }

 private:
  long d_ = 0;
};

// ---------------------------------------------------------------------------------------------
// GLMO

class CheckedGlmo final : public CheckedStateful<Glmo> {
 public:
  CheckedGlmo(std::unique_ptr<Glmo> inner, std::string plugin, std::shared_ptr<CallCounters> counters)
      : CheckedStateful(std::move(inner), std::move(plugin)),
        counters_(counters ? std::move(counters) : std::make_shared<CallCounters>()) {}

  bool supports(const OuterFunction& outer, const Domain& domain, int n, int d, std::string* why) const override {
    bool r = true;
    SCFW_GUARD(plugin_, r = inner_->supports(outer, domain, n, d, why));
    return r;
  }

  void setup(const OuterFunction& outer, const Domain& domain, int n, int d) override {
    if (n < 1 || d < 1)
      fail(plugin_, "setup: n = " + std::to_string(n) + " and d = " + std::to_string(d) +
                        "; both must be >= 1");
    long domain_dim = 0;
    SCFW_GUARD(plugin_, domain_dim = domain.dim());
    if (domain_dim != d)
      fail(plugin_, "setup: the domain has dimension " + std::to_string(domain_dim) + ", expected d = " +
                        std::to_string(d));
    SCFW_GUARD(plugin_, inner_->setup(outer, domain, n, d));
    n_ = n;
    d_ = d;
  }

  void set_step(double gamma) override { SCFW_GUARD(plugin_, inner_->set_step(gamma)); }

  GlmoResult solve(const Vec& z, const Jacobian& V, const Vec& y, Vec& x) override {
    if (n_ < 0) [[unlikely]]
      fail(plugin_, "solve called before setup");
    check_vec(plugin_, "solve", "z", z, "n", n_);
    if (V.rows() != n_ || V.cols() != d_) [[unlikely]]
      bad_matrix(plugin_, "solve", "V", V.rows(), V.cols(), n_, d_);
    if (V.is_sparse() && !inner_->capabilities().has(Capability::SparseV)) [[unlikely]]
      fail(plugin_, "solve: V is sparse, and this GLMO does not accept a sparse V (the host densifies it first)");
    check_vec(plugin_, "solve", "y", y, "d", d_);
    if (x.size() != d_) x.resize(d_);  // an output: sized here once, then reused by the caller
    ++counters_->glmo_solves;
    GlmoResult r;
    SCFW_GUARD(plugin_, r = inner_->solve(z, V, y, x));
    check_out_vec(plugin_, "solve", "x", x, "d", d_);
    finite_vec(plugin_, "solve", "returned", "x", x);
    if (!std::isfinite(r.value)) [[unlikely]]
      not_finite_scalar(plugin_, "solve", "value", r.value);
    if (std::isnan(r.lower_bound)) r.lower_bound = r.value;  // not set: an exact solve
    if (!std::isfinite(r.lower_bound)) [[unlikely]]
      not_finite_scalar(plugin_, "solve", "lower bound", r.lower_bound);
    return r;
  }

  std::string describe() const override {
    std::string s;
    SCFW_GUARD(plugin_, s = inner_->describe());
    return s;
  }


 private:
  std::shared_ptr<CallCounters> counters_;
  long n_ = -1, d_ = -1;
};

// ---------------------------------------------------------------------------------------------
// Tracker

class CheckedTracker final : public CheckedStateful<Tracker> {
 public:
  CheckedTracker(std::unique_ptr<Tracker> inner, std::string plugin)
      : CheckedStateful(std::move(inner), std::move(plugin)) {}

  void bind(const Oracle& oracle) override {
    long n = 0, d = 0;
    SCFW_GUARD(plugin_, n = oracle.outputs(); d = oracle.dim());
    SCFW_GUARD(plugin_, inner_->bind(oracle));
    n_ = n;
    d_ = d;
    oracle_ = &oracle;
    pattern_ = nullptr;
    if (oracle.capabilities().has(Capability::SparseJacobian)) SCFW_GUARD(plugin_, pattern_ = oracle.jacobian_pattern());
  }

  void start(const Vec& y0, Rng& rng, Vec& z, Jacobian& V) override {
    if (n_ < 0) [[unlikely]]
      fail(plugin_, "start called before bind");
    check_vec(plugin_, "start", "y0", y0, "d", d_);
    // Outputs: sized here once at the start of a run, then updated in place; V of the oracle's
    // kind (dense n x d, or sparse in its pattern).
    if (z.size() != n_) z.resize(n_);
    if (V.rows() != n_ || V.cols() != d_ || V.is_sparse() != (pattern_ != nullptr)) V = make_jacobian(*oracle_);
    check_jacobian(plugin_, "start", "V", V, pattern_.get(), n_, d_);
    SCFW_GUARD(plugin_, inner_->start(y0, rng, z, V));
    check_out_vec(plugin_, "start", "z", z, "n", n_);
    check_jacobian(plugin_, "start", "V", V, pattern_.get(), n_, d_, true);
    finite_vec(plugin_, "start", "left", "z", z);
    finite_jacobian(plugin_, "start", "left", "V", V);
  }

  void update(long k, const Vec& y, const Vec& y_prev, const Steps& steps, Rng& rng, Vec& z,
              Jacobian& V) override {
    if (n_ < 0) [[unlikely]]
      fail(plugin_, "update called before bind");
    check_vec(plugin_, "update", "y", y, "d", d_);
    check_vec(plugin_, "update", "y_prev", y_prev, "d", d_);
    check_vec(plugin_, "update", "z", z, "n", n_);
    check_jacobian(plugin_, "update", "V", V, pattern_.get(), n_, d_);
    SCFW_GUARD(plugin_, inner_->update(k, y, y_prev, steps, rng, z, V));
    check_out_vec(plugin_, "update", "z", z, "n", n_);
    check_jacobian(plugin_, "update", "V", V, pattern_.get(), n_, d_, true);
    finite_vec(plugin_, "update", "left", "z", z);
    finite_jacobian(plugin_, "update", "left", "V", V);
  }


 private:
  long n_ = -1, d_ = -1;
  const Oracle* oracle_ = nullptr;
  std::shared_ptr<const JacobianPattern> pattern_;
};

// ---------------------------------------------------------------------------------------------
// Schedule

[[noreturn, gnu::cold, gnu::noinline]] void bad_step(const std::string& plugin, long k, long K,
                                                      const char* name, double v) {
  std::ostringstream os;
  os.precision(12);
  os << "at(" << k << ", " << K << ") returned " << name << " = " << v << ", outside [0, 1]";
  fail(plugin, os.str());
}

class CheckedSchedule final : public Schedule {
 public:
  CheckedSchedule(std::unique_ptr<Schedule> inner, std::string plugin)
      : inner_(require_inner(std::move(inner), plugin)), plugin_(std::move(plugin)) {}

  Steps at(long k, long K) const override {
    if (k < 0 || k >= K) [[unlikely]]
      fail(plugin_, "at: iteration k = " + std::to_string(k) + " is outside 0 .. K-1 for K = " +
                        std::to_string(K));
    Steps s;
    SCFW_GUARD(plugin_, s = inner_->at(k, K));
    // Step sizes are weights of convex combinations (Alg. 1 lines 5, 6, 8).
    if (!(s.gamma >= 0.0 && s.gamma <= 1.0)) [[unlikely]]
      bad_step(plugin_, k, K, "gamma", s.gamma);
    if (!(s.beta >= 0.0 && s.beta <= 1.0)) [[unlikely]]
      bad_step(plugin_, k, K, "beta", s.beta);
    if (!(s.rho >= 0.0 && s.rho <= 1.0)) [[unlikely]]
      bad_step(plugin_, k, K, "rho", s.rho);
    return s;
  }

  std::string describe(long K) const override {
    std::string s;
    SCFW_GUARD(plugin_, s = inner_->describe(K));
    return s;
  }


 private:
  std::unique_ptr<Schedule> inner_;
  std::string plugin_;
};

#undef SCFW_GUARD

}  // namespace

std::unique_ptr<Oracle> wrap_oracle(std::unique_ptr<Oracle> inner, std::string plugin,
                                    std::shared_ptr<CallCounters> counters) {
  return std::make_unique<CheckedOracle>(std::move(inner), std::move(plugin), std::move(counters));
}

std::unique_ptr<OuterFunction> wrap_outer(std::unique_ptr<OuterFunction> inner, std::string plugin, int n,
                                          int d, std::shared_ptr<CallCounters> counters) {
  return std::make_unique<CheckedOuter>(std::move(inner), std::move(plugin), n, d, std::move(counters));
}

std::unique_ptr<Domain> wrap_domain(std::unique_ptr<Domain> inner, std::string plugin) {
  return std::make_unique<CheckedDomain>(std::move(inner), std::move(plugin));
}

std::unique_ptr<Glmo> wrap_glmo(std::unique_ptr<Glmo> inner, std::string plugin,
                                std::shared_ptr<CallCounters> counters) {
  return std::make_unique<CheckedGlmo>(std::move(inner), std::move(plugin), std::move(counters));
}

std::unique_ptr<Tracker> wrap_tracker(std::unique_ptr<Tracker> inner, std::string plugin) {
  return std::make_unique<CheckedTracker>(std::move(inner), std::move(plugin));
}

std::unique_ptr<Schedule> wrap_schedule(std::unique_ptr<Schedule> inner, std::string plugin) {
  return std::make_unique<CheckedSchedule>(std::move(inner), std::move(plugin));
}

}  // namespace scfw
