// Oracle `grouped_logistic`: the average loss of each group of a LIBSVM file's rows, for group
// distributionally robust learning (F = max over the groups, cvar, dro_chi2).
//
//   f_g(x) = 1/N_g sum_{rows r of group g} l(a_r^T x, y_r),    g = 1..n   (n outputs)
//   logistic: l(t, y) = log(1 + exp(-y t)), labels y in {-1, +1}
//   huber:    l(t, y) = h(t - y), h(s) = s^2 / 2 for |s| <= delta, delta (|s| - delta / 2) beyond
//
// The groups are the values of categorical attributes crossed with the label (grouped_data.hpp):
// "group_by": "72-73" makes a group of each (feature set in 72-73, label) pair present in the
// data. A sample draws `batch` = B rows of every group uniformly with replacement; then
//   f~_g(x; xi)     = 1/B sum_{drawn r} l(a_r^T x, y_r)
//   J~(x; xi) row g = 1/B sum_{drawn r} l'(a_r^T x, y_r) a_r^T
// are unbiased for f_g and grad f_g, and the Hessian action of the same sample is
//   row g = 1/B sum_{drawn r} l''(a_r^T x, y_r) (a_r^T v) a_r^T.
// Row g of the Jacobian's pattern holds the features present in group g's rows ("jacobian":
// "sparse", the default), so V and the GLMO's rows grow with those, not with n x d.
#include <scfw/data_file.hpp>
#include <scfw/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "grouped_data.hpp"

namespace {

using scfw::InputError;
using scfw::Mat;
using scfw::Vec;

/// xi: the indices of the rows drawn, B per group (group g at [g B, (g+1) B)).
struct RowSample final : scfw::Sample {
  std::vector<std::int64_t> rows;
};

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

class GroupedLogistic final : public scfw::Oracle {
 public:
  GroupedLogistic(const scfw::Params& p, const scfw::Context& ctx) {
    batch_ = p.get<int>("batch");
    full_ = batch_ == 0;
    huber_ = p.get<std::string>("loss") == "huber";
    delta_ = p.find<double>("delta").value_or(1.0);
    if (!huber_ && p.has("delta")) p.fail("delta", "only used with \"loss\": \"huber\"");

    std::vector<scfw::grouped::Block> blocks;
    if (p.has("group_by")) {
      std::string why;
      if (!scfw::grouped::parse_blocks(p.get<std::string>("group_by"), blocks, why)) p.fail("group_by", why);
    }
    const bool by_label = p.get<bool>("by_label");  // without blocks either: one group, every row

    const std::filesystem::path path(scfw::locate_data_file(p, "file", ctx.base_dir));
    const int features = p.find<int>("features").value_or(0);
    const scfw::libsvm::Data data = scfw::libsvm::read(path.string(), features);
    if (data.rows() == 0) throw InputError(path.string() + ": no data rows");
    const int d = features > 0 ? features : data.max_index;
    if (d < 1) throw InputError(path.string() + ": no feature appears in any row; give \"features\"");
    if (!huber_)
      for (std::size_t r = 0; r < data.rows(); ++r)
        if (data.labels[r] != 1.0 && data.labels[r] != -1.0)
          throw InputError(path.string() + ": row " + std::to_string(r + 1) + ": the label " + number_text(data.labels[r]) +
                           " is not -1 or +1 (the logistic loss needs binary labels)");

    scfw::grouped::Resample re;
    if (p.has("resample")) {
      const scfw::Params& s = p.object("resample");
      re.rows = s.get<std::int64_t>("rows");
      re.noise = s.get<double>("noise");
      re.seed = s.get<std::uint64_t>("seed");
    }
    const std::int64_t rows = re.rows > 0 ? re.rows : static_cast<std::int64_t>(data.rows());
    const double nnz_per_row = static_cast<double>(data.nnz()) / static_cast<double>(data.rows());
    const auto nnz = static_cast<std::int64_t>(std::ceil(nnz_per_row * static_cast<double>(rows) * 1.05)) + 64;
    ctx.memory.reserve(scfw::add_bytes(scfw::bytes_of({nnz, 12 + (re.noise > 0 ? 8 : 0)}), scfw::bytes_of({rows, 24})),
                       "the grouped rows of " + path.string() + " (" + std::to_string(rows) + " rows)");
    data_ = scfw::grouped::group_rows(data, d, blocks, by_label, re);
    blocks_ = blocks;
    by_label_ = by_label;

    ctx.memory.reserve(scfw::bytes_of({data_.groups(), batch_, 8}),
                       "a sample of batch rows per group (groups x batch = " + std::to_string(data_.groups()) + " x " +
                           std::to_string(batch_) + ")");
    if (p.get<std::string>("jacobian") == "sparse") build_pattern(ctx);
  }

