// scfw SDK: compact atoms (atom.hpp).
#include "scfw/atom.hpp"

#include <algorithm>
#include <cmath>

#include "scfw/error.hpp"

namespace scfw {

void Atom::set_dense(const Vec& x) {
  kind_ = Kind::Dense;
  dim_ = static_cast<int>(x.size());
  dense_ = x;
}

Vec& Atom::set_dense(int dim) {
  kind_ = Kind::Dense;
  dim_ = dim;
  dense_.resize(dim);
  return dense_;
}

const Vec& Gradient::to_dense(Vec& buf) const {
  if (dense_ != nullptr) return *dense_;
  buf.setZero(dim_);
  for (size_t k = 0; k < index_.size(); ++k) buf[index_[k]] = value_[k];
  return buf;
}

bool Gradient::well_formed() const {
  if (dense_ != nullptr) return dense_->size() == dim_;
  if (index_.size() != value_.size()) return false;
  for (size_t k = 0; k < index_.size(); ++k)
    if (index_[k] < 0 || index_[k] >= dim_ || (k > 0 && index_[k] <= index_[k - 1])) return false;
  return true;
}

void Atom::set_sparse(int dim) {
  kind_ = Kind::Sparse;
  dim_ = dim;
  index_.clear();
  value_.clear();
}

void Atom::set_sparse_from(const Vec& x) {
  set_sparse(static_cast<int>(x.size()));
  for (Eigen::Index j = 0; j < x.size(); ++j)
    if (x[j] != 0.0) push(static_cast<int>(j), x[j]);
}

bool MatrixEntries::well_formed() const {
  if (rows < 0 || cols < 0 || row.size() != col.size()) return false;
  for (size_t k = 0; k < row.size(); ++k) {
    if (row[k] < 0 || row[k] >= rows || col[k] < 0 || col[k] >= cols) return false;
    if (k > 0 && (row[k] < row[k - 1] || (row[k] == row[k - 1] && col[k] <= col[k - 1]))) return false;
  }
  return true;
}

void Atom::set_rank_one(int rows, int cols, double scale, const MatrixEntries* at) {
  kind_ = Kind::RankOne;
  rows_ = rows;
  cols_ = cols;
  at_ = at;
  dim_ = at ? at->size() : rows * cols;
  scale_ = scale;
  u_.resize(rows);
  v_.resize(cols);
}

void Atom::set_rank_one(double scale, const Vec& u, const Vec& v, const MatrixEntries* at) {
  set_rank_one(static_cast<int>(u.size()), static_cast<int>(v.size()), scale, at);
  u_ = u;
  v_ = v;
}

void Atom::to_dense(Vec& x) const {
  if (kind_ == Kind::Dense) {
    x = dense_;
    return;
  }
  x.setZero(dim_);
  add_to(1.0, x);
}

void Atom::add_to(double w, Eigen::Ref<Vec> x) const {
  if (x.size() != dim_) throw Error("Atom::add_to: x has size " + std::to_string(x.size()) + ", the atom " + std::to_string(dim_));
  switch (kind_) {
    case Kind::Dense:
      x += w * dense_;
      break;
    case Kind::Sparse:
      for (size_t k = 0; k < index_.size(); ++k) x[index_[k]] += w * value_[k];
      break;
    case Kind::RankOne: {
      if (at_) {
        const double ws = w * scale_;
        for (int k = 0; k < dim_; ++k) x[k] += (ws * u_[at_->row[static_cast<size_t>(k)]]) * v_[at_->col[static_cast<size_t>(k)]];
        break;
      }
      Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> X(x.data(), rows_, cols_);
      X.noalias() += (w * scale_ * u_) * v_.transpose();
      break;
    }
  }
}

double Atom::dot(const Vec& g) const {
  switch (kind_) {
    case Kind::Dense:
      return g.dot(dense_);
    case Kind::Sparse: {
      double s = 0.0;
      for (size_t k = 0; k < index_.size(); ++k) s += g[index_[k]] * value_[k];
      return s;
    }
    case Kind::RankOne: {
      if (at_) {
        double s = 0.0;
        for (int k = 0; k < dim_; ++k) s += g[k] * (u_[at_->row[static_cast<size_t>(k)]] * v_[at_->col[static_cast<size_t>(k)]]);
        return scale_ * s;
      }
      const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> G(g.data(), rows_, cols_);
      return scale_ * u_.dot(G * v_);
    }
  }
  return 0.0;
}

double Atom::dot(const Gradient& grad) const {
  if (grad.is_dense()) return dot(grad.dense());
  const struct {
    std::span<const int> index;
    std::span<const double> value;
  } g{grad.index(), grad.value()};
  double s = 0.0;
  switch (kind_) {
    case Kind::Dense:
      for (size_t m = 0; m < g.index.size(); ++m) s += g.value[m] * dense_[g.index[m]];
      return s;
    case Kind::Sparse: {
      // Both index lists are sorted: one merge.
      size_t m = 0;
      for (size_t k = 0; k < index_.size(); ++k) {
        while (m < g.index.size() && g.index[m] < index_[k]) ++m;
        if (m < g.index.size() && g.index[m] == index_[k]) s += g.value[m] * value_[k];
      }
      return s;
    }
    case Kind::RankOne:
      for (size_t m = 0; m < g.index.size(); ++m) {
        if (at_) {
          const auto k = static_cast<size_t>(g.index[m]);
          s += g.value[m] * u_[at_->row[k]] * v_[at_->col[k]];
          continue;
        }
        const int i = g.index[m] / cols_, j = g.index[m] - i * cols_;
        s += g.value[m] * u_[i] * v_[j];
      }
      return scale_ * s;
  }
  return s;
}

double Atom::max_distance(const Atom& a, const Atom& b) {
  if (a.dim_ != b.dim_) return inf;
  if (a.kind_ == Kind::Sparse && b.kind_ == Kind::Sparse) {
    double d = 0.0;
    size_t i = 0, j = 0;
    while (i < a.index_.size() || j < b.index_.size()) {
      if (j == b.index_.size() || (i < a.index_.size() && a.index_[i] < b.index_[j])) {
        d = std::max(d, std::abs(a.value_[i++]));
      } else if (i == a.index_.size() || b.index_[j] < a.index_[i]) {
        d = std::max(d, std::abs(b.value_[j++]));
      } else {
        d = std::max(d, std::abs(a.value_[i++] - b.value_[j++]));
      }
    }
    return d;
  }
  if (a.kind_ == Kind::RankOne && b.kind_ == Kind::RankOne && a.rows_ == b.rows_ && a.cols_ == b.cols_ && a.at_ == b.at_) {
    // a u v^T - b u' v'^T = (a u - b u') v^T + b u' (v - v')^T, so every entry is at most
    // ||a u - b u'|| ||v|| + ||b u'|| ||v - v'|| (max norms); the same with (-u', -v') (the same
    // matrix), and the smaller bound is taken (seen at some entries only: a bound all the same). It is the true distance up to rounding when the
    // factors agree up to a common sign, and an upper bound otherwise.
    double best = inf;
    for (double sign : {1.0, -1.0}) {
      const double du = (a.scale_ * a.u_ - sign * b.scale_ * b.u_).lpNorm<Eigen::Infinity>();
      const double dv = (a.v_ - sign * b.v_).lpNorm<Eigen::Infinity>();
      best = std::min(best, du * a.v_.lpNorm<Eigen::Infinity>() + std::abs(b.scale_) * b.u_.lpNorm<Eigen::Infinity>() * dv);
    }
    return best;
  }
  Vec x, y;
  a.to_dense(x);
  b.to_dense(y);
  return (x - y).lpNorm<Eigen::Infinity>();
}

std::int64_t Atom::bytes() const {
  switch (kind_) {
    case Kind::Dense:
      return static_cast<std::int64_t>(dense_.size()) * 8;
    case Kind::Sparse:
      return static_cast<std::int64_t>(index_.size()) * 12;
    case Kind::RankOne:
      return (static_cast<std::int64_t>(u_.size()) + v_.size() + 1) * 8;
  }
  return 0;
}

}  // namespace scfw
