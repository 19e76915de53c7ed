// scfw SDK: arrays a host application hands to the plugins by name, in place of data files.
//
// A host that already holds its data in memory (a NumPy matrix in Python, an Eigen matrix in a
// C++ program) passes it as named, read-only views (scfw::HostArrays, given to the composer);
// the factories see them through Context::arrays. A problem names the array in a string
// parameter of its own (portfolio_returns' "array": "R"), and the factory fetches it with
// host_array():
//
//   Oracle(const scfw::Params& p, const scfw::Context& ctx) {
//     const scfw::HostArray& a = scfw::host_array(p, "array", ctx);   // located error if absent
//     if (!a.is_dense() || a.dense.vector) throw scfw::InputError(a.where() + ": expected ...");
//     const scfw::DenseView& R = a.dense;                              // R(t, j), row-major
//   }
//
// A C++ host fills the table with views of its own matrices (matrix_view, vector_view, csr_view
// below) and hands it to the composer through Overrides::arrays (scfw/host.hpp).
//
// The data stays the host's: it lives at least as long as the composed problem, and a plugin may
// keep pointers into it instead of copying (it then charges nothing to the memory account for
// it). host_array() has already refused a NaN or an infinity, with the array's name and the
// index: `data "R": row 3, column 2: not a finite number (nan)` (0-based indices).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "scfw/error.hpp"
#include "scfw/params.hpp"

namespace scfw {

struct Context;

/// A dense float64 array, contiguous and row-major: element (i, j) at data[i * cols + j]. A
/// one-dimensional array (`vector`) has cols = 1.
struct DenseView {
  const double* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  bool vector = false;
  double operator()(std::int64_t i, std::int64_t j) const { return data[i * cols + j]; }
  double operator[](std::int64_t k) const { return data[k]; }
  std::int64_t size() const { return rows * cols; }
};

/// A sparse matrix in compressed sparse rows: the entries of row r are k = indptr[r] ..
/// indptr[r + 1] - 1, at column indices[k] with value values[k] (scipy.sparse.csr_matrix's
/// layout). indptr and indices are integers of index_bytes (4 or 8) bytes each.
struct CsrView {
  const void* indptr = nullptr;   ///< rows + 1 integers, indptr[0] = 0, non-decreasing
  const void* indices = nullptr;  ///< nnz() integers in [0, cols)
  const double* values = nullptr; ///< nnz() numbers
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  int index_bytes = 8;
  std::int64_t ptr(std::int64_t r) const { return at(indptr, r); }
  std::int64_t index(std::int64_t k) const { return at(indices, k); }
  std::int64_t nnz() const { return rows > 0 || indptr ? ptr(rows) : 0; }

 private:
  std::int64_t at(const void* p, std::int64_t k) const {
    if (index_bytes == 4) return static_cast<const std::int32_t*>(p)[k];
    return static_cast<const std::int64_t*>(p)[k];
  }
};

/// One named array: dense (a matrix or a vector) or CSR.
struct HostArray {
  enum class Kind { Dense, Csr };
  std::string name;
  Kind kind = Kind::Dense;
  DenseView dense;
  CsrView csr;

  bool is_dense() const { return kind == Kind::Dense; }
  /// `data "NAME"`: how messages name the array.
  std::string where() const { return "data \"" + name + "\""; }
  /// "a 250 x 30 matrix", "a vector of 12", "a 40 x 9 CSR matrix with 77 non-zeros".
  std::string describe() const;
};

/// The arrays a host passes, by name. The table holds views, not the data: whoever fills it
/// keeps the arrays alive, unchanged, as long as any problem composed with it.
class HostArrays {
 public:
  /// A row-major matrix (`vector` = false) or a vector of `rows` values (`vector` = true, cols 1).
  /// Throws InputError for an empty or control-character name, a name given twice, negative sizes
  /// or a null pointer with a non-zero size; an invalid CSR structure (indptr not starting at 0,
  /// decreasing, or a column index outside [0, cols)) is refused with the index.
  void add(const std::string& name, const DenseView& view);
  void add(const std::string& name, const CsrView& view);

  /// The array called `name`, or nullptr.
  const HostArray* find(const std::string& name) const;
  const std::vector<HostArray>& all() const { return arrays_; }
  bool empty() const { return arrays_.empty(); }

 private:
  std::vector<HostArray> arrays_;
};

/// A view of a row-major Eigen matrix, or of a Map of one, without a copy: the matrix must be
/// stored contiguously (outer stride = cols). Throws Error for a matrix stored otherwise.
template <class M>
DenseView matrix_view(const M& m) {
  static_assert(std::is_same_v<typename M::Scalar, double>, "scfw::matrix_view: a matrix of doubles");
  static_assert(M::IsRowMajor, "scfw::matrix_view: a row-major matrix (Eigen::RowMajor), as the plugins read it");
  if (m.innerStride() != 1 || (m.rows() > 1 && m.outerStride() != m.cols()))
    throw Error("scfw::matrix_view: the matrix is not stored contiguously");
  return DenseView{m.data(), static_cast<std::int64_t>(m.rows()), static_cast<std::int64_t>(m.cols()), false};
}
/// A view of an Eigen vector (scfw::Vec, a Map of one) without a copy; its elements contiguous.
template <class V>
DenseView vector_view(const V& v) {
  static_assert(std::is_same_v<typename V::Scalar, double>, "scfw::vector_view: a vector of doubles");
  static_assert(V::IsVectorAtCompileTime, "scfw::vector_view: a vector");
  if (v.innerStride() != 1) throw Error("scfw::vector_view: the vector is not stored contiguously");
  return DenseView{v.data(), static_cast<std::int64_t>(v.size()), 1, true};
}
/// A view of a compressed row-major Eigen::SparseMatrix<double, Eigen::RowMajor, I> (I: int or
/// std::int64_t) without a copy. Throws Error for one not compressed (call makeCompressed()).
template <class S>
CsrView csr_view(const S& m) {
  static_assert(S::IsRowMajor, "scfw::csr_view: a row-major sparse matrix (compressed sparse rows)");
  static_assert(sizeof(*m.outerIndexPtr()) == 4 || sizeof(*m.outerIndexPtr()) == 8, "scfw::csr_view: 4- or 8-byte indices");
  if (!m.isCompressed()) throw Error("scfw::csr_view: the sparse matrix is not compressed (call makeCompressed())");
  CsrView v;
  v.indptr = m.outerIndexPtr();
  v.indices = m.innerIndexPtr();
  v.values = m.valuePtr();
  v.rows = m.rows();
  v.cols = m.cols();
  v.index_bytes = static_cast<int>(sizeof(*m.outerIndexPtr()));
  return v;
}

/// The first element of `a` that is NaN or infinite, as InputError
/// `data "R": row 3, column 2: not a finite number (nan)` (a vector: `data "b": element 4: ...`;
/// CSR: `data "A": row 3, column 7 (entry 12): ...`); nothing when every value is finite.
void check_finite(const HostArray& a);

/// The host array named by the string parameter `key` of `p`, its values checked finite. Without
/// such an array, fails through p.fail(key, ...): "<source>: /oracle/array: no array named \"R\"
/// was passed" (with the names that were, or how to pass one when none was).
const HostArray& host_array(const Params& p, const std::string& key, const Context& ctx);
/// The same for a name taken from a list in the parameter `key` (one item of it).
const HostArray& host_array(const Params& p, const std::string& key, const std::string& name, const Context& ctx);

}  // namespace scfw
