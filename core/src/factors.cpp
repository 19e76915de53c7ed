// scfw core: y as factors (factors.hpp).
#include "scfw/core/factors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include <Eigen/QR>
#include <Eigen/SVD>


namespace scfw {

// One more than y's largest rank: a compression then always leaves a free column.
int Factors::max_columns(int rows, int cols) { return std::min(kMaxColumns, std::min(rows, cols) + 1); }

Factors::Factors(int rows, int cols) : rows_(rows), cols_(cols) {
  const int c = std::min(kInitialColumns, max_columns(rows, cols));
  coef_ = Vec::Zero(c);
  U_ = Eigen::MatrixXd::Zero(rows, c);
  V_ = Eigen::MatrixXd::Zero(cols, c);
  hash_.reserve(static_cast<size_t>(max_columns(rows, cols)));
  scale_.reserve(static_cast<size_t>(max_columns(rows, cols)));
}

std::uint64_t Factors::bytes(int rows, int cols) {
  return static_cast<std::uint64_t>(max_columns(rows, cols)) * (static_cast<std::uint64_t>(rows) + static_cast<std::uint64_t>(cols) + 3) * 8;
}

namespace {
// FNV-1a over the bytes of the numbers.
void mix(std::uint64_t& h, const double* p, Eigen::Index n) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  for (Eigen::Index k = 0; k < n * 8; ++k) {
    h ^= b[k];
    h *= 1099511628211ull;
  }
}
}  // namespace

std::uint64_t Factors::hash_of(double scale, Eigen::Ref<const Vec> u, Eigen::Ref<const Vec> v) const {
  std::uint64_t h = 14695981039346656037ull;
  mix(h, &scale, 1);
  mix(h, u.data(), u.size());
  mix(h, v.data(), v.size());
  return h;
}

bool Factors::step(double gamma, const AtomCombination& c) {
  for (size_t t = 0; t < c.atom.size(); ++t) {
    const Atom& s = *c.atom[t];
    if (!(c.weight[t] > 0.0) || (s.kind() == Atom::Kind::Sparse && s.nnz() == 0)) continue;  // 0
    if (s.kind() != Atom::Kind::RankOne || s.rows() != rows_ || s.cols() != cols_) return false;
  }
  coef_.head(count_) *= 1.0 - gamma;
  for (size_t t = 0; t < c.atom.size(); ++t) {
    const Atom& s = *c.atom[t];
    const double w = c.weight[t];
    if (!(w > 0.0) || s.kind() != Atom::Kind::RankOne) continue;
    const std::uint64_t h = hash_of(s.scale(), s.u(), s.v());
    int found = -1;
    for (int a = 0; a < count_ && found < 0; ++a)
      if (hash_[static_cast<size_t>(a)] == h && scale_[static_cast<size_t>(a)] == s.scale() && U_.col(a) == s.u() &&
          V_.col(a) == s.v())
        found = a;
    if (found < 0) {
      if (count_ == coef_.size()) grow_or_compress();
      found = count_++;
      U_.col(found) = s.u();
      V_.col(found) = s.v();
      coef_[found] = 0.0;
      hash_.push_back(h);
      scale_.push_back(s.scale());
    }
    coef_[found] += gamma * w * s.scale();
  }
  return true;
}

// sum_a c_a u_a v_a^T = Qu (Ru C Rv^T) Qv^T, and the r x r core's SVD P S Q^T gives the columns
// Qu P_i, Qv Q_i with weights S_i: the same matrix to rounding, with as many columns as its rank.
// Singular values below 1e-14 of the largest are dropped as numerical zeros; a rank over half the
// columns keeps its largest half (the rest counted in truncated_), unless the columns outnumber
// y's largest rank (then every compression is exact).
// Full: more columns while there is room (an amortized O(1) per column), a compression at the most.
void Factors::grow_or_compress() {
  const int capacity = static_cast<int>(coef_.size()), most = max_columns(rows_, cols_);
  if (capacity >= most) {
    compress();
    return;
  }
  const int next = std::min(2 * capacity, most);
  coef_.conservativeResize(next);
  U_.conservativeResize(Eigen::NoChange, next);
  V_.conservativeResize(Eigen::NoChange, next);
}

