// scfw SDK: the six roles of a run (paper, Algorithm 1). Each is a small abstract class; a plugin
// implements one and registers a factory for it (see plugin.hpp).
//
//   Oracle         f~(x; xi), its Jacobian, optionally exact f and J and the Hessian action
//   OuterFunction  F(u, x), its model for the GLMO, L_F and flags
//   Domain         X: an LP model and/or an LMO, a feasible start
//   Glmo           argmin_{x in X} F(z + V (x - y), x)            (Alg. 1 line 7)
//   Tracker        (z_k, V_k) from samples                         (Alg. 1 lines 2, 4-6)
//   Schedule       gamma_k, beta_k, rho_k                          (Thm 1, Thm 2, Cor 1)
#pragma once

#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scfw/atom.hpp"
#include "scfw/capability.hpp"
#include "scfw/error.hpp"
#include "scfw/jacobian.hpp"
#include "scfw/model.hpp"
#include "scfw/types.hpp"

namespace scfw {

/// Common base of every object a plugin makes; its destructor lives in libscfw_sdk.
class Component {
 public:
  virtual ~Component();
  /// What this object offers beyond its role's required methods (capability.hpp). The host and
  /// other components ask before calling an optional method. The default: none (a Domain's
  /// default is Capability::LpModel).
  virtual Capabilities capabilities() const;
};

class StateWriter;
class StateReader;

/// The base of the roles that may keep state between calls which can change a later result
/// (Domain, Glmo, Tracker), for checkpoints (`scfw run --checkpoint`, docs/checkpoint.md;
/// state.hpp). A component that keeps such state declares Capability::SavedState and overrides
/// both functions (load_state() is called on a fresh object after the same setup), or declares
/// Capability::UnsavedState when it cannot save it. Declaring neither: a freshly built object
/// continues a run exactly, and neither function is called.
class Stateful : public Component {
 public:
  virtual void save_state(StateWriter& w) const;
  virtual void load_state(StateReader& r);
};

// ---------------------------------------------------------------------------------------------
// Oracle

/// One draw xi of the oracle's randomness. It is reusable: the same sample can be evaluated at
/// several points (STORM evaluates the Jacobian at y_k and y_{k-1} with the same xi_k).
class Sample {
 public:
  virtual ~Sample();
};

/// A coordinate of x that is not a decision of the user's model but a variable of a
/// reformulation, meaningful only to an outer function that reads it under its role: the
/// Rockafellar-Uryasev threshold of CVaR, which portfolio_returns appends to the weights and
/// cvar_ru reads. The composer refuses a problem in which an oracle's auxiliary variable is not
/// read by the outer function, an outer function reads one the oracle does not declare, or the
/// domain ties one to the other coordinates (docs/reliability.md).
struct AuxiliaryVariable {
  int index = 0;        ///< its coordinate in x
  std::string role;     ///< what reads it, e.g. "cvar_threshold"
  std::string meaning;  ///< for messages, e.g. "the CVaR threshold y0 of the Rockafellar-Uryasev form"
  /// For the message when the other side is missing: what to write instead, e.g. (an oracle's)
  /// "use cvar_ru, which reads it, or \"threshold\": false in the oracle block".
  std::string instead;
};

class Oracle : public Component {
 public:
  virtual int dim() const = 0;      ///< d, the dimension of x
  virtual int outputs() const = 0;  ///< n, the dimension of f(x)

  /// A sample buffer, allocated once per run and refilled by draw().
  virtual std::unique_ptr<Sample> make_sample() const = 0;
  /// Draws xi from rng into s. Must not allocate (the iteration loop allocates nothing).
  virtual void draw(Rng& rng, Sample& s) const = 0;
  /// f~(x; xi) into *f (size n) and/or the Jacobian J~(x; xi) into *J; a null pointer skips
  /// that output. Outputs are sized by the caller, and J has the oracle's kind (jacobian.hpp):
  /// dense n x d, filled through `Mat& Jd = J->dense();`, or, for an oracle that declares
  /// Capability::SparseJacobian, sparse in its pattern, whose nnz values the oracle writes in
  /// pattern order to J->data() (every one: the buffer holds the previous call's values).
  virtual void evaluate(const Sample& s, const Vec& x, Vec* f, Jacobian* J) const = 0;

