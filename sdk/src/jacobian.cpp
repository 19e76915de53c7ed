#include "scfw/jacobian.hpp"

#include <string>
#include <utility>

#include "scfw/error.hpp"
#include "scfw/helpers.hpp"
#include "scfw/roles.hpp"

namespace scfw {

namespace {

[[noreturn]] void bad_pattern(const std::string& what) { throw Error("Jacobian pattern: " + what); }

std::string str(std::int64_t v) { return std::to_string(v); }

}  // namespace

JacobianPattern::JacobianPattern(int rows, int cols, std::vector<std::int64_t> row_start, std::vector<int> col)
    : rows_(rows), cols_(cols), row_start_(std::move(row_start)), col_(std::move(col)) {
  if (rows_ < 1 || cols_ < 1)
    bad_pattern("rows = " + str(rows_) + " and cols = " + str(cols_) + "; both must be >= 1");
  if (row_start_.size() != static_cast<std::size_t>(rows_) + 1)
    bad_pattern("row_start has " + str(static_cast<std::int64_t>(row_start_.size())) + " entries, expected rows + 1 = " +
                str(std::int64_t{rows_} + 1));
  if (row_start_[0] != 0) bad_pattern("row_start[0] = " + str(row_start_[0]) + ", expected 0");
  for (int i = 0; i < rows_; ++i) {
    const std::int64_t b = row_start_[static_cast<std::size_t>(i)], e = row_start_[static_cast<std::size_t>(i) + 1];
    if (e < b) bad_pattern("row_start decreases at row " + str(i) + " (" + str(e) + " after " + str(b) + ")");
  }
  if (row_start_.back() != static_cast<std::int64_t>(col_.size()))
    bad_pattern("row_start[rows] = " + str(row_start_.back()) + " but col has " +
                str(static_cast<std::int64_t>(col_.size())) + " entries");
  for (int i = 0; i < rows_; ++i) {
    const std::int64_t b = row_start_[static_cast<std::size_t>(i)], e = row_start_[static_cast<std::size_t>(i) + 1];
    for (std::int64_t k = b; k < e; ++k) {
      const int c = col_[static_cast<std::size_t>(k)];
      if (c < 0 || c >= cols_)
        bad_pattern("column " + str(c) + " in row " + str(i) + " is outside 0.." + str(cols_ - 1));
      if (k > b) {
        const int p = col_[static_cast<std::size_t>(k) - 1];
        if (c == p) bad_pattern("column " + str(c) + " repeated in row " + str(i));
        if (c < p) bad_pattern("columns of row " + str(i) + " are not sorted (" + str(c) + " after " + str(p) + ")");
      }
    }
  }
}

bool JacobianPattern::same_as(const JacobianPattern& o) const {
  return this == &o || (rows_ == o.rows_ && cols_ == o.cols_ && row_start_ == o.row_start_ && col_ == o.col_);
}

Jacobian::Jacobian(int rows, int cols) : dense_(Mat::Zero(rows, cols)) {}

Jacobian::Jacobian(Mat m) : dense_(std::move(m)) {}

Jacobian::Jacobian(std::shared_ptr<const JacobianPattern> pattern) : pattern_(std::move(pattern)) {
  if (!pattern_) throw Error("Jacobian: a sparse Jacobian needs a pattern, got none");
  values_ = Vec::Zero(static_cast<Eigen::Index>(pattern_->nnz()));
}

Mat& Jacobian::dense() {
  if (pattern_) throw Error("Jacobian::dense(): this Jacobian is sparse (use to_dense())");
  return dense_;
}

const Mat& Jacobian::dense() const {
  if (pattern_) throw Error("Jacobian::dense(): this Jacobian is sparse (use to_dense())");
  return dense_;
}

const JacobianPattern& Jacobian::pattern() const {
  if (!pattern_) throw Error("Jacobian::pattern(): this Jacobian is dense");
  return *pattern_;
}

Jacobian::Row Jacobian::row(int i) const {
  Row r;
  if (pattern_) {
    const std::int64_t b = pattern_->row_start()[static_cast<std::size_t>(i)];
    r.cols = pattern_->col().data() + b;
    r.values = values_.data() + b;
    r.size = pattern_->row_start()[static_cast<std::size_t>(i) + 1] - b;
  } else {
    r.values = dense_.data() + static_cast<std::int64_t>(i) * dense_.cols();
    r.size = dense_.cols();
  }
  return r;
}

namespace {
[[noreturn, gnu::cold]] void bad_product(const char* what, long got, long want) {
  throw Error(std::string("Jacobian::") + what + ": size " + std::to_string(got) + ", expected " + std::to_string(want));
}
}  // namespace

void Jacobian::multiply(const Eigen::Ref<const Vec>& x, Eigen::Ref<Vec> out) const {
  if (x.size() != cols() || out.size() != rows()) [[unlikely]]
    bad_product(x.size() != cols() ? "multiply: x" : "multiply: out", x.size() != cols() ? x.size() : out.size(),
                x.size() != cols() ? cols() : rows());
  if (!pattern_) {
    out.noalias() = dense_ * x;
    return;
  }
  out.setZero();
  multiply_add(x, out);
}

void Jacobian::multiply_add(const Eigen::Ref<const Vec>& x, Eigen::Ref<Vec> out) const {
  if (x.size() != cols() || out.size() != rows()) [[unlikely]]
    bad_product(x.size() != cols() ? "multiply_add: x" : "multiply_add: out", x.size() != cols() ? x.size() : out.size(),
                x.size() != cols() ? cols() : rows());
  if (!pattern_) {
    out.noalias() += dense_ * x;
    return;
  }
  const std::int64_t* rs = pattern_->row_start().data();
  const int* col = pattern_->col().data();
  const double* v = values_.data();
  const double* xv = x.data();
  for (int i = 0; i < pattern_->rows(); ++i)
    out[i] += sparse_row_sum(rs[i], rs[i + 1], [&](std::int64_t k) { return v[k] * xv[col[k]]; });
}

void Jacobian::transpose_multiply(const Eigen::Ref<const Vec>& w, Eigen::Ref<Vec> out) const {
  if (w.size() != rows() || out.size() != cols()) [[unlikely]]
    bad_product(w.size() != rows() ? "transpose_multiply: w" : "transpose_multiply: out",
                w.size() != rows() ? w.size() : out.size(), w.size() != rows() ? rows() : cols());
  if (!pattern_) {
    out.noalias() = dense_.transpose() * w;
    return;
  }
  out.setZero();
  const std::int64_t* rs = pattern_->row_start().data();
  const int* col = pattern_->col().data();
  const double* v = values_.data();
  double* o = out.data();
  for (int i = 0; i < pattern_->rows(); ++i) {
    const double wi = w[i];
    for (std::int64_t k = rs[i]; k < rs[i + 1]; ++k) o[col[k]] += v[k] * wi;
  }
}

void Jacobian::set_zero() {
  if (pattern_)
    values_.setZero();
  else
    dense_.setZero();
}

void Jacobian::to_dense(Mat& out) const {
  if (!pattern_) {
    out = dense_;
    return;
  }
  if (out.rows() != pattern_->rows() || out.cols() != pattern_->cols()) out.resize(pattern_->rows(), pattern_->cols());
  out.setZero();
  const std::int64_t* rs = pattern_->row_start().data();
  const int* col = pattern_->col().data();
  for (int i = 0; i < pattern_->rows(); ++i)
    for (std::int64_t k = rs[i]; k < rs[i + 1]; ++k) out(i, col[k]) = values_[k];
}

bool Jacobian::same_structure(const Jacobian& o) const {
  if (is_sparse() != o.is_sparse()) return false;
  if (!pattern_) return dense_.rows() == o.dense_.rows() && dense_.cols() == o.dense_.cols();
  return pattern_ == o.pattern_ || pattern_->same_as(*o.pattern_);
}

// ---------------------------------------------------------------------------------------------
// The tracker's dense conveniences: V's storage moves into a Jacobian and back.

namespace {
struct MovedIn {
  Jacobian J;
  Mat& V;
  explicit MovedIn(Mat& v) : V(v) { J.dense().swap(V); }
  ~MovedIn() {
    if (!J.is_sparse()) J.dense().swap(V);
  }
  void check() const {
    if (J.is_sparse())
      throw Error("Tracker::start/update with a Mat V: the oracle's Jacobian is sparse; pass a scfw::Jacobian");
  }
};
}  // namespace

void Tracker::start(const Vec& y0, Rng& rng, Vec& z, Mat& V) {
  MovedIn m(V);
  start(y0, rng, z, m.J);
  m.check();
}

void Tracker::update(long k, const Vec& y, const Vec& y_prev, const Steps& steps, Rng& rng, Vec& z, Mat& V) {
  MovedIn m(V);
  update(k, y, y_prev, steps, rng, z, m.J);
  m.check();
}

// ---------------------------------------------------------------------------------------------
// A Jacobian of the oracle's kind.

Jacobian make_jacobian(const Oracle& oracle) {
  if (!oracle.capabilities().has(Capability::SparseJacobian)) return Jacobian(oracle.outputs(), oracle.dim());
  std::shared_ptr<const JacobianPattern> p = oracle.jacobian_pattern();
  if (!p) throw Error("the oracle declares a sparse Jacobian and returned no pattern");
  if (p->rows() != oracle.outputs() || p->cols() != oracle.dim())
    throw Error("the oracle's Jacobian pattern is " + str(p->rows()) + " x " + str(p->cols()) + ", expected n x d = " +
                str(oracle.outputs()) + " x " + str(oracle.dim()));
  return Jacobian(std::move(p));
}

}  // namespace scfw
