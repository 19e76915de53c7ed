// scfw SDK: the LMO's arguments, a Gradient (dense, or given by its non-zeros) and an Atom (the
// answer, dense or compact) (docs/plugins.md, "The LMO").
//
// A linear minimization oracle over a domain with few degrees of freedom per extreme point returns
// a point that is cheap to describe: the l1 ball's -r sign(g_j) e_j and the simplex's vertices are
// one non-zero, the nuclear ball's -tau u v^T is rows + cols numbers for rows x cols entries. On a
// sparse problem (a Jacobian pattern, jacobian.hpp) the gradient the GLMO hands to the LMO is also
// zero off the pattern's columns. Domain::lmo takes either form of the gradient and may answer
// with any kind of Atom; a domain that declares Capability::CompactAtoms answers a sparse gradient
// in O(its non-zeros + the atom's size), and column generation then keeps its atoms in that form,
// so its memory and cost follow the data's non-zeros, not d.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "scfw/types.hpp"

namespace scfw {

/// Coordinates that are entries of a rows x cols matrix: coordinate k is the entry
/// (row[k], col[k]), in row-major order (row[k] * cols + col[k] strictly increasing). An oracle
/// whose variables are the observed entries of a matrix declares them (Oracle::matrix_entries);
/// the host then hands them to the domain and the GLMO in Context::entries, and a domain over the
/// whole matrix (the nuclear ball) works on what the oracle sees: the matrix's values at these
/// entries. The loop's vectors then have one number per entry, not rows x cols (docs/memory.md,
/// "Factored iterates").
struct MatrixEntries {
  int rows = 0, cols = 0;
  std::vector<int> row, col;
  int size() const { return static_cast<int>(row.size()); }
  /// Whether the lists agree in length, lie in the shape and are strictly row-major increasing.
  bool well_formed() const;
};

/// The gradient g in R^dim handed to Domain::lmo, in one of two forms:
///  - dense:  the d numbers of a Vec (a Vec converts to a Gradient implicitly);
///  - sparse: g[index[k]] = value[k], zero elsewhere, index strictly increasing.
/// A Gradient is a view: it points into the caller's buffers for the call only.
class Gradient {
 public:
  Gradient(const Vec& g) : dim_(static_cast<int>(g.size())), dense_(&g) {}  // NOLINT: implicit on purpose
  static Gradient sparse(int dim, std::span<const int> index, std::span<const double> value) {
    Gradient g;
    g.dim_ = dim;
    g.index_ = index;
    g.value_ = value;
    return g;
  }

  int dim() const { return dim_; }
  bool is_dense() const { return dense_ != nullptr; }
  /// The dense form's numbers (is_dense() only).
  const Vec& dense() const { return *dense_; }
  /// The sparse form's non-zeros (empty for a dense gradient).
  std::span<const int> index() const { return index_; }
  std::span<const double> value() const { return value_; }
  /// g as a d-vector: the dense form itself, or the sparse one written into buf (resized).
  const Vec& to_dense(Vec& buf) const;
  /// Whether the sparse form's index is strictly increasing in [0, dim) with one value per index
  /// (a dense form: whether it has dim entries).
  bool well_formed() const;

 private:
  Gradient() = default;
  int dim_ = 0;
  const Vec* dense_ = nullptr;
  std::span<const int> index_;
  std::span<const double> value_;
};

/// A point x in R^dim in one of three forms:
///  - Dense:   x = dense (dim entries);
///  - Sparse:  x = sum_k value[k] e_{index[k]}, index strictly increasing;
///  - RankOne: x is the rows x cols matrix scale u v^T stored row-major
///             (x[i * cols + j] = scale u_i v_j), dim = rows * cols; or, with MatrixEntries E,
///             that matrix seen at E's entries (x[k] = scale u_{E.row[k]} v_{E.col[k]}),
///             dim = E.size().
/// Buffers are reused when an Atom is assigned again (an LMO called in a loop does not allocate
/// once the sizes have been seen).
class Atom {
 public:
  enum class Kind { Dense, Sparse, RankOne };

  Kind kind() const { return kind_; }
  int dim() const { return dim_; }

  // --- writing (what an LMO does) ---
  /// Dense: x.
  void set_dense(const Vec& x);
  /// Dense in R^dim, written by the caller through the returned vector (sized dim, contents
  /// unspecified): an LMO fills its answer in place, without a copy.
  Vec& set_dense(int dim);
  /// Sparse with no entries yet in R^dim; then push() the entries in increasing index order.
  void set_sparse(int dim);
  void push(int index, double value) {
    index_.push_back(index);
    value_.push_back(value);
  }
  /// RankOne: scale u v^T, u of size rows, v of size cols; sized here, filled by the caller
  /// through u() and v() (or copied from the arguments of the second overload).
  /// With `at`, the matrix seen at those entries (held by the caller, alive as long as the atom).
  void set_rank_one(int rows, int cols, double scale, const MatrixEntries* at = nullptr);
  void set_rank_one(double scale, const Vec& u, const Vec& v, const MatrixEntries* at = nullptr);
  /// The dense vector's non-zeros as a Sparse atom (exact: the same point).
  void set_sparse_from(const Vec& x);

  // --- reading ---
  const Vec& dense() const { return dense_; }
  const std::vector<int>& index() const { return index_; }
  const std::vector<double>& value() const { return value_; }
  std::int64_t nnz() const { return static_cast<std::int64_t>(index_.size()); }
  double scale() const { return scale_; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  /// RankOne: the entries the matrix is seen at, or null for the whole rows x cols matrix.
  const MatrixEntries* entries() const { return at_; }
  Vec& u() { return u_; }
  Vec& v() { return v_; }
  const Vec& u() const { return u_; }
  const Vec& v() const { return v_; }

  /// x = the atom as a dense vector (resized to dim).
  void to_dense(Vec& x) const;
  /// x += w * atom (x of size dim).
  void add_to(double w, Eigen::Ref<Vec> x) const;
  /// <g, atom> for a dense g of size dim.
  double dot(const Vec& g) const;
  /// <g, atom> for a gradient in either form.
  double dot(const Gradient& g) const;
  /// max_j |x_j - y_j| between two atoms of the same dim, computed in O(their stored sizes) when
  /// both are compact of one kind (rank-one: a bound, exact to rounding when the two factors are
  /// equal up to sign: see atom.cpp), else on the dense forms.
  static double max_distance(const Atom& a, const Atom& b);
  /// The number of bytes the atom holds (its stored numbers).
  std::int64_t bytes() const;

 private:
  Kind kind_ = Kind::Dense;
  int dim_ = 0;
  Vec dense_;
  std::vector<int> index_;
  std::vector<double> value_;
  double scale_ = 0.0;
  int rows_ = 0, cols_ = 0;
  const MatrixEntries* at_ = nullptr;
  Vec u_, v_;
};

/// x as a convex combination of a domain's atoms, sum_a weight[a] * atom[a] with weights >= 0
/// summing to at most 1 (the rest on 0, a point of every domain that reports combinations):
/// what a GLMO that builds x from atoms (column generation) reports in
/// GlmoResult::combination, so that the host can keep y as factors (docs/memory.md,
/// "Factored iterates"). id[a] names the atom across solves: an atom a GLMO keeps from one solve
/// to the next keeps its id, and a new atom gets an id never used before in the run.
struct AtomCombination {
  std::vector<std::uint64_t> id;
  std::vector<const Atom*> atom;
  std::vector<double> weight;
  void clear() {
    id.clear();
    atom.clear();
    weight.clear();
  }
};

}  // namespace scfw
