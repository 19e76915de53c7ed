// scfw SDK: Jacobians, dense or sparse (docs/api.md, "Jacobians").
//
// A Jacobian J~(x; xi) is n x d: row i is the gradient of f_i. Most oracles fill a dense n x d
// matrix. An oracle whose rows touch few coordinates (matrix completion: the observed entries of
// a group; least squares on LIBSVM data: the features present in a task's rows) declares a
// JacobianPattern once, after construction, and fills only the pattern's values. The trackers keep
// V in the same pattern (a momentum average of matrices in one pattern stays in it), and the
// GLMOs that accept a sparse V never form the dense n x d matrix.
//
// A Jacobian holds either kind. Its stored values are one flat array in both cases (the n x d
// row-major matrix, or the pattern's nnz values in pattern order), so a tracker's
// V = (1 - beta) V + beta J is one line for both: V.values() = (1 - beta) * V.values() + beta * J.values().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "scfw/types.hpp"

namespace scfw {

/// The sparsity pattern of an n x d Jacobian in compressed sparse rows: the columns of row i are
/// col[row_start[i] .. row_start[i+1]), strictly increasing. Validated when constructed: throws
/// scfw::Error naming the first violation (sizes, row_start not starting at 0 or decreasing,
/// a column out of range, unsorted or repeated columns in a row).
class JacobianPattern {
 public:
  JacobianPattern(int rows, int cols, std::vector<std::int64_t> row_start, std::vector<int> col);

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  /// The number of stored entries.
  std::int64_t nnz() const { return static_cast<std::int64_t>(col_.size()); }
  const std::vector<std::int64_t>& row_start() const { return row_start_; }
  const std::vector<int>& col() const { return col_; }
  /// The columns of row i, sorted.
  std::span<const int> row_cols(int i) const {
    return {col_.data() + row_start_[static_cast<std::size_t>(i)],
            static_cast<std::size_t>(row_start_[static_cast<std::size_t>(i) + 1] - row_start_[static_cast<std::size_t>(i)])};
  }
  /// Whether two patterns have the same entries (the same object, or equal arrays).
  bool same_as(const JacobianPattern& o) const;

 private:
  int rows_, cols_;
  std::vector<std::int64_t> row_start_;
  std::vector<int> col_;
};

/// A Jacobian, dense (an n x d Mat) or sparse (a shared pattern and its nnz values). Copies of a
/// sparse Jacobian share the pattern; assigning one Jacobian to another of the same kind and size
/// does not allocate.
class Jacobian {
 public:
  /// One row: its columns and values. For a dense Jacobian the columns are 0 .. d-1 and `cols`
  /// is null; col(k) answers both.
  struct Row {
    const int* cols = nullptr;
    const double* values = nullptr;
    std::int64_t size = 0;
    int col(std::int64_t k) const { return cols ? cols[k] : static_cast<int>(k); }
  };

  /// An empty dense Jacobian (0 x 0).
  Jacobian() = default;
  /// A dense rows x cols Jacobian of zeros.
  Jacobian(int rows, int cols);
  /// A dense Jacobian holding a copy of m. Implicit, so that a one-off call (a test, a host
  /// program) can pass a Mat where a const Jacobian& is expected; a loop keeps a Jacobian instead.
  Jacobian(Mat m);  // NOLINT(google-explicit-constructor)
  /// A sparse Jacobian of zeros in `pattern` (not null).
  explicit Jacobian(std::shared_ptr<const JacobianPattern> pattern);

  bool is_sparse() const { return pattern_ != nullptr; }
  int rows() const { return pattern_ ? pattern_->rows() : static_cast<int>(dense_.rows()); }
  int cols() const { return pattern_ ? pattern_->cols() : static_cast<int>(dense_.cols()); }
  /// The number of stored values: n * d, or the pattern's nnz.
  std::int64_t size() const { return pattern_ ? static_cast<std::int64_t>(values_.size()) : static_cast<std::int64_t>(dense_.size()); }

  /// The dense matrix; throws scfw::Error for a sparse Jacobian (use to_dense()).
  Mat& dense();
  const Mat& dense() const;
  /// The pattern; throws scfw::Error for a dense Jacobian.
  const JacobianPattern& pattern() const;
  /// The shared pattern, null for a dense Jacobian.
  const std::shared_ptr<const JacobianPattern>& pattern_ptr() const { return pattern_; }

  /// The stored values as one flat vector: the row-major n x d matrix, or the pattern's values.
  Eigen::Map<Vec> values() { return {data(), static_cast<Eigen::Index>(size())}; }
  Eigen::Map<const Vec> values() const { return {data(), static_cast<Eigen::Index>(size())}; }
  double* data() { return pattern_ ? values_.data() : dense_.data(); }
  const double* data() const { return pattern_ ? values_.data() : dense_.data(); }

  /// Row i's columns and values.
  Row row(int i) const;

  /// out = J x (out sized n by the caller). A dense J is one Eigen product, as `out.noalias() =
  /// Vd * x` (the same arithmetic); a sparse one a dot product per row in pattern order.
  void multiply(const Eigen::Ref<const Vec>& x, Eigen::Ref<Vec> out) const;
  /// out += J x.
  void multiply_add(const Eigen::Ref<const Vec>& x, Eigen::Ref<Vec> out) const;
  /// out = J^T w (out sized d by the caller).
  void transpose_multiply(const Eigen::Ref<const Vec>& w, Eigen::Ref<Vec> out) const;
  /// Every stored value to 0 (the pattern stays).
  void set_zero();
  /// The dense n x d matrix into out (resized when its size differs).
  void to_dense(Mat& out) const;
  /// Same kind, same size and, when sparse, the same pattern: the flat values line up.
  bool same_structure(const Jacobian& o) const;

 private:
  Mat dense_;
  std::shared_ptr<const JacobianPattern> pattern_;
  Vec values_;
};

}  // namespace scfw