void Factors::compress() {
  const int r = count_;
  const Eigen::MatrixXd A = U_.leftCols(r) * coef_.head(r).asDiagonal();
  Eigen::HouseholderQR<Eigen::MatrixXd> qu(A), qv(V_.leftCols(r));
  const int ku = std::min(rows_, r), kv = std::min(cols_, r);
  const Eigen::MatrixXd Ru = qu.matrixQR().topRows(ku).template triangularView<Eigen::Upper>();
  const Eigen::MatrixXd Rv = qv.matrixQR().topRows(kv).template triangularView<Eigen::Upper>();
  const Eigen::MatrixXd core = Ru * Rv.transpose();
  Eigen::MatrixXd P, Q;
  Vec s;
  {
    Eigen::BDCSVD<Eigen::MatrixXd> svd(core, Eigen::ComputeThinU | Eigen::ComputeThinV);
    if (svd.singularValues().allFinite()) {
      s = svd.singularValues();
      P = svd.matrixU();
      Q = svd.matrixV();
    } else {  // Eigen 3.4's divide and conquer can fail on a core with many tiny values
      Eigen::JacobiSVD<Eigen::MatrixXd> jacobi(core, Eigen::ComputeThinU | Eigen::ComputeThinV);
      s = jacobi.singularValues();
      P = jacobi.matrixU();
      Q = jacobi.matrixV();
    }
  }
  int keep = 0;
  while (keep < s.size() && s[keep] > 1e-14 * s[0]) ++keep;
  // At the most columns (see grow_or_compress): a rank over half of them keeps the largest half.
  const int capacity = static_cast<int>(coef_.size());
  if (2 * keep > capacity && capacity < rows_ && capacity < cols_) {
    const int half = std::max(1, capacity / 2);
    truncated_ = std::max(truncated_, s[half] / s[0]);
    keep = half;
  }
  const Eigen::MatrixXd newU = (qu.householderQ() * Eigen::MatrixXd::Identity(rows_, ku)) * P.leftCols(keep);
  const Eigen::MatrixXd newV = (qv.householderQ() * Eigen::MatrixXd::Identity(cols_, kv)) * Q.leftCols(keep);
  U_.leftCols(keep) = newU;
  V_.leftCols(keep) = newV;
  coef_.setZero();
  coef_.head(keep) = s.head(keep);
  count_ = keep;
  hash_.assign(static_cast<size_t>(keep), 0);  // compressed columns match no atom
  scale_.assign(static_cast<size_t>(keep), 0.0);
  ++compressions_;
}

double Factors::at(int i, int j) const {
  double y = 0.0;
  for (int a = 0; a < count_; ++a) y += coef_[a] * U_(i, a) * V_(j, a);
  return y;
}

void Factors::save(std::vector<double>& coef, std::vector<double>& u, std::vector<double>& v) const {
  coef.assign(coef_.data(), coef_.data() + count_);
  u.assign(U_.data(), U_.data() + static_cast<std::int64_t>(rows_) * count_);
  v.assign(V_.data(), V_.data() + static_cast<std::int64_t>(cols_) * count_);
  // The atoms' scales ride with the coefficients (0 for compressed columns), then the capacity
  // and the truncation.
  coef.insert(coef.end(), scale_.begin(), scale_.end());
  coef.push_back(static_cast<double>(coef_.size()));
  coef.push_back(truncated_);
}

bool Factors::load(int rows, int cols, const std::vector<double>& coef, const std::vector<double>& u,
                   const std::vector<double>& v, long compressions) {
  if (rows != rows_ || cols != cols_ || coef.size() < 2 || coef.size() % 2 != 0) return false;
  const size_t r = coef.size() / 2 - 1;
  const double capacity = coef[2 * r], truncated = coef[2 * r + 1];
  if (!(capacity >= 1 && capacity <= max_columns(rows, cols) && capacity == std::floor(capacity) && capacity >= static_cast<double>(r)) ||
      !(truncated >= 0 && truncated <= 1) || u.size() != r * static_cast<size_t>(rows) || v.size() != r * static_cast<size_t>(cols))
    return false;
  count_ = static_cast<int>(r);
  coef_ = Vec::Zero(static_cast<Eigen::Index>(capacity));
  U_ = Eigen::MatrixXd::Zero(rows, coef_.size());
  V_ = Eigen::MatrixXd::Zero(cols, coef_.size());
  truncated_ = truncated;
  for (size_t a = 0; a < r; ++a) coef_[static_cast<Eigen::Index>(a)] = coef[a];
  U_.leftCols(count_) = Eigen::Map<const Eigen::MatrixXd>(u.data(), rows, count_);
  V_.leftCols(count_) = Eigen::Map<const Eigen::MatrixXd>(v.data(), cols, count_);
  scale_.assign(coef.begin() + static_cast<std::ptrdiff_t>(r), coef.begin() + static_cast<std::ptrdiff_t>(2 * r));
  hash_.clear();
  for (int a = 0; a < count_; ++a)
    hash_.push_back(scale_[static_cast<size_t>(a)] == 0.0 ? 0 : hash_of(scale_[static_cast<size_t>(a)], U_.col(a), V_.col(a)));
  compressions_ = compressions;
  return true;
}

}  // namespace scfw