  /// Exact f and J and the Hessian action; the Jacobian sparse unless "jacobian": "dense".
  scfw::Capabilities capabilities() const override {
    const scfw::Capabilities always = scfw::Capability::Exact | scfw::Capability::HessianAction;
    return pattern_ ? (always | scfw::Capability::SparseJacobian) : always;
  }
  std::shared_ptr<const scfw::JacobianPattern> jacobian_pattern() const override { return pattern_; }

  int dim() const override { return data_.d; }
  int outputs() const override { return data_.groups(); }
  std::vector<std::string> variable_names() const override {
    std::vector<std::string> names;
    for (int j = 1; j <= data_.d; ++j) names.push_back("feature " + std::to_string(j));
    return names;
  }
  /// "features 67+72, label -1": the block features of the group, then its label ("all rows"
  /// for the one group of neither).
  std::vector<std::string> output_names() const override {
    std::vector<std::string> names;
    for (const auto& key : data_.key) {
      std::string s = key.empty() ? "all rows" : "";
      const std::size_t nb = blocks_.size();
      if (nb > 0) {
        s = nb > 1 ? "features " : "feature ";
        for (std::size_t b = 0; b < nb; ++b) {
          if (b > 0) s += '+';
          s += number_text(key[b]);
        }
      }
      if (by_label_) {
        if (nb > 0) s += ", ";
        s += "label ";
        s += number_text(key.back());
      }
      names.push_back(s);
    }
    return names;
  }

  std::unique_ptr<scfw::Sample> make_sample() const override {
    auto s = std::make_unique<RowSample>();
    s->rows.assign(static_cast<std::size_t>(data_.groups()) * static_cast<std::size_t>(batch_), 0);
    return s;
  }

  void draw(scfw::Rng& rng, scfw::Sample& s) const override {
    auto& rows = own(s).rows;
    if (full_) return;  // the sample is the whole data set
    for (int g = 0, n = data_.groups(); g < n; ++g) {
      std::uniform_int_distribution<std::int64_t> pick(data_.group_begin[g], data_.group_begin[g + 1] - 1);
      for (int t = 0; t < batch_; ++t) rows[static_cast<std::size_t>(g) * batch_ + t] = pick(rng);
    }
  }

  void evaluate(const scfw::Sample& s, const Vec& x, Vec* f, scfw::Jacobian* J) const override {
    if (full_) return exact(x, f, J);
    check_sizes(x, f, J);
    const auto& rows = own(s).rows;
    prepare(J);
    const double w = 1.0 / batch_;
    for (int g = 0, n = data_.groups(); g < n; ++g) {
      double sum = 0.0;
      for (int t = 0; t < batch_; ++t) sum += add_loss(rows[static_cast<std::size_t>(g) * batch_ + t], g, x, w, J);
      if (f) (*f)[g] = w * sum;
    }
  }

  void exact(const Vec& x, Vec* f, scfw::Jacobian* J) const override {
    check_sizes(x, f, J);
    prepare(J);
    for (int g = 0, n = data_.groups(); g < n; ++g) {
      const std::int64_t begin = data_.group_begin[g], end = data_.group_begin[g + 1];
      const double w = 1.0 / static_cast<double>(end - begin);
      double sum = 0.0;
      for (std::int64_t r = begin; r < end; ++r) sum += add_loss(r, g, x, w, J);
      if (f) (*f)[g] = w * sum;
    }
  }

