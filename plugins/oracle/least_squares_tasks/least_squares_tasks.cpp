// Oracle `least_squares_tasks`: the paper's Task 1 (Section 6), robust minimax sparse regression.
//
//   f_i(x) = 1/(2 N_i) sum_{j=1}^{N_i} (a_ij^T x - b_ij)^2,    i = 1..m   (n = m outputs)
//
// A sample xi draws `batch` = B rows of every task uniformly with replacement; then
//   f~_i(x; xi)     = 1/(2B) sum_{drawn j} (a_ij^T x - b_ij)^2
//   J~(x; xi) row i = 1/B    sum_{drawn j} (a_ij^T x - b_ij) a_ij^T
// are unbiased for f_i and grad f_i. Since f_i is quadratic, the Hessian action of the same
// sample is row i = 1/B sum_{drawn j} (a_ij^T v) a_ij^T, independent of x.
//
// The rows are stored sparse (CSR), task by task, so a sample costs O(nnz of the drawn rows)
// plus the n x d Jacobian it writes, and the exact pass costs O(nnz). Arrays the host passes
// ("arrays": a dense or CSR A_i and b_i per task, host_arrays.hpp) are not stored: the loops read
// them where they are (TaskView), and the memory account holds nothing for them.
//
// "jacobian": "sparse" declares the Jacobian's pattern (jacobian.hpp): row i holds the features
// present in task i's rows, so V, the tracker's buffers and the GLMO's u-rows grow with those
// and not with n x d (a LIBSVM file is sparse). The values are the dense ones at the same places,
// summed in the same order.
#include <scfw/data_file.hpp>
#include <scfw/host_arrays.hpp>
#include <scfw/plugin.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "libsvm.hpp"
#include "libsvm_shard.hpp"
#include "scfw/byte_range.hpp"

namespace {

using scfw::Context;
using scfw::InputError;
using scfw::Mat;
using scfw::Params;
using scfw::Rng;
using scfw::Vec;

/// The m tasks' rows, CSR, task i owning rows task_begin[i] .. task_begin[i+1]-1.
struct TaskRows {
  int d = 0;
  std::vector<std::int64_t> task_begin{0};
  std::vector<std::int64_t> row_ptr{0};
  std::vector<int> cols;
  std::vector<double> vals;
  std::vector<double> b;

