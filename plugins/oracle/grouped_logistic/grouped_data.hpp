// grouped_logistic: grouped rows of a LIBSVM file, header-only so that the plugin, its test and
// the group-DRO bench (bench/bench_group_dro.cpp) share one implementation.
//
// A group is a value of one or more categorical attributes crossed with the label. A categorical
// attribute of a binarized data set (a9a: UCI Adult) is a block of consecutive feature indices of
// which every row has exactly one non-zero; `exclusive_blocks` finds those blocks in the data, and
// `group_rows` sorts the rows by group: the block values in the order the blocks are given, then
// the label, lexicographically. Combinations without rows are not groups.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../least_squares_tasks/libsvm.hpp"
#include "scfw/error.hpp"

namespace scfw::grouped {

/// Feature indices first .. last (1-based, inclusive).
struct Block {
  int first = 0, last = 0;
  int size() const { return last - first + 1; }
};

/// "67-71,72-73" -> {{67, 71}, {72, 73}}. On a malformed list returns false with `why` set.
inline bool parse_blocks(const std::string& text, std::vector<Block>& out, std::string& why) {
  out.clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = trim_field(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    const std::size_t dash = item.find('-');
    long long a = 0, b = 0;
    if (dash == std::string::npos || !libsvm::detail::parse_index(item.substr(0, dash), a) ||
        !libsvm::detail::parse_index(item.substr(dash + 1), b)) {
      why = "expected blocks of 1-based feature indices such as \"67-71,72-73\", got \"" + excerpt(item) + "\"";
      return false;
    }
    if (a < 1 || b <= a || b > (1LL << 30)) {
      why = "the block \"" + excerpt(item) + "\" must have 1 <= first < last";
      return false;
    }
    for (const Block& o : out)
      if (a <= o.last && o.first <= b) {
        why = "the blocks " + std::to_string(o.first) + "-" + std::to_string(o.last) + " and " + item + " overlap";
        return false;
      }
    out.push_back({static_cast<int>(a), static_cast<int>(b)});
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

/// The maximal runs of consecutive features, left to right, in which every row has exactly one
/// non-zero (each is the smallest such run starting at its first index; a run that cannot start
/// at index a is tried from a + 1). With a 1-based index `count[j]` of the rows holding feature
/// j, the blocks and their marginals are what identifies an attribute (a9a: sex is the block of
/// 2 whose larger count is about two thirds of the rows, race the block of 5).
inline std::vector<Block> exclusive_blocks(const libsvm::Data& data, std::vector<std::int64_t>* count = nullptr) {
  const int d = data.max_index;
  const std::size_t rows = data.rows();
  std::vector<std::vector<std::size_t>> by_col(static_cast<std::size_t>(d) + 1);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::int64_t k = data.row_ptr[r]; k < data.row_ptr[r + 1]; ++k)
      if (data.vals[static_cast<std::size_t>(k)] != 0.0) by_col[static_cast<std::size_t>(data.cols[static_cast<std::size_t>(k)]) + 1].push_back(r);
  if (count) {
    count->assign(static_cast<std::size_t>(d) + 1, 0);
    for (int j = 1; j <= d; ++j) (*count)[static_cast<std::size_t>(j)] = static_cast<std::int64_t>(by_col[static_cast<std::size_t>(j)].size());
  }
  std::vector<Block> out;
  std::vector<int> hits(rows, 0);
  int a = 1;
  while (a < d && rows > 0) {
    std::fill(hits.begin(), hits.end(), 0);
    std::size_t once = 0;
    bool found = false;
    int b = a;
    for (; b <= d; ++b) {
      bool over = false;
      for (std::size_t r : by_col[static_cast<std::size_t>(b)]) {
        if (++hits[r] == 1) ++once;
        else {
          over = true;
          break;
        }
      }
      if (over) break;
      if (once == rows) {
        found = b > a;
        break;
      }
    }
    if (found) {
      out.push_back({a, b});
      a = b + 1;
    } else {
      ++a;
    }
  }
  return out;
}

/// Rows sorted by group, CSR; group g owns rows group_begin[g] .. group_begin[g+1]-1, in file
/// order within a group. `key[g]` holds group g's feature index (1-based) in each block, then
/// its label (when crossed with the label).
struct GroupedRows {
  int d = 0;
  std::vector<std::int64_t> group_begin{0};
  std::vector<std::int64_t> row_ptr{0};
  std::vector<int> cols;
  std::vector<double> vals;
  std::vector<double> label;
  std::vector<std::vector<double>> key;

  int groups() const { return static_cast<int>(group_begin.size()) - 1; }
  std::int64_t rows() const { return static_cast<std::int64_t>(label.size()); }
};

/// The group key of row r of `data` (block values, then the label when `by_label`); throws
/// InputError("<path>: row R: ...") when a block has no non-zero or more than one in the row.
inline std::vector<double> row_key(const libsvm::Data& data, std::size_t r, const std::vector<Block>& blocks, bool by_label) {
  std::vector<double> key;
  const int* c = data.cols.data() + data.row_ptr[r];
  const double* v = data.vals.data() + data.row_ptr[r];
  const std::int64_t n = data.row_ptr[r + 1] - data.row_ptr[r];
  for (const Block& b : blocks) {
    int hit = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      const int j = c[k] + 1;
      if (j < b.first || j > b.last || v[k] == 0.0) continue;
      if (hit != 0)
        throw InputError(data.path + ": row " + std::to_string(r + 1) + ": features " + std::to_string(hit) + " and " +
                         std::to_string(j) + " of the block " + std::to_string(b.first) + "-" + std::to_string(b.last) +
                         " are both set (a block is one categorical attribute: one feature per row)");
      hit = j;
    }
    if (hit == 0)
      throw InputError(data.path + ": row " + std::to_string(r + 1) + ": no feature of the block " + std::to_string(b.first) +
                       "-" + std::to_string(b.last) + " is set (a block is one categorical attribute: one feature per row)");
    key.push_back(hit);
  }
  if (by_label) key.push_back(data.labels[r]);
  return key;
}

/// Noise added to the values of the features outside the blocks of a resampled row (the block
/// features keep their 0/1 values, so a drawn row stays in its group).
struct Resample {
  std::int64_t rows = 0;  ///< 0: the file's rows as they are
  double noise = 0.0;
  std::uint64_t seed = 1;
};

/// The rows of `data` grouped by `blocks` (and the label). With re.rows > 0: re.rows rows drawn
/// uniformly with replacement from the file (Rng(re.seed), one std::uniform_int_distribution draw
/// per row, then one N(0, re.noise^2) draw per value outside the blocks, row by row), grouped
/// the same way. `d` is the number of features (at least data.max_index).
inline GroupedRows group_rows(const libsvm::Data& data, int d, const std::vector<Block>& blocks, bool by_label,
                              const Resample& re = {}) {
  for (const Block& b : blocks)
    if (b.last > d)
      throw InputError(data.path + ": the block " + std::to_string(b.first) + "-" + std::to_string(b.last) +
                       " goes past the last feature " + std::to_string(d));
  // Group of each file row.
  std::map<std::vector<double>, int> index;
  std::vector<int> group_of(data.rows());
  for (std::size_t r = 0; r < data.rows(); ++r) group_of[r] = index.try_emplace(row_key(data, r, blocks, by_label), 0).first->second;
  GroupedRows out;
  out.d = d;
  int g = 0;
  for (auto& [key, id] : index) {
    id = g++;
    out.key.push_back(key);
  }
  for (std::size_t r = 0; r < data.rows(); ++r) group_of[r] = index.at(row_key(data, r, blocks, by_label));

  // The rows to store, in order: the file's rows, or the draws.
  std::vector<std::size_t> source;
  if (re.rows > 0) {
    std::mt19937_64 gen(re.seed);
    std::uniform_int_distribution<std::size_t> pick(0, data.rows() - 1);
    source.resize(static_cast<std::size_t>(re.rows));
    for (auto& s : source) s = pick(gen);
  } else {
    source.resize(data.rows());
    for (std::size_t r = 0; r < data.rows(); ++r) source[r] = r;
  }
  // Noise, in draw order (before the rows are sorted by group).
  std::vector<double> noise;
  std::vector<std::int64_t> noise_at;  // offset of draw t's values in `noise`
  if (re.rows > 0 && re.noise > 0.0) {
    std::mt19937_64 gen(re.seed ^ 0x9e3779b97f4a7c15ULL);
    std::normal_distribution<double> gauss(0.0, re.noise);
    noise_at.reserve(source.size() + 1);
    noise_at.push_back(0);
    std::int64_t total = 0;
    for (std::size_t s : source) noise_at.push_back(total += data.row_ptr[s + 1] - data.row_ptr[s]);
    noise.resize(static_cast<std::size_t>(total));
    for (std::size_t t = 0; t < source.size(); ++t) {
      const std::size_t s = source[t];
      for (std::int64_t k = data.row_ptr[s]; k < data.row_ptr[s + 1]; ++k) {
        const int j = data.cols[static_cast<std::size_t>(k)] + 1;
        bool in_block = false;
        for (const Block& b : blocks) in_block = in_block || (j >= b.first && j <= b.last);
        noise[static_cast<std::size_t>(noise_at[t] + k - data.row_ptr[s])] = in_block ? 0.0 : gauss(gen);
      }
    }
  }
  // Counting sort by group, stable.
  std::vector<std::int64_t> per(static_cast<std::size_t>(g) + 1, 0), nnz_per(static_cast<std::size_t>(g) + 1, 0);
  for (std::size_t s : source) {
    per[static_cast<std::size_t>(group_of[s]) + 1]++;
    nnz_per[static_cast<std::size_t>(group_of[s]) + 1] += data.row_ptr[s + 1] - data.row_ptr[s];
  }
  for (int i = 0; i < g; ++i) {
    per[static_cast<std::size_t>(i) + 1] += per[static_cast<std::size_t>(i)];
    nnz_per[static_cast<std::size_t>(i) + 1] += nnz_per[static_cast<std::size_t>(i)];
  }
  // Resampling may leave a group without rows: drop it.
  out.group_begin = per;
  out.label.resize(source.size());
  out.row_ptr.assign(source.size() + 1, 0);
  out.cols.resize(static_cast<std::size_t>(nnz_per.back()));
  out.vals.resize(static_cast<std::size_t>(nnz_per.back()));
  std::vector<std::int64_t> next_row(per.begin(), per.end() - 1), next_nnz(nnz_per.begin(), nnz_per.end() - 1);
  for (std::size_t t = 0; t < source.size(); ++t) {
    const std::size_t s = source[t];
    const int gi = group_of[s];
    const std::int64_t row = next_row[static_cast<std::size_t>(gi)]++;
    std::int64_t at = next_nnz[static_cast<std::size_t>(gi)];
    out.label[static_cast<std::size_t>(row)] = data.labels[s];
    for (std::int64_t k = data.row_ptr[s]; k < data.row_ptr[s + 1]; ++k, ++at) {
      out.cols[static_cast<std::size_t>(at)] = data.cols[static_cast<std::size_t>(k)];
      double v = data.vals[static_cast<std::size_t>(k)];
      if (!noise.empty()) v += noise[static_cast<std::size_t>(noise_at[t] + k - data.row_ptr[s])];
      out.vals[static_cast<std::size_t>(at)] = v;
    }
    next_nnz[static_cast<std::size_t>(gi)] = at;
    out.row_ptr[static_cast<std::size_t>(row) + 1] = at;
  }
  // Drop empty groups.
  if (re.rows > 0) {
    std::vector<std::int64_t> begin{0};
    std::vector<std::vector<double>> keys;
    for (int i = 0; i < g; ++i)
      if (per[static_cast<std::size_t>(i) + 1] > per[static_cast<std::size_t>(i)]) {
        begin.push_back(per[static_cast<std::size_t>(i) + 1]);
        keys.push_back(out.key[static_cast<std::size_t>(i)]);
      }
    out.group_begin = std::move(begin);
    out.key = std::move(keys);
  }
  return out;
}

}  // namespace scfw::grouped
