// scfw core: y as factors (docs/memory.md, "Factored iterates").
//
// When the oracle sees only some entries of a matrix (Oracle::matrix_entries) the loop holds y at
// those entries, and the whole matrix the algorithm builds, y_k = sum_a c_a u_a v_a^T, is kept
// here as the rank-one atoms the GLMO combined (GlmoResult::combination): y_{k+1} =
// (1 - gamma) y_k + gamma sum_a lambda_a s_a becomes c *= (1 - gamma), then c_a += gamma lambda_a
// scale_a for each atom of x, an atom met before (the same factors, bit for bit) merged into its
// column. Memory follows (rows + cols) x the atoms kept, not rows x cols. The columns double as
// they fill, up to kMaxColumns (or min(rows, cols) + 1); full there, they are compressed exactly
// (to rounding) by a thin QR of each side and the SVD of the small core, so y's rank, not the
// number of atoms seen, bounds them. A rank over half of kMaxColumns keeps its largest half of the
// singular values: the factors are then an approximation of y off the entries, whose largest
// dropped singular value (relative) truncated() reports. The loop's own y at the entries is what
// the algorithm reads, so the factors never change an iterate.
#pragma once

#include <cstdint>
#include <vector>

#include "scfw/atom.hpp"
#include "scfw/types.hpp"

namespace scfw {

class Factors {
 public:
  /// Columns allocated at first, and at most (or min(rows, cols) + 1 when smaller).
  static constexpr int kInitialColumns = 64;
  static constexpr int kMaxColumns = 512;

  Factors() = default;
  /// Factors of a rows x cols matrix, 0 to begin with; kInitialColumns columns allocated here.
  Factors(int rows, int cols);

  bool active() const { return rows_ > 0; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int count() const { return count_; }
  /// The bytes a run holds for factors of this shape (the composer charges them).
  static std::uint64_t bytes(int rows, int cols);

  /// y = (1 - gamma) y + gamma x for x the combination c. False, and nothing changed, when an
  /// atom of positive weight is neither 0 nor rank-one of this shape (a dense atom).
  bool step(double gamma, const AtomCombination& c);

  /// Column a: y = sum_a coef(a) u(a) v(a)^T.
  double coef(int a) const { return coef_[a]; }
  Eigen::Ref<const Vec> u(int a) const { return U_.col(a); }
  Eigen::Ref<const Vec> v(int a) const { return V_.col(a); }
  /// y_ij.
  double at(int i, int j) const;
  /// The compressions so far.
  long compressions() const { return compressions_; }
  /// The largest singular value a compression dropped beyond the numerical zeros, relative to
  /// the largest one (0 while the factors are y exactly, to rounding).
  double truncated() const { return truncated_; }
  /// The most columns factors of this shape hold.
  static int max_columns(int rows, int cols);

  /// For checkpoints: the columns in use as flat vectors (coef also carries each column's atom
  /// scale, then the capacity and the truncation).
  void save(std::vector<double>& coef, std::vector<double>& u, std::vector<double>& v) const;
  /// The inverse of save(); false when the sizes do not fit the shape.
  bool load(int rows, int cols, const std::vector<double>& coef, const std::vector<double>& u,
            const std::vector<double>& v, long compressions);

 private:
  void grow_or_compress();
  void compress();
  std::uint64_t hash_of(double scale, Eigen::Ref<const Vec> u, Eigen::Ref<const Vec> v) const;

  int rows_ = 0, cols_ = 0, count_ = 0;
  long compressions_ = 0;
  double truncated_ = 0.0;
  Vec coef_;
  Eigen::MatrixXd U_, V_;  // column-major: column a is contiguous
  std::vector<std::uint64_t> hash_;  // of (scale, u, v) for the columns added whole
  std::vector<double> scale_;        // each column's atom scale (0: a compressed column)
};

}  // namespace scfw