  int tasks() const { return static_cast<int>(task_begin.size()) - 1; }
  void push_row(const int* c, const double* v, std::int64_t count, double label) {
    cols.insert(cols.end(), c, c + count);
    vals.insert(vals.end(), v, v + count);
    row_ptr.push_back(static_cast<std::int64_t>(cols.size()));
    b.push_back(label);
  }
  void end_task() { task_begin.push_back(static_cast<std::int64_t>(b.size())); }
};

// ---------------------------------------------------------------------------------------------
// Synthetic data (the paper's Task 1 setting). With g = Rng(seed), in this order:
//   1. ground truth x*: `sparsity` distinct coordinates chosen by a partial Fisher-Yates shuffle
//      (std::uniform_int_distribution), each with a random sign (std::bernoulli_distribution(0.5))
//      and magnitude U(0.5, 1.5); then x* is rescaled so that ||x*||_1 = 4, inside the radius-5
//      l1 ball of Task 1.
//   2. for task i = 0..m-1, for each of its `rows_per_task` rows: a ~ N(0, I_d) (d draws of one
//      std::normal_distribution), then b = a^T x* + s_i * t, t ~ Student-t with nu_i degrees of
//      freedom (std::student_t_distribution), where
//          nu_i = 10 - 7.5 * i / (m - 1)      (10 for the first task down to 2.5 for the last)
//          s_i  = noise * (1 + i / (m - 1))   (noise for the first task up to 2 * noise)
//      (m = 1: nu = 10, s = noise). So later tasks are noisier and heavier-tailed: task m-1's
//      noise has finite moments only of order < 2.5.
// The data seed is independent of the run seed: the same `synthetic` block gives the same data.
TaskRows make_synthetic(const Params& s, const scfw::Memory& memory) {
  // Ranges and defaults as declared in register_components.
  const std::int64_t m = s.get<int>("tasks"), d = s.get<int>("dim"), rows = s.get<std::int64_t>("rows_per_task"),
                     sparsity = s.get<std::int64_t>("sparsity");
  const auto seed = s.get<std::uint64_t>("seed");
  const double noise = s.get<double>("noise");
  if (sparsity > d) s.fail("sparsity", "expected at most dim = " + std::to_string(d) + " non-zeros, got " + std::to_string(sparsity));
  if (static_cast<double>(m) * rows * d > 2e9) s.fail("rows_per_task", "tasks * rows_per_task * dim is too large (over 2e9 stored values)");
  // Held below: x*, the shuffled indices, all_cols and a (d each), then m * rows dense rows
  // (column index + value) with their labels and row pointers.
  memory.reserve(scfw::add_bytes(scfw::bytes_of({m, rows, d, 12}), scfw::add_bytes(scfw::bytes_of({d, 24}), scfw::bytes_of({m, rows, 16}))),
                 "the synthetic data (tasks x rows_per_task x dim = " + std::to_string(m) + " x " + std::to_string(rows) +
                     " x " + std::to_string(d) + ")");

  Rng g(seed);
  Vec xstar = Vec::Zero(d);
  std::vector<int> idx(static_cast<std::size_t>(d));
  std::iota(idx.begin(), idx.end(), 0);
  std::bernoulli_distribution coin(0.5);
  std::uniform_real_distribution<double> magnitude(0.5, 1.5);
  for (std::int64_t j = 0; j < sparsity; ++j) {
    std::uniform_int_distribution<std::int64_t> pick(j, d - 1);
    std::swap(idx[j], idx[pick(g)]);
    const double sign = coin(g) ? 1.0 : -1.0;
    xstar[idx[j]] = sign * magnitude(g);
  }
  if (sparsity > 0) xstar *= 4.0 / xstar.lpNorm<1>();

  TaskRows t;
  t.d = static_cast<int>(d);
  t.cols.reserve(static_cast<std::size_t>(m * rows * d));
  t.vals.reserve(static_cast<std::size_t>(m * rows * d));
  std::vector<int> all_cols(static_cast<std::size_t>(d));
  std::iota(all_cols.begin(), all_cols.end(), 0);
  std::normal_distribution<double> gauss(0.0, 1.0);
  Vec a(d);
  for (std::int64_t i = 0; i < m; ++i) {
    const double frac = m > 1 ? static_cast<double>(i) / static_cast<double>(m - 1) : 0.0;
    std::student_t_distribution<double> student(10.0 - 7.5 * frac);
    const double scale = noise * (1.0 + frac);
    for (std::int64_t j = 0; j < rows; ++j) {
      for (std::int64_t k = 0; k < d; ++k) a[k] = gauss(g);
      const double bj = a.dot(xstar) + scale * student(g);
      t.push_row(all_cols.data(), a.data(), d, bj);
    }
    t.end_task();
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// LIBSVM data.

int checked_dim(const std::string& what, int features, int max_index) {
  const int d = features > 0 ? features : max_index;
  if (d < 1) throw InputError(what + ": no feature appears in any row; give \"features\"");
  return d;
}

/// `file` + `tasks`: one file split into label-stratified tasks (libsvm::stratified_split).
TaskRows from_file(const Params& p, const Context& ctx) {
  if (!p.has("tasks")) p.fail("tasks", "\"file\" needs \"tasks\", the number of subsets to split it into");
  const int m = p.get<int>("tasks");
  const int features = p.find<int>("features").value_or(0);  // 0: the largest index in the data
  const std::string path = scfw::locate_data_file(p, "file", ctx.base_dir);
  const scfw::libsvm::Data data = scfw::libsvm::read(path, features);
  if (data.rows() == 0) throw InputError(path + ": no data rows");
  if (static_cast<std::size_t>(m) > data.rows()) {
    throw InputError(path + ": task " + std::to_string(data.rows() + 1) + " of " + std::to_string(m) +
                     " has no rows (the file has " + std::to_string(data.rows()) + " rows; use at most that many tasks)");
  }
  TaskRows t;
  t.d = checked_dim(path, features, data.max_index);
  ctx.memory.reserve(scfw::add_bytes(scfw::bytes_of({static_cast<std::int64_t>(data.nnz()), 12}),
                                     scfw::bytes_of({static_cast<std::int64_t>(data.rows()), 16})),
                     "the rows of " + path + " (" + std::to_string(data.rows()) + " rows, " + std::to_string(data.nnz()) +
                         " non-zeros)");
  t.cols.reserve(data.nnz());
  t.vals.reserve(data.nnz());
  for (const auto& rows : scfw::libsvm::stratified_split(data.labels, m)) {
    for (std::size_t r : rows) {
      const std::int64_t b = data.row_ptr[r], e = data.row_ptr[r + 1];
      t.push_row(data.cols.data() + b, data.vals.data() + b, e - b, data.labels[r]);
    }
    t.end_task();
  }
  return t;
}

struct Ownership;
TaskRows from_files_shard(const Params& p, const Context& ctx, const std::vector<std::string>& paths, Ownership& own);

/// The items of the comma-separated list in the string parameter `key` (`what`: "path",
/// "name"), each trimmed; an empty item fails at `key`.
std::vector<std::string> split_list(const Params& p, const std::string& key, const std::string& what) {
  std::vector<std::string> items;
  const std::string list = p.get<std::string>(key);
  std::size_t start = 0;
  while (true) {
    std::size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? std::string() : item.substr(b, e - b + 1);
    if (item.empty()) p.fail(key, "empty " + what + " in the comma-separated list \"" + scfw::excerpt(list) + "\"");
    items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

/// Task i's rows as the host passed them (`arrays` + `labels`), read in place: nothing of them is
/// copied. A dense A_i is rows x d, row-major; a CSR A_i has 4- or 8-byte indices.
struct TaskView {
  enum class Kind { Dense, Csr32, Csr64 };
  Kind kind = Kind::Dense;
  const double* values = nullptr;  // dense: the rows x d matrix; CSR: the stored values
  const void* indptr = nullptr;    // CSR only
  const void* indices = nullptr;
  const double* labels = nullptr;  // b_i, one per row
  std::int64_t rows = 0;
  std::int64_t stored = 0;      // entries: rows x d (dense), nnz (CSR)
  std::int64_t slot_begin = 0;  // CSR with a sparse Jacobian: where its entries' slots start
};

/// `arrays` + `labels`: task i's rows A_i (a dense matrix or CSR) and its labels b_i (a vector),
/// arrays the host passes by name, one of each per task. They are read where they are (views);
/// `t` gets only d and the tasks' row offsets (t.task_begin), none of the rows. The runs have the
/// bits of the same rows in LIBSVM files (a dense row's dot products and Jacobian rows are the
/// sums of its non-zeros: adding a zero product changes no bit).
std::vector<TaskView> view_arrays(const Params& p, const Context& ctx, TaskRows& t) {
  if (!p.has("labels")) p.fail("arrays", "\"arrays\" needs \"labels\", the names of the tasks' label vectors");
  if (p.has("features")) p.fail("features", "only used with \"file\" or \"files\"; the arrays' columns are the features");
  const std::vector<std::string> a_names = split_list(p, "arrays", "name"), b_names = split_list(p, "labels", "name");
  if (b_names.size() != a_names.size())
    p.fail("labels", "\"labels\" names " + std::to_string(b_names.size()) + " vector(s) and \"arrays\" " +
                         std::to_string(a_names.size()) + " matrices: one of each per task");
  if (const auto tasks = p.find<std::int64_t>("tasks"); tasks && *tasks != static_cast<std::int64_t>(a_names.size()))
    p.fail("tasks", "\"arrays\" names " + std::to_string(a_names.size()) + " matrices (one per task), but tasks = " +
                        std::to_string(*tasks));
  std::vector<const scfw::HostArray*> A, b;
  for (std::size_t i = 0; i < a_names.size(); ++i) {
    A.push_back(&scfw::host_array(p, "arrays", a_names[i], ctx));
    b.push_back(&scfw::host_array(p, "labels", b_names[i], ctx));
    const scfw::HostArray& a = *A.back();
    if (a.is_dense() && a.dense.vector)
      throw InputError(a.where() + ": expected the rows of task " + std::to_string(i + 1) + " (a matrix, dense or CSR), got " +
                       a.describe());
    const std::int64_t rows = a.is_dense() ? a.dense.rows : a.csr.rows, cols = a.is_dense() ? a.dense.cols : a.csr.cols;
    const std::int64_t first_cols = A.front()->is_dense() ? A.front()->dense.cols : A.front()->csr.cols;
    if (rows == 0) throw InputError(a.where() + ": no rows (each array in \"arrays\" is one task)");
    if (cols != first_cols)
      throw InputError(a.where() + ": " + std::to_string(cols) + " columns, but " + A.front()->where() + " has " +
                       std::to_string(first_cols) + " (every task has the same features)");
    if (cols < 1 || cols > std::numeric_limits<int>::max())
      throw InputError(a.where() + ": " + std::to_string(cols) + " columns (expected 1 to " +
                       std::to_string(std::numeric_limits<int>::max()) + ")");
    const scfw::HostArray& l = *b.back();
    if (!l.is_dense() || !l.dense.vector || l.dense.rows != rows)
      throw InputError(l.where() + ": expected a vector of " + std::to_string(rows) + " labels (one per row of " + a.where() +
                       "), got " + l.describe());
  }
  t.d = static_cast<int>(A.front()->is_dense() ? A.front()->dense.cols : A.front()->csr.cols);
  std::vector<TaskView> views;
  for (std::size_t i = 0; i < A.size(); ++i) {
    const scfw::HostArray& a = *A[i];
    TaskView v;
    v.labels = b[i]->dense.data;
    if (a.is_dense()) {
      v.values = a.dense.data;
      v.rows = a.dense.rows;
      v.stored = a.dense.rows * a.dense.cols;
    } else {
      v.kind = a.csr.index_bytes == 4 ? TaskView::Kind::Csr32 : TaskView::Kind::Csr64;
      v.values = a.csr.values;
      v.indptr = a.csr.indptr;
      v.indices = a.csr.indices;
      v.rows = a.csr.rows;
      v.stored = a.csr.nnz();
    }
    views.push_back(v);
    t.task_begin.push_back(t.task_begin.back() + v.rows);
  }
  return views;
}

/// `files`: comma-separated paths, one file per task (over ranks: from_files_shard).
TaskRows from_files(const Params& p, const Context& ctx, Ownership* own) {
  std::vector<std::string> paths = split_list(p, "files", "path");
  // Each path once the whole list is read, so that an empty entry is reported before a missing file.
  for (std::string& path : paths) path = scfw::locate_data_file(p, "files", path, ctx.base_dir);
  if (const auto tasks = p.find<std::int64_t>("tasks"); tasks && *tasks != static_cast<std::int64_t>(paths.size())) {
    p.fail("tasks", "\"files\" lists " + std::to_string(paths.size()) + " files (one per task), but tasks = " +
                        std::to_string(*tasks));
  }
  if (ctx.shard) return from_files_shard(p, ctx, paths, *own);
  const int features = p.find<int>("features").value_or(0);  // 0: the largest index in the data
  std::vector<scfw::libsvm::Data> data;
  int max_index = 0;
  for (const auto& path : paths) {
    data.push_back(scfw::libsvm::read(path, features));
    if (data.back().rows() == 0) throw InputError(path + ": no data rows (each file in \"files\" is one task)");
    max_index = std::max(max_index, data.back().max_index);
  }
  TaskRows t;
  t.d = checked_dim(paths.front(), features, max_index);
  std::int64_t all_rows = 0, all_nnz = 0;
  for (const auto& f : data) {
    all_rows += static_cast<std::int64_t>(f.rows());
    all_nnz += static_cast<std::int64_t>(f.nnz());
  }
  ctx.memory.reserve(scfw::add_bytes(scfw::bytes_of({all_nnz, 12}), scfw::bytes_of({all_rows, 16})),
                     "the rows of the " + std::to_string(data.size()) + " files (" + std::to_string(all_rows) + " rows, " +
                         std::to_string(all_nnz) + " non-zeros)");
  for (const auto& f : data) {
    for (std::size_t r = 0; r < f.rows(); ++r) {
      const std::int64_t b = f.row_ptr[r], e = f.row_ptr[r + 1];
      t.push_row(f.cols.data() + b, f.vals.data() + b, e - b, f.labels[r]);
    }
    t.end_task();
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// LIBSVM data over MPI ranks (Context::shard, docs/scaling.md): each rank reads the lines of its
// byte range of each file and keeps the rows it owns; the ranks exchange line counts (so that
// messages name the file's line), row counts, the largest feature index and label counts. A bad
// line in any rank's share fails every rank with that line's message (Shard::agree).

/// Where this rank's rows sit among all ranks' rows of each task: task i's rows over the ranks
/// are global rows task_begin[i] .. task_begin[i+1]-1, and this rank holds those from
/// task_begin[i] + owned_begin[i] on (as many as its TaskRows has in task i).
struct Ownership {
  std::vector<std::int64_t> task_begin{0};
  std::vector<std::int64_t> owned_begin;
};

/// This rank's lines of `path`, parsed; every rank throws when any rank's share is bad.
scfw::libsvm::Data read_share(const std::string& path, int features, const scfw::Shard& shard) {
  scfw::libsvm::Lines lines;
  std::exception_ptr error;
  try {
    lines.text = scfw::read_line_share(path, shard.rank(), shard.size());
  } catch (...) {
    error = std::current_exception();
  }
  shard.agree(error);
  const std::int64_t mine[] = {scfw::count_lines(lines.text)};
  const auto counts = shard.all_gather(mine);
  for (int r = 0; r < shard.rank(); ++r) lines.first_line += counts[static_cast<std::size_t>(r)][0];
  scfw::libsvm::Data data;
  try {
    data = scfw::libsvm::read(path, features, &lines);
  } catch (...) {
    error = std::current_exception();
  }
  shard.agree(error);
  return data;
}

/// `file` + `tasks` over ranks: the label-stratified split of the whole file (libsvm_shard.hpp).
TaskRows from_file_shard(const Params& p, const Context& ctx, Ownership& own) {
  if (!p.has("tasks")) p.fail("tasks", "\"file\" needs \"tasks\", the number of subsets to split it into");
  const scfw::Shard& shard = *ctx.shard;
  const int m = p.get<int>("tasks");
  const int features = p.find<int>("features").value_or(0);
  const std::string path = scfw::locate_data_file(p, "file", ctx.base_dir);
  const scfw::libsvm::Data data = read_share(path, features, shard);
  std::vector<std::int64_t> mine = {static_cast<std::int64_t>(data.rows()), data.max_index};
  const std::vector<std::int64_t> labels = scfw::libsvm::label_counts(data.labels);
  mine.insert(mine.end(), labels.begin(), labels.end());
  auto all = shard.all_gather(mine);
  std::int64_t rows = 0;
  int max_index = 0;
  for (auto& r : all) {
    rows += r[0];
    max_index = std::max<int>(max_index, static_cast<int>(r[1]));
    r.erase(r.begin(), r.begin() + 2);  // the label counts remain
  }
  if (rows == 0) throw InputError(path + ": no data rows");
  if (m > rows) {
    throw InputError(path + ": task " + std::to_string(rows + 1) + " of " + std::to_string(m) +
                     " has no rows (the file has " + std::to_string(rows) + " rows; use at most that many tasks)");
  }
  const scfw::libsvm::ShardSplit split = scfw::libsvm::shard_split(data.labels, m, all, shard.rank());
  TaskRows t;
  t.d = checked_dim(path, features, max_index);
  t.cols.reserve(data.nnz());
  t.vals.reserve(data.nnz());
  for (int i = 0; i < m; ++i) {
    for (std::size_t r = 0; r < data.rows(); ++r) {
      if (split.task_of[r] != i) continue;
      const std::int64_t b = data.row_ptr[r], e = data.row_ptr[r + 1];
      t.push_row(data.cols.data() + b, data.vals.data() + b, e - b, data.labels[r]);
    }
    t.end_task();
    own.task_begin.push_back(own.task_begin.back() + split.task_rows[static_cast<std::size_t>(i)]);
  }
  own.owned_begin = split.owned_begin;
  return t;
}

/// `files` over ranks: file i is task i; this rank holds the rows of its share of each file.
TaskRows from_files_shard(const Params& p, const Context& ctx, const std::vector<std::string>& paths, Ownership& own) {
  const scfw::Shard& shard = *ctx.shard;
  const int features = p.find<int>("features").value_or(0);
  TaskRows t;
  int max_index = 0;
  for (const auto& path : paths) {
    const scfw::libsvm::Data data = read_share(path, features, shard);
    const std::int64_t mine[] = {static_cast<std::int64_t>(data.rows()), data.max_index};
    const auto all = shard.all_gather(mine);
    std::int64_t rows = 0, before = 0;
    for (std::size_t r = 0; r < all.size(); ++r) {
      rows += all[r][0];
      if (static_cast<int>(r) < shard.rank()) before += all[r][0];
      max_index = std::max<int>(max_index, static_cast<int>(all[r][1]));
    }
    if (rows == 0) throw InputError(path + ": no data rows (each file in \"files\" is one task)");
    for (std::size_t r = 0; r < data.rows(); ++r) {
      const std::int64_t b = data.row_ptr[r], e = data.row_ptr[r + 1];
      t.push_row(data.cols.data() + b, data.vals.data() + b, e - b, data.labels[r]);
    }
    t.end_task();
    own.task_begin.push_back(own.task_begin.back() + rows);
    own.owned_begin.push_back(before);
  }
  t.d = checked_dim(paths.front(), features, max_index);
  return t;
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// The rows as the evaluation loops read them. Each kind below answers the same calls on a stored
// row r (task i's rows are r = task_begin[i] .. task_begin[i+1]-1): dot(r, x) = a_r^T x,
// axpy(r, s, Ji) (a dense Jacobian row += s a_r^T), axpy_values(r, s, J) (the sparse Jacobian's
// values += s a_r^T, at the pattern's places) and label(r) = b_r. The loops are templates over a
// source of them (HeldSource, ViewSource): the oracle's own rows take one kind for every task,
// the host's arrays one per task, chosen once per task, so that no entry pays for the choice.

/// The oracle's own rows (TaskRows: synthetic data, LIBSVM files).
struct HeldRows {
  const TaskRows* t = nullptr;
  const std::int64_t* slot = nullptr;  // stored entry -> place in the pattern's values (sparse J)
  bool dense = false;                  // every row holds all d features in order: no column read

  double dot(std::int64_t r, const double* x) const {
    double s = 0.0;
    if (dense) {  // the same sum in the same order, without the column indices
      const double* a = t->vals.data() + t->row_ptr[r];
      for (int k = 0; k < t->d; ++k) s += a[k] * x[k];
      return s;
    }
    const double* v = t->vals.data();
    const int* c = t->cols.data();
    for (std::int64_t k = t->row_ptr[r], e = t->row_ptr[r + 1]; k < e; ++k) s += v[k] * x[c[k]];
    return s;
  }
  void axpy(std::int64_t r, double scale, double* Ji) const {
    if (dense) {
      const double* a = t->vals.data() + t->row_ptr[r];
      for (int k = 0; k < t->d; ++k) Ji[k] += scale * a[k];
      return;
    }
    const double* v = t->vals.data();
    const int* c = t->cols.data();
    for (std::int64_t k = t->row_ptr[r], e = t->row_ptr[r + 1]; k < e; ++k) Ji[c[k]] += scale * v[k];
  }
  void axpy_values(std::int64_t r, double scale, double* J) const {
    const double* v = t->vals.data();
    for (std::int64_t k = t->row_ptr[r], e = t->row_ptr[r + 1]; k < e; ++k) J[slot[k]] += scale * v[k];
  }
  double label(std::int64_t r) const { return t->b[static_cast<std::size_t>(r)]; }
};

/// A dense A_i of the host, rows x d, row-major. Its sparse Jacobian rows hold the task's
/// pattern (the columns where some row of A_i is non-zero): axpy_values reads a_r at those.
struct DenseRows {
  const double* a = nullptr;
  const double* b = nullptr;
  std::int64_t first = 0;  // the task's first stored row
  int d = 0;
  const int* pcol = nullptr;  // the pattern's columns of the task, pcount of them
  std::int64_t pstart = 0, pcount = 0;  // their place among the pattern's values

  const double* row(std::int64_t r) const { return a + (r - first) * d; }
  double dot(std::int64_t r, const double* x) const {
    const double* p = row(r);
    double s = 0.0;
    for (int k = 0; k < d; ++k) s += p[k] * x[k];
    return s;
  }
  void axpy(std::int64_t r, double scale, double* Ji) const {
    const double* p = row(r);
    for (int k = 0; k < d; ++k) Ji[k] += scale * p[k];
  }
  void axpy_values(std::int64_t r, double scale, double* J) const {
    const double* p = row(r);
    double* Jr = J + pstart;
    for (std::int64_t q = 0; q < pcount; ++q) Jr[q] += scale * p[pcol[q]];
  }
  double label(std::int64_t r) const { return b[r - first]; }
};

/// A CSR A_i of the host, its indptr and indices of type I (std::int32_t or std::int64_t).
template <class I>
struct CsrRows {
  const I* ptr = nullptr;
  const I* idx = nullptr;
  const double* v = nullptr;
  const double* b = nullptr;
  std::int64_t first = 0;
  const std::int64_t* slot = nullptr;  // the task's entries' places in the pattern's values

  double dot(std::int64_t r, const double* x) const {
    const std::int64_t l = r - first;
    double s = 0.0;
    for (std::int64_t k = ptr[l], e = ptr[l + 1]; k < e; ++k) s += v[k] * x[idx[k]];
    return s;
  }
  void axpy(std::int64_t r, double scale, double* Ji) const {
    const std::int64_t l = r - first;
    for (std::int64_t k = ptr[l], e = ptr[l + 1]; k < e; ++k) Ji[idx[k]] += scale * v[k];
  }
  void axpy_values(std::int64_t r, double scale, double* J) const {
    const std::int64_t l = r - first;
    for (std::int64_t k = ptr[l], e = ptr[l + 1]; k < e; ++k) J[slot[k]] += scale * v[k];
  }
  double label(std::int64_t r) const { return b[r - first]; }
};

/// Every task in the oracle's TaskRows.
struct HeldSource {
  HeldRows rows;
  template <class Fn>
  void task(int, Fn&& fn) const {
    fn(rows);
  }
  /// Row r's values (only when every row is dense).
  const double* dense_row(int, std::int64_t r) const { return rows.t->vals.data() + rows.t->row_ptr[r]; }
  double label(int, std::int64_t r) const { return rows.label(r); }
};

/// The host's arrays, task i read as its own kind.
struct ViewSource {
  const TaskView* views = nullptr;
  const std::int64_t* task_begin = nullptr;
  int d = 0;
  const std::int64_t* slot = nullptr;        // the CSR tasks' slots (sparse J), else null
  const int* pcol = nullptr;                 // the pattern's columns (sparse J), else null
  const std::int64_t* row_start = nullptr;   // and its rows' starts

  template <class Fn>
  void task(int i, Fn&& fn) const {
    const TaskView& v = views[i];
    const std::int64_t first = task_begin[i];
    switch (v.kind) {
      case TaskView::Kind::Dense: {
        DenseRows rows;
        rows.a = v.values;
        rows.b = v.labels;
        rows.first = first;
        rows.d = d;
        if (pcol) {
          rows.pstart = row_start[i];
          rows.pcount = row_start[i + 1] - row_start[i];
          rows.pcol = pcol + row_start[i];
        }
        return fn(rows);
      }
      case TaskView::Kind::Csr32:
        return fn(CsrRows<std::int32_t>{static_cast<const std::int32_t*>(v.indptr), static_cast<const std::int32_t*>(v.indices),
                                        v.values, v.labels, first, slot ? slot + v.slot_begin : nullptr});
      case TaskView::Kind::Csr64:
        return fn(CsrRows<std::int64_t>{static_cast<const std::int64_t*>(v.indptr), static_cast<const std::int64_t*>(v.indices),
                                        v.values, v.labels, first, slot ? slot + v.slot_begin : nullptr});
    }
  }
  /// Row r's values (only when every task is dense).
  const double* dense_row(int i, std::int64_t r) const { return views[i].values + (r - task_begin[i]) * d; }
  double label(int i, std::int64_t r) const { return views[i].labels[r - task_begin[i]]; }
};

/// xi: the global indices of the rows drawn, B per task (task i at [i B, (i+1) B)).
struct RowSample final : scfw::Sample {
  std::vector<std::int64_t> rows;
};

class LeastSquaresTasks final : public scfw::Oracle {
 public:
  LeastSquaresTasks(const Params& p, const Context& ctx) {
    // batch 0: every sample is the whole data set, an exact oracle (sigma_f = sigma_g = 0), the
    // setting of Corollary 1 (deterministic interpolation).
    batch_ = p.get<int>("batch");
    full_ = batch_ == 0;

    const bool synthetic = p.has("synthetic"), file = p.has("file"), files = p.has("files"), arrays = p.has("arrays");
    if (synthetic + file + files + arrays == 0)
      p.fail("synthetic", "no data source: give one of \"synthetic\", \"file\" (with \"tasks\"), \"files\" or \"arrays\"");
    if (synthetic + file + files + arrays > 1) {
      const std::string second = arrays ? "arrays" : files ? "files" : "file";
      p.fail(second, "give only one data source of \"synthetic\", \"file\", \"files\" and \"arrays\"");
    }
    if (!arrays && p.has("labels")) p.fail("labels", "only used with \"arrays\"");
    if (synthetic) {
      if (p.has("tasks")) p.fail("tasks", "only used with \"file\"; the generator takes synthetic.tasks");
      if (p.has("features")) p.fail("features", "only used with \"file\" or \"files\"; the generator takes synthetic.dim");
      data_ = make_synthetic(p.object("synthetic"), ctx.memory);
    } else if (file) {
      data_ = ctx.shard ? from_file_shard(p, ctx, own_) : from_file(p, ctx);
    } else if (arrays) {
      views_ = view_arrays(p, ctx, data_);
    } else {
      data_ = from_files(p, ctx, &own_);
    }
    from_libsvm_ = file || files;
    // make_sample(): B row indices per task.
    ctx.memory.reserve(scfw::bytes_of({data_.tasks(), batch_, 8}),
                       "a sample of batch rows per task (tasks x batch = " + std::to_string(data_.tasks()) + " x " +
                           std::to_string(batch_) + ")");
    // Synthetic data is generated whole on every rank (not sharded); files are read by share.
    sharded_ = ctx.shard && (file || files);
    if (!sharded_) {
      own_.task_begin = data_.task_begin;
      own_.owned_begin.assign(static_cast<std::size_t>(data_.tasks()), 0);
    }
    shift_.resize(static_cast<std::size_t>(data_.tasks()));
    for (int i = 0; i < data_.tasks(); ++i) shift_[i] = own_.task_begin[i] + own_.owned_begin[i] - data_.task_begin[i];
    if (p.get<std::string>("jacobian") == "sparse") {
      if (arrays)
        build_view_pattern(ctx);
      else
        build_pattern(ctx);
    }
    dense_rows_ = arrays ? std::all_of(views_.begin(), views_.end(), [](const TaskView& v) { return v.kind == TaskView::Kind::Dense; })
                         : every_row_dense(data_);
  }

  /// Exact f and J and the Hessian action always; over MPI ranks (file data) the outputs are sums
  /// over this rank's rows (shard.hpp); with "jacobian": "sparse", J in the features' pattern.
  scfw::Capabilities capabilities() const override {
    scfw::Capabilities c = scfw::Capability::Exact | scfw::Capability::HessianAction;
    if (sharded_) c |= scfw::Capability::Sharded;
    if (pattern_) c |= scfw::Capability::SparseJacobian;
    return c;
  }

  std::shared_ptr<const scfw::JacobianPattern> jacobian_pattern() const override { return pattern_; }

  // J of the oracle's kind: the pattern's values, or the dense n x d matrix.
  void evaluate(const scfw::Sample& s, const Vec& x, Vec* f, scfw::Jacobian* J) const override {
    with_rows([&](const auto& src) {
      if (J && J->is_sparse())
        evaluate_values(src, s, x, f, J->data());
      else
        evaluate_dense(src, s, x, f, J ? &J->dense() : nullptr);
    });
  }

  void exact(const Vec& x, Vec* f, scfw::Jacobian* J) const override {
    with_rows([&](const auto& src) {
      if (J && J->is_sparse())
        exact_values(src, x, f, J->data());
      else
        exact_dense(src, x, f, J ? &J->dense() : nullptr);
    });
  }

  int dim() const override { return data_.d; }
  int outputs() const override { return data_.tasks(); }
  /// LIBSVM data: "feature 1", ... (the file's 1-based feature indices). Synthetic data: none.
  std::vector<std::string> variable_names() const override {
    std::vector<std::string> names;
    if (from_libsvm_)
      for (int j = 1; j <= data_.d; ++j) names.push_back("feature " + std::to_string(j));
    return names;
  }
  std::vector<std::string> output_names() const override {
    std::vector<std::string> names;
    for (int i = 1; i <= data_.tasks(); ++i) names.push_back("task " + std::to_string(i));
    return names;
  }

  std::unique_ptr<scfw::Sample> make_sample() const override {
    auto s = std::make_unique<RowSample>();
    s->rows.assign(static_cast<std::size_t>(data_.tasks()) * batch_, 0);
    return s;
  }

  void draw(Rng& rng, scfw::Sample& s) const override {
    auto& rows = own(s).rows;
    if (full_) return;  // nothing to draw: the sample is the data set
    for (int i = 0, m = data_.tasks(); i < m; ++i) {
      std::uniform_int_distribution<std::int64_t> pick(own_.task_begin[i], own_.task_begin[i + 1] - 1);
      for (int t = 0; t < batch_; ++t) rows[static_cast<std::size_t>(i) * batch_ + t] = pick(rng);
    }
  }

  void hessian_action(const scfw::Sample& s, const Vec& x, const Vec& v, Mat& out) const override {
    check_sizes(x, nullptr, &out);
    if (v.size() != data_.d) throw scfw::Error("least_squares_tasks: v has size " + std::to_string(v.size()) + ", expected " + std::to_string(data_.d));
    const auto& rows = own(s).rows;
    with_rows([&](const auto& src) { hessian(src, rows, v, out); });
  }

 private:
  static const RowSample& own(const scfw::Sample& s) {
    auto* p = dynamic_cast<const RowSample*>(&s);
    if (!p) throw scfw::Error("least_squares_tasks: the sample was not made by this oracle's make_sample()");
    return *p;
  }
  static RowSample& own(scfw::Sample& s) { return const_cast<RowSample&>(own(static_cast<const scfw::Sample&>(s))); }

  /// fn(source): the loops below, over the oracle's rows or over the host's arrays.
  template <class Fn>
  void with_rows(Fn&& fn) const {
    if (views_.empty()) {
      fn(HeldSource{HeldRows{&data_, slot_.data(), dense_rows_}});
      return;
    }
    ViewSource v;
    v.views = views_.data();
    v.task_begin = data_.task_begin.data();
    v.d = data_.d;
    if (pattern_) {
      v.slot = slot_.data();
      v.pcol = pattern_->col().data();
      v.row_start = pattern_->row_start().data();
    }
    fn(v);
  }

  // The loops, one per kind of J and of pass, over a source of rows (HeldSource, ViewSource).

  template <class Src>
  void evaluate_values(const Src& src, const scfw::Sample& s, const Vec& x, Vec* f, double* J) const {
    if (full_) return exact_values(src, x, f, J);
    check_sizes(x, f, nullptr);
    const auto& rows = own(s).rows;
    const double inv_b = 1.0 / batch_;
    for (int i = 0, m = data_.tasks(); i < m; ++i) {
      src.task(i, [&](const auto& task) {
        double sum = 0.0;
        if (J) zero_row(J, i);
        for (int t = 0; t < batch_; ++t) {
          const std::int64_t r = local_row(rows[static_cast<std::size_t>(i) * batch_ + t], i);
          if (r < 0) continue;  // another rank's row
          const double res = task.dot(r, x.data()) - task.label(r);
          sum += res * res;
          if (J) task.axpy_values(r, res * inv_b, J);
        }
        if (f) (*f)[i] = 0.5 * inv_b * sum;
      });
    }
  }

  template <class Src>
  void exact_values(const Src& src, const Vec& x, Vec* f, double* J) const {
    check_sizes(x, f, nullptr);
    for (int i = 0, m = data_.tasks(); i < m; ++i) {
      src.task(i, [&](const auto& task) {
        const std::int64_t begin = data_.task_begin[i], end = data_.task_begin[i + 1];
        const double inv_n = 1.0 / static_cast<double>(own_.task_begin[i + 1] - own_.task_begin[i]);
        double sum = 0.0;
        if (J) zero_row(J, i);
        for (std::int64_t r = begin; r < end; ++r) {
          const double res = task.dot(r, x.data()) - task.label(r);
          sum += res * res;
          if (J) task.axpy_values(r, res * inv_n, J);
        }
        if (f) (*f)[i] = 0.5 * inv_n * sum;
      });
    }
  }

  template <class Src>
  void evaluate_dense(const Src& src, const scfw::Sample& s, const Vec& x, Vec* f, Mat* J) const {
    if (full_) return exact_dense(src, x, f, J);
    check_sizes(x, f, J);
    const auto& rows = own(s).rows;
    const double inv_b = 1.0 / batch_;
    int first = 0;  // tasks before this one are done
    if (dense_rows_ && batch_ == 1) first = evaluate_dense_rows(src, rows, x, f, J);
    for (int i = first, m = data_.tasks(); i < m; ++i) {
      src.task(i, [&](const auto& task) {
        double sum = 0.0;
        if (J) J->row(i).setZero();
        for (int t = 0; t < batch_; ++t) {
          const std::int64_t r = local_row(rows[static_cast<std::size_t>(i) * batch_ + t], i);
          if (r < 0) continue;  // another rank's row
          const double res = task.dot(r, x.data()) - task.label(r);
          sum += res * res;
          if (J) task.axpy(r, res * inv_b, J->row(i).data());
        }
        if (f) (*f)[i] = 0.5 * inv_b * sum;
      });
    }
  }

  template <class Src>
  void exact_dense(const Src& src, const Vec& x, Vec* f, Mat* J) const {
    check_sizes(x, f, J);
    for (int i = 0, m = data_.tasks(); i < m; ++i) {
      src.task(i, [&](const auto& task) {
        const std::int64_t begin = data_.task_begin[i], end = data_.task_begin[i + 1];
        const double inv_n = 1.0 / static_cast<double>(own_.task_begin[i + 1] - own_.task_begin[i]);
        double sum = 0.0;
        if (J) J->row(i).setZero();
        for (std::int64_t r = begin; r < end; ++r) {
          const double res = task.dot(r, x.data()) - task.label(r);
          sum += res * res;
          if (J) task.axpy(r, res * inv_n, J->row(i).data());
        }
        if (f) (*f)[i] = 0.5 * inv_n * sum;
      });
    }
  }

  template <class Src>
  void hessian(const Src& src, const std::vector<std::int64_t>& rows, const Vec& v, Mat& out) const {
    if (full_) {
      for (int i = 0, m = data_.tasks(); i < m; ++i) {
        src.task(i, [&](const auto& task) {
          out.row(i).setZero();
          const std::int64_t begin = data_.task_begin[i], end = data_.task_begin[i + 1];
          const double inv_n = 1.0 / static_cast<double>(own_.task_begin[i + 1] - own_.task_begin[i]);
          for (std::int64_t r = begin; r < end; ++r) task.axpy(r, task.dot(r, v.data()) * inv_n, out.row(i).data());
        });
      }
      return;
    }
    const double inv_b = 1.0 / batch_;
    for (int i = 0, m = data_.tasks(); i < m; ++i) {
      src.task(i, [&](const auto& task) {
        out.row(i).setZero();
        for (int t = 0; t < batch_; ++t) {
          const std::int64_t r = local_row(rows[static_cast<std::size_t>(i) * batch_ + t], i);
          if (r >= 0) task.axpy(r, task.dot(r, v.data()) * inv_b, out.row(i).data());
        }
      });
    }
  }

  void check_sizes(const Vec& x, const Vec* f, const Mat* J) const {
    const int m = data_.tasks(), d = data_.d;
    if (x.size() != d) throw scfw::Error("least_squares_tasks: x has size " + std::to_string(x.size()) + ", expected " + std::to_string(d));
    if (f && f->size() != m) throw scfw::Error("least_squares_tasks: f has size " + std::to_string(f->size()) + ", expected " + std::to_string(m));
    if (J && (J->rows() != m || J->cols() != d))
      throw scfw::Error("least_squares_tasks: J is " + std::to_string(J->rows()) + " x " + std::to_string(J->cols()) + ", expected " +
                        std::to_string(m) + " x " + std::to_string(d));
  }

  /// The stored row of global row g of task i, or -1 when another rank owns it.
  std::int64_t local_row(std::int64_t g, int i) const {
    const std::int64_t r = g - shift_[static_cast<std::size_t>(i)];
    return r >= data_.task_begin[i] && r < data_.task_begin[i + 1] ? r : -1;
  }

  /// evaluate() with one dense row per task, four tasks at a time: the four residual sums are each
  /// dot()'s chain (the same bits), run side by side so that they overlap. Returns the number of
  /// tasks done (a multiple of four; the caller does the rest, and every task of a group that
  /// holds another rank's row).
  template <class Src>
  int evaluate_dense_rows(const Src& src, const std::vector<std::int64_t>& rows, const Vec& x, Vec* f, Mat* J) const {
    const int m = data_.tasks();
    const double* xv = x.data();
    int i = 0;
    for (; i + 4 <= m; i += 4) {
      std::int64_t r[4];
      for (int t = 0; t < 4; ++t) r[t] = local_row(rows[static_cast<std::size_t>(i + t)], i + t);
      if (r[0] < 0 || r[1] < 0 || r[2] < 0 || r[3] < 0) break;
      const double* a[4] = {src.dense_row(i, r[0]), src.dense_row(i + 1, r[1]), src.dense_row(i + 2, r[2]), src.dense_row(i + 3, r[3])};
      const double* a0 = a[0];
      const double* a1 = a[1];
      const double* a2 = a[2];
      const double* a3 = a[3];
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
      for (int k = 0; k < data_.d; ++k) {
        s0 += a0[k] * xv[k];
        s1 += a1[k] * xv[k];
        s2 += a2[k] * xv[k];
        s3 += a3[k] * xv[k];
      }
      const double res[4] = {s0 - src.label(i, r[0]), s1 - src.label(i + 1, r[1]), s2 - src.label(i + 2, r[2]),
                             s3 - src.label(i + 3, r[3])};
      for (int t = 0; t < 4; ++t) {
        if (J) {  // J(i, :) = 0 + res a^T: the zeroed row plus axpy's terms, in one pass
          double* Ji = J->row(i + t).data();
          const double* at = a[t];
          for (int k = 0; k < data_.d; ++k) Ji[k] = 0.0 + res[t] * at[k];
        }
        if (f) (*f)[i + t] = 0.5 * (res[t] * res[t]);
      }
    }
    return i;
  }
  /// Every stored row holds all d features in order (synthetic data, dense files): dot() and
  /// axpy() then skip the column indices.
  static bool every_row_dense(const TaskRows& t) {
    const std::int64_t rows = static_cast<std::int64_t>(t.b.size());
    for (std::int64_t r = 0; r < rows; ++r) {
      if (t.row_ptr[r + 1] - t.row_ptr[r] != t.d) return false;
      for (int k = 0; k < t.d; ++k)
        if (t.cols[static_cast<std::size_t>(t.row_ptr[r] + k)] != k) return false;
    }
    return true;
  }
  /// The pattern: row i holds the features of task i's rows, sorted; slot_[k] is the place of
  /// stored entry k (row r's k-th feature) among the pattern's values.
  void build_pattern(const Context& ctx) {
    const int m = data_.tasks();
    ctx.memory.reserve(scfw::bytes_of({static_cast<std::int64_t>(data_.cols.size()), 8 + 4}),
                       "the sparse Jacobian's pattern and slots (" + std::to_string(data_.cols.size()) + " stored features)");
    std::vector<std::int64_t> row_start{0};
    std::vector<int> col;
    std::vector<int> task_cols;
    for (int i = 0; i < m; ++i) {
      task_cols.assign(data_.cols.begin() + data_.row_ptr[data_.task_begin[i]],
                       data_.cols.begin() + data_.row_ptr[data_.task_begin[i + 1]]);
      std::sort(task_cols.begin(), task_cols.end());
      task_cols.erase(std::unique(task_cols.begin(), task_cols.end()), task_cols.end());
      col.insert(col.end(), task_cols.begin(), task_cols.end());
      row_start.push_back(static_cast<std::int64_t>(col.size()));
    }
    slot_.resize(data_.cols.size());
    for (int i = 0; i < m; ++i) {
      const auto first = col.begin() + row_start[static_cast<std::size_t>(i)];
      const auto last = col.begin() + row_start[static_cast<std::size_t>(i) + 1];
      for (std::int64_t k = data_.row_ptr[data_.task_begin[i]]; k < data_.row_ptr[data_.task_begin[i + 1]]; ++k)
        slot_[static_cast<std::size_t>(k)] = std::lower_bound(first, last, data_.cols[k]) - col.begin();
    }
    pattern_ = std::make_shared<const scfw::JacobianPattern>(m, data_.d, std::move(row_start), std::move(col));
  }

  /// The pattern over the host's arrays: row i holds the columns where a row of A_i is non-zero
  /// (a dense A_i: its zeros are not entries, as in the CSR matrix of the same numbers) or has a
  /// stored entry (CSR, as a file's `idx:val`), sorted. A CSR task's entries get slots (slot_,
  /// from its slot_begin); a dense task's rows are read at the pattern's columns, without slots.
  void build_view_pattern(const Context& ctx) {
    const int m = data_.tasks(), d = data_.d;
    std::int64_t columns = 0, csr_entries = 0;  // at most, and the slots
    for (const TaskView& v : views_) {
      columns += v.kind == TaskView::Kind::Dense ? d : std::min<std::int64_t>(v.stored, d);
      if (v.kind != TaskView::Kind::Dense) csr_entries += v.stored;
    }
    ctx.memory.reserve(scfw::add_bytes(scfw::bytes_of({columns, 4}), scfw::bytes_of({csr_entries, 8})),
                       "the sparse Jacobian's pattern (at most " + std::to_string(columns) + " features) and the slots of " +
                           std::to_string(csr_entries) + " CSR entries");
    auto index = [](const TaskView& v, std::int64_t k) -> std::int64_t {
      return v.kind == TaskView::Kind::Csr32 ? static_cast<const std::int32_t*>(v.indices)[k]
                                             : static_cast<const std::int64_t*>(v.indices)[k];
    };
    std::vector<std::int64_t> row_start{0};
    std::vector<int> col;
    std::vector<char> present(static_cast<std::size_t>(d));
    for (int i = 0; i < m; ++i) {
      const TaskView& v = views_[static_cast<std::size_t>(i)];
      std::fill(present.begin(), present.end(), 0);
      if (v.kind == TaskView::Kind::Dense) {
        for (std::int64_t r = 0; r < v.rows; ++r)
          for (int k = 0; k < d; ++k)
            if (v.values[r * d + k] != 0.0) present[static_cast<std::size_t>(k)] = 1;
      } else {
        for (std::int64_t k = 0; k < v.stored; ++k) present[static_cast<std::size_t>(index(v, k))] = 1;
      }
      for (int k = 0; k < d; ++k)
        if (present[static_cast<std::size_t>(k)]) col.push_back(k);
      row_start.push_back(static_cast<std::int64_t>(col.size()));
    }
    slot_.resize(static_cast<std::size_t>(csr_entries));
    std::int64_t next = 0;
    for (int i = 0; i < m; ++i) {
      TaskView& v = views_[static_cast<std::size_t>(i)];
      if (v.kind == TaskView::Kind::Dense) continue;
      v.slot_begin = next;
      const auto first = col.begin() + row_start[static_cast<std::size_t>(i)];
      const auto last = col.begin() + row_start[static_cast<std::size_t>(i) + 1];
      for (std::int64_t k = 0; k < v.stored; ++k)
        slot_[static_cast<std::size_t>(next + k)] = std::lower_bound(first, last, static_cast<int>(index(v, k))) - col.begin();
      next += v.stored;
    }
    pattern_ = std::make_shared<const scfw::JacobianPattern>(m, d, std::move(row_start), std::move(col));
  }

  void zero_row(double* J, int i) const {
    std::fill(J + pattern_->row_start()[static_cast<std::size_t>(i)], J + pattern_->row_start()[static_cast<std::size_t>(i) + 1], 0.0);
  }

  TaskRows data_;             // this rank's rows (all rows without MPI); with "arrays", d and the tasks' offsets only
  std::vector<TaskView> views_;  // "arrays": the host's, one per task, read in place (else empty)
  Ownership own_;             // where they sit among all ranks' rows (the identity without MPI)
  std::vector<std::int64_t> shift_;  // global row - stored row, per task
  bool sharded_ = false;
  bool dense_rows_ = false;  // every row holds all d features in order (every_row_dense, or every array dense)
  int batch_ = 1;
  bool full_ = false;
  bool from_libsvm_ = false;  // "file" or "files": coordinates are LIBSVM feature indices
  std::shared_ptr<const scfw::JacobianPattern> pattern_;  // "jacobian": "sparse"; null when dense
  std::vector<std::int64_t> slot_;                         // stored entry -> place in the pattern
};

void register_components(scfw::Registrar& r) {
  using scfw::ParamSpec;
  r.add<LeastSquaresTasks>(
      "least_squares_tasks",
      "f_i(x) = 1/(2 N_i) sum_j (a_ij^T x - b_ij)^2 for tasks i = 1..m (Task 1); a sample draws `batch` rows per task",
      {
          ParamSpec::integer("batch", "rows drawn per task for one sample, uniformly with replacement; 0 = the whole data set (exact oracle)").at_least(0).def(1),
          ParamSpec::choice("jacobian", {"dense", "sparse"},
                            "\"sparse\": declare the Jacobian's pattern (row i: the features present in task i's rows), "
                            "so V and the GLMO's rows hold only those; \"dense\": n x d")
              .def("dense"),
          ParamSpec::object(
              "synthetic",
              {
                  ParamSpec::integer("tasks", "number of tasks m (outputs n)").at_least(1).def(10),
                  ParamSpec::integer("dim", "dimension d of x").at_least(1).def(100),
                  ParamSpec::integer("rows_per_task", "rows N_i of each task").at_least(1).def(500),
                  ParamSpec::integer("sparsity", "non-zeros of the ground truth x* (scaled to ||x*||_1 = 4)").nonnegative().def(10),
                  ParamSpec::number("noise", "noise scale: task i's Student-t noise is scaled by noise * (1 + i/(m-1))").nonnegative().def(0.5),
                  ParamSpec::integer("seed", "data seed, independent of the run seed").nonnegative().def(1),
              },
              "Gaussian rows a ~ N(0, I), sparse x*, Student-t noise with 10 down to 2.5 degrees of freedom across tasks"),
          ParamSpec::string("file", "a LIBSVM file, split into `tasks` label-stratified subsets (relative to the problem file)"),
          ParamSpec::string("files", "comma-separated LIBSVM files, one per task (relative to the problem file)"),
          ParamSpec::string("arrays", "comma-separated names of the tasks' row matrices A_i the host passes in memory, one per "
                                      "task (scfw.solve(problem, data={NAME: matrix, ...}) in Python): dense float64 row-major, or "
                                      "CSR with float64 values and 4- or 8-byte indices, read in place without a copy (Python "
                                      "converts any other array once); a dense A_i's zeros are not Jacobian entries"),
          ParamSpec::string("labels", "with \"arrays\": comma-separated names of the tasks' label vectors b_i (float64, read in "
                                      "place), in the same order"),
          ParamSpec::integer("tasks", "number of subsets `file` is split into").at_least(1),
          ParamSpec::integer("features", "number of features d (default: the largest index in the data)").at_least(1),
      });
}

}  // namespace

SCFW_PLUGIN("least_squares_tasks", SCFW_PLUGIN_VERSION, register_components)