  void hessian_action(const scfw::Sample& s, const Vec& x, const Vec& v, Mat& out) const override {
    check_sizes(x, nullptr, nullptr);
    if (v.size() != data_.d || out.rows() != data_.groups() || out.cols() != data_.d)
      throw scfw::Error("grouped_logistic: hessian_action: v has size " + std::to_string(v.size()) + " and out is " +
                        std::to_string(out.rows()) + " x " + std::to_string(out.cols()) + ", expected " +
                        std::to_string(data_.d) + " and " + std::to_string(data_.groups()) + " x " + std::to_string(data_.d));
    const auto& rows = own(s).rows;
    out.setZero();
    for (int g = 0, n = data_.groups(); g < n; ++g) {
      auto one = [&](std::int64_t r, double w) {
        const double c = w * second(dot(r, x), data_.label[static_cast<std::size_t>(r)]) * dot(r, v);
        double* o = out.row(g).data();
        for (std::int64_t k = data_.row_ptr[r]; k < data_.row_ptr[r + 1]; ++k) o[data_.cols[k]] += c * data_.vals[k];
      };
      if (full_) {
        const std::int64_t begin = data_.group_begin[g], end = data_.group_begin[g + 1];
        for (std::int64_t r = begin; r < end; ++r) one(r, 1.0 / static_cast<double>(end - begin));
      } else {
        for (int t = 0; t < batch_; ++t) one(rows[static_cast<std::size_t>(g) * batch_ + t], 1.0 / batch_);
      }
    }
  }

 private:
  static const RowSample& own(const scfw::Sample& s) {
    auto* p = dynamic_cast<const RowSample*>(&s);
    if (!p) throw scfw::Error("grouped_logistic: the sample was not made by this oracle's make_sample()");
    return *p;
  }
  static RowSample& own(scfw::Sample& s) { return const_cast<RowSample&>(own(static_cast<const scfw::Sample&>(s))); }

  void check_sizes(const Vec& x, const Vec* f, const scfw::Jacobian* J) const {
    const int n = data_.groups(), d = data_.d;
    if (x.size() != d) throw scfw::Error("grouped_logistic: x has size " + std::to_string(x.size()) + ", expected " + std::to_string(d));
    if (f && f->size() != n) throw scfw::Error("grouped_logistic: f has size " + std::to_string(f->size()) + ", expected " + std::to_string(n));
    if (J && (J->rows() != n || J->cols() != d || J->is_sparse() != (pattern_ != nullptr)))
      throw scfw::Error("grouped_logistic: J is " + std::to_string(J->rows()) + " x " + std::to_string(J->cols()) +
                        (J->is_sparse() ? " sparse" : " dense") + ", expected " + std::to_string(n) + " x " + std::to_string(d) +
                        (pattern_ ? " sparse" : " dense"));
  }

  void prepare(scfw::Jacobian* J) const {
    if (J) J->set_zero();
  }

  double dot(std::int64_t r, const Vec& x) const {
    double s = 0.0;
    for (std::int64_t k = data_.row_ptr[r], e = data_.row_ptr[r + 1]; k < e; ++k) s += data_.vals[k] * x[data_.cols[k]];
    return s;
  }

  /// l(t, y); *slope = dl/dt.
  double loss(double t, double y, double* slope) const {
    if (huber_) {
      const double s = t - y;
      if (std::abs(s) <= delta_) {
        *slope = s;
        return 0.5 * s * s;
      }
      *slope = s > 0 ? delta_ : -delta_;
      return delta_ * (std::abs(s) - 0.5 * delta_);
    }
    const double m = y * t;  // log(1 + exp(-m)), without overflow either way
    const double e = std::exp(-std::abs(m));
    *slope = -y * (m >= 0 ? e / (1.0 + e) : 1.0 / (1.0 + e));
    return (m >= 0 ? 0.0 : -m) + std::log1p(e);
  }

  /// d^2 l / dt^2.
  double second(double t, double y) const {
    if (huber_) return std::abs(t - y) <= delta_ ? 1.0 : 0.0;
    const double e = std::exp(-std::abs(y * t));
    return e / ((1.0 + e) * (1.0 + e));
  }

  /// The loss of row r (of group g) at x; when J, adds w l' a_r^T to its row g.
  double add_loss(std::int64_t r, int g, const Vec& x, double w, scfw::Jacobian* J) const {
    double slope = 0.0;
    const double l = loss(dot(r, x), data_.label[static_cast<std::size_t>(r)], &slope);
    if (J) {
      const double c = w * slope;
      if (pattern_) {
        double* out = J->data();
        const int* place = place_.data() + static_cast<std::size_t>(g) * static_cast<std::size_t>(data_.d);
        for (std::int64_t k = data_.row_ptr[r], e = data_.row_ptr[r + 1]; k < e; ++k) out[place[data_.cols[k]]] += c * data_.vals[k];
      } else {
        double* out = J->dense().row(g).data();
        for (std::int64_t k = data_.row_ptr[r], e = data_.row_ptr[r + 1]; k < e; ++k) out[data_.cols[k]] += c * data_.vals[k];
      }
    }
    return l;
  }