  /// Capability::Exact: f(x) = E f~(x; xi) and its Jacobian (of the same kind as evaluate()'s),
  /// used for gap reports.
  virtual void exact(const Vec& x, Vec* f, Jacobian* J) const;

  /// Capability::HessianAction: out = sum_j v_j d/dx_j J~(x; xi) (n x d).
  virtual void hessian_action(const Sample& s, const Vec& x, const Vec& v, Mat& out) const;

  /// Capability::Sharded (shard.hpp) has no method: built with a Context::shard, the oracle holds
  /// only its rank's rows, and evaluate(), exact() and hessian_action() return the sums over
  /// those rows; the host adds them over the ranks. Without it the outputs are whole.

  /// Capability::SparseJacobian (jacobian.hpp): the pattern of J~ and of the exact J, fixed
  /// after construction and the same for every call. Without it the Jacobian is dense.
  virtual std::shared_ptr<const JacobianPattern> jacobian_pattern() const;

  /// Optional: the names of x's d coordinates (asset names, feature indices), written into
  /// solution files. Empty (the default): the coordinates have no names.
  virtual std::vector<std::string> variable_names() const { return {}; }
  /// Optional: the names of f's n outputs ("task 1", "group 1", ...). Empty: no names.
  virtual std::vector<std::string> output_names() const { return {}; }
  /// Optional: the coordinates of x that only an outer function reading them gives a meaning
  /// (AuxiliaryVariable). Empty (the default): every coordinate is a decision of the model.
  virtual std::vector<AuxiliaryVariable> auxiliary_variables() const { return {}; }
  /// Optional: x is a rows x cols matrix stored row-major, as Domain::shape(); the composer
  /// refuses a domain with another shape. Empty (the default): a vector.
  virtual std::vector<int> shape() const { return {}; }
  /// Optional: x holds only some entries of a rows x cols matrix, coordinate k the entry
  /// (row[k], col[k]) (atom.hpp): f reads the matrix there only (matrix completion's observed
  /// entries). The host hands them to the domain and the GLMO (Context::entries), so that a domain
  /// over the whole matrix works on these entries and the loop holds one number per entry; with a
  /// GLMO that reports atom combinations the host keeps the whole matrix as factors. Null (the
  /// default): x is the whole of whatever it is.
  virtual std::shared_ptr<const MatrixEntries> matrix_entries() const { return nullptr; }
};

/// A Jacobian of the oracle's kind, for evaluate() and exact(): sparse in its pattern when it
/// declares Capability::SparseJacobian, else n x d dense.
Jacobian make_jacobian(const Oracle& oracle);

// ---------------------------------------------------------------------------------------------
// Outer function

struct OuterTraits {
  double lipschitz = inf;       ///< L_F, the Lipschitz constant of F in u (Assumption 2(i))
  bool monotone = false;        ///< non-decreasing in u componentwise (Assumption 2(ii))
  bool subhomogeneous = false;  ///< F(g u, x) <= g F(u, x) for g >= 1 (Assumption 2(iii))
  bool depends_on_x = false;    ///< F reads x, not only u
  std::string formula;          ///< one line, e.g. "F(u) = max_i u_i"
};

class OuterFunction : public Component {
 public:
  virtual double value(const Vec& u, const Vec& x) const = 0;
  /// Adds F's epigraph to m and returns the expression whose minimum over the variables added
  /// here equals F(u, x). u holds n affine expressions, x holds d. Only the variables added here
  /// may be bounded: GLMOs are free to substitute u out (dense_simplex and column_generation's
  /// dense master do), and column_generation checks that its u variables stayed free.
  virtual Expr model(Model& m, std::span<const Expr> u, std::span<const Expr> x) const = 0;
  virtual OuterTraits traits() const = 0;
  /// Optional: the coordinates of x (of dimension d) that F reads as auxiliary variables, under
  /// their roles (cvar_ru: x[d-1], "cvar_threshold"); the oracle must declare each of them.
  /// Empty (the default): F reads no auxiliary variable.
  virtual std::vector<AuxiliaryVariable> reads_auxiliary(int d) const {
    (void)d;
    return {};
  }
};

// ---------------------------------------------------------------------------------------------
// Domain

class Domain : public Stateful {
 public:
  virtual int dim() const = 0;
  /// Capability::LpModel, declared by default; a domain known only through its LMO (e.g. a
  /// nuclear-norm ball) returns a set without it.
  Capabilities capabilities() const override { return Capability::LpModel; }
  /// Capability::LpModel: adds X's description to m and returns d affine expressions for the
  /// coordinates of x.
  virtual std::vector<Expr> model(Model& m) const;
  /// s = argmin_{x in X} <g, x> (atom.hpp). g comes dense or as its non-zeros (g.is_dense());
  /// the answer may be any kind of Atom: Dense (s.set_dense(d) returns the d-vector to fill) is
  /// always right; Sparse or RankOne where an extreme point is cheaper to describe. A domain that
  /// answers a sparse g in O(its non-zeros + the atom) declares Capability::CompactAtoms; one
  /// that does not reads g.to_dense(buffer). The point must not depend on the form g came in,
  /// up to rounding.
  virtual void lmo(const Gradient& g, Atom& s) const = 0;
  /// A feasible starting point y_0.
  virtual Vec initial_point() const = 0;
  /// Whether x lies in X up to tol (used by tests and by the host's checks).
  virtual bool contains(const Vec& x, double tol) const = 0;
  /// Optional: x is a rows x cols matrix stored row-major (x[i * cols + j] = X_ij), e.g. a
  /// nuclear-norm ball; solution files then show it as a grid. Empty (the default): a vector.
  virtual std::vector<int> shape() const { return {}; }
  /// Optional: whether coordinate j enters X only through bounds of its own, X = X' x [l, u]
  /// (a box, simplex_interval's last coordinate, a one-dimensional factor of a product). An
  /// auxiliary variable must sit in such a coordinate. The default: false.
  virtual bool separates(int j) const {
    (void)j;
    return false;
  }
};

// ---------------------------------------------------------------------------------------------
// GLMO

struct GlmoResult {
  double value = 0.0;        ///< F(z + V (x - y), x) at the returned x
  /// Certified lower bound on the minimum. Left NaN (not set), the host takes it equal to value:
  /// the solve was exact. An inexact GLMO (column generation stopped at a tolerance) sets it, and
  /// the reported gap (eq. 2) then uses it, so the gap printed is an upper bound on the true one.
  double lower_bound = std::numeric_limits<double>::quiet_NaN();
  long iterations = 0;       ///< simplex (or column-generation) iterations of this solve
  /// x as a convex combination of the domain's atoms (atom.hpp), when the GLMO built it so; the
  /// GLMO owns it and keeps it unchanged until its next solve. Null: not reported.
  const AtomCombination* combination = nullptr;
};

class Glmo : public Stateful {
 public:
  /// Whether this solver can handle (outer, domain) at these sizes, answered before setup() from
  /// what the two objects declare (their capabilities, the model's size and cones). When false, `why`
  /// (if not null) receives one line saying why; the host then picks another solver for a
  /// problem file without a "glmo" block. The default is true.
  virtual bool supports(const OuterFunction& outer, const Domain& domain, int n, int d, std::string* why) const;
  /// Builds whatever the solver needs once per run. It charges what it will hold to the memory
  /// account of the Context its factory received, before allocating it (memory.hpp): the host
  /// calls setup() while composing, and reports a charge over the limit at the "glmo" block.
  virtual void setup(const OuterFunction& outer, const Domain& domain, int n, int d) = 0;
  /// x = argmin_{x in X} F(z + V (x - y), x). Throws scfw::Error on infeasible, unbounded or
  /// failed solves (the host adds the iteration number).
  /// V has the oracle's kind (jacobian.hpp). A GLMO that works on the dense matrix reads
  /// `const Mat& Vd = V.dense();`: unless it declares Capability::SparseV (solve() then takes a
  /// sparse V through its products and rows), the host hands it a dense V: for an oracle with a
  /// sparse Jacobian it copies V into one dense n x d buffer before each solve, charged to the
  /// memory account and named in the run summary.
  virtual GlmoResult solve(const Vec& z, const Jacobian& V, const Vec& y, Vec& x) = 0;
  /// Optional: the step gamma_k of the loop iteration whose solve() comes next (Alg. 1 line 8),
  /// called before each of the loop's solves, never before a gap report's (the host asks those of
  /// another instance). A GLMO that stops at a tolerance may loosen it with the step:
  /// column_generation's "step_tolerance". An additive error of order gamma_k keeps Algorithm 1's
  /// rate (docs/formulations.md, "A GLMO tolerance tied to the step"). The default ignores it.
  virtual void set_step(double gamma) { (void)gamma; }
  /// A one-line description of the solver actually used, for the run summary.
  virtual std::string describe() const = 0;
};

/// What a GLMO holds for the LP of F over the domain's model, estimated before it is built, for
/// its charge in setup() (docs/memory.md): W = V A (n x the model's variables), the LP by columns
/// (the n rows of u = z + V (x - y) are dense in the variables; 16 bytes a non-zero), and 64
/// bytes a row or column for bounds, costs, solutions and statuses. `rows` (if not null)
/// receives the LP's rows, the domain's and about two per output, for a solver that adds a basis
/// of rows x rows. The domain must declare Capability::LpModel.
std::uint64_t glmo_lp_bytes(const Domain& domain, int n, std::int64_t* rows = nullptr);

// ---------------------------------------------------------------------------------------------
// Step sizes

struct Steps {
  double gamma = 1.0;  ///< y_{k+1} = (1 - gamma) y_k + gamma x_{k+1}
  double beta = 1.0;   ///< Jacobian tracker weight
  double rho = 1.0;    ///< function tracker weight
};

class Schedule : public Component {
 public:
  /// The step sizes of iteration k = 0 .. K-1 of a run of K iterations.
  virtual Steps at(long k, long K) const = 0;
  /// One line: the rule and its values for a run of K iterations.
  virtual std::string describe(long K) const = 0;
};

// ---------------------------------------------------------------------------------------------
// Tracker

class Tracker : public Stateful {
 public:
  /// Binds the oracle for the run (it outlives the tracker's use) and allocates buffers.
  /// Throws CapabilityError when the oracle lacks a capability the tracker needs.
  virtual void bind(const Oracle& oracle) = 0;
  /// Alg. 1 line 2: draw xi_0 and set z_0, V_0 at y_0.
  /// V is shaped by the host as make_jacobian(oracle): dense n x d, or sparse in the oracle's
  /// pattern. A tracker written for dense Jacobians reads `Mat& Vd = V.dense();` (and refuses a
  /// sparse oracle in bind()); one on V.values() serves both kinds.
  virtual void start(const Vec& y0, Rng& rng, Vec& z, Jacobian& V) = 0;
  /// Alg. 1 lines 4-6 at iteration k >= 1: y = y_k, y_prev = y_{k-1}; updates z, V in place.
  virtual void update(long k, const Vec& y, const Vec& y_prev, const Steps& steps, Rng& rng,
                      Vec& z, Jacobian& V) = 0;
  /// Dense conveniences for host programs and tests over a dense oracle: V in an n x d Mat. Its
  /// storage moves into a dense Jacobian for the call and back (no copy, no allocation). Throws
  /// scfw::Error when the oracle's Jacobian is sparse. (Called through a Tracker pointer or
  /// reference: a class that overrides start/update hides these names.)
  void start(const Vec& y0, Rng& rng, Vec& z, Mat& V);
  void update(long k, const Vec& y, const Vec& y_prev, const Steps& steps, Rng& rng, Vec& z, Mat& V);
  // State (Stateful): z, V, y_k, y_{k-1} and the engine belong to the host and are saved by it;
  // a tracker declares state only for what it keeps itself across updates (buffers refilled by
  // every update are not state).
};

}  // namespace scfw