  /// Row g of the pattern: the features present in group g's rows; place_[g d + j] is the slot
  /// of (g, j) among the pattern's values (-1 off the pattern).
  void build_pattern(const scfw::Context& ctx) {
    const int n = data_.groups(), d = data_.d;
    ctx.memory.reserve(scfw::bytes_of({n, d, 4 + 4}), "the sparse Jacobian's pattern and places (groups x features = " +
                                                          std::to_string(n) + " x " + std::to_string(d) + ")");
    place_.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(d), -1);
    std::vector<std::int64_t> row_start{0};
    std::vector<int> col;
    std::vector<char> seen(static_cast<std::size_t>(d));
    for (int g = 0; g < n; ++g) {
      std::fill(seen.begin(), seen.end(), 0);
      for (std::int64_t k = data_.row_ptr[data_.group_begin[g]]; k < data_.row_ptr[data_.group_begin[g + 1]]; ++k)
        seen[static_cast<std::size_t>(data_.cols[k])] = 1;
      for (int j = 0; j < d; ++j)
        if (seen[static_cast<std::size_t>(j)]) {
          place_[static_cast<std::size_t>(g) * d + j] = static_cast<int>(col.size());
          col.push_back(j);
        }
      row_start.push_back(static_cast<std::int64_t>(col.size()));
    }
    pattern_ = std::make_shared<const scfw::JacobianPattern>(n, d, std::move(row_start), std::move(col));
  }

  scfw::grouped::GroupedRows data_;
  std::vector<scfw::grouped::Block> blocks_;
  bool by_label_ = true;
  int batch_ = 1;
  bool full_ = false;
  bool huber_ = false;
  double delta_ = 1.0;
  std::shared_ptr<const scfw::JacobianPattern> pattern_;
  std::vector<int> place_;
};

void register_components(scfw::Registrar& r) {
  using scfw::ParamSpec;
  r.add<GroupedLogistic>(
      "grouped_logistic",
      "f_g(x) = 1/N_g sum_{r in group g} l(a_r^T x, y_r), logistic or Huber loss, groups = attribute values x label "
      "of a LIBSVM file (group DRO); a sample draws `batch` rows per group",
      {
          ParamSpec::string("file", "a LIBSVM file (relative to the problem file)").require(),
          ParamSpec::integer("features", "number of features d (default: the largest index in the data)").at_least(1),
          ParamSpec::string("group_by",
                            "categorical attributes as blocks of 1-based feature indices with one feature set per row, "
                            "e.g. \"67-71,72-73\"; a group per combination present (none: groups by label only)"),
          ParamSpec::boolean("by_label", "cross the groups with the label (false and no group_by: one group of all rows, plain ERM)").def(true),
          ParamSpec::choice("loss", {"logistic", "huber"},
                            "\"logistic\": log(1 + exp(-y a^T x)), labels -1/+1; \"huber\": Huber loss of a^T x - y")
              .def("logistic"),
          ParamSpec::number("delta", "the Huber loss's threshold (default 1)").positive(),
          ParamSpec::integer("batch", "rows drawn per group for one sample, uniformly with replacement; 0 = the whole data set (exact oracle)")
              .at_least(0)
              .def(1),
          ParamSpec::choice("jacobian", {"dense", "sparse"},
                            "\"sparse\": row g of the Jacobian holds the features present in group g's rows; \"dense\": n x d")
              .def("sparse"),
          ParamSpec::object(
              "resample",
              {
                  ParamSpec::integer("rows", "rows drawn uniformly with replacement from the file").at_least(1).def(100000),
                  ParamSpec::number("noise", "standard deviation of the Gaussian noise added to each stored value outside the group_by blocks")
                      .nonnegative()
                      .def(0.0),
                  ParamSpec::integer("seed", "data seed, independent of the run seed").nonnegative().def(1),
              },
              "a larger data set drawn from the file's rows, grouped the same way"),
      });
}

}  // namespace

SCFW_PLUGIN("grouped_logistic", SCFW_PLUGIN_VERSION, register_components)
