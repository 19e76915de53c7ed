// least_squares_tasks over MPI ranks: the label-stratified task split of libsvm.hpp computed from
// each rank's own rows plus the ranks' label counts, so that no rank needs another's rows.
// Header-only, shared by the plugin and its test.
//
// libsvm::stratified_split deals the rows of each label, in file order, round-robin over the m
// tasks; labels go in order of first appearance and each label's dealing starts where the
// previous one stopped. So the q-th row (0-based, in file order) of label L goes to task
// (o_L + q) mod m, o_L = (rows of the labels before L) mod m, and a task keeps its rows in file
// order. A rank owns a contiguous run of file rows, hence a contiguous run of every task's rows:
// what it needs is, per label, the count of that label on the ranks before it, and in all.
#pragma once

#include <bit>
#include <cstdint>
#include <map>
#include <vector>

namespace scfw::libsvm {

/// A rank's labels in order of first appearance with their counts, flattened for Shard::all_gather:
/// {bits(label), count, bits(label), count, ...} (-0.0 counted as 0.0, as std::map does).
inline std::vector<std::int64_t> label_counts(const std::vector<double>& labels) {
  std::vector<std::int64_t> out;
  std::map<double, std::size_t> at;  // label -> index of its count in out
  for (double y : labels) {
    auto [it, fresh] = at.try_emplace(y, out.size() + 1);
    if (fresh) {
      out.push_back(std::bit_cast<std::int64_t>(y + 0.0));
      out.push_back(0);
    }
    ++out[it->second];
  }
  return out;
}

/// The split as one rank sees it.
struct ShardSplit {
  std::vector<int> task_of;                ///< per local row (file order): its task
  std::vector<std::int64_t> task_rows;     ///< per task: its rows over all ranks (N_i)
  std::vector<std::int64_t> owned_begin;   ///< per task: the index within the task of this rank's first row in it
};

/// Rows q in [0, count) with (offset + q) mod m == task.
inline std::int64_t dealt(std::int64_t count, std::int64_t offset, std::int64_t task, std::int64_t m) {
  const std::int64_t first = ((task - offset) % m + m) % m;  // the first q that lands on `task`
  return count > first ? (count - first + m - 1) / m : 0;
}

/// The stratified split of the whole file, restricted to this rank's rows. `all_counts[r]` is rank
/// r's label_counts, `labels` this rank's labels (file order). Equals stratified_split on the
/// concatenated labels: task i's rows over the ranks, in rank order, are its rows in file order.
inline ShardSplit shard_split(const std::vector<double>& labels, int tasks,
                              const std::vector<std::vector<std::int64_t>>& all_counts, int rank) {
  const std::int64_t m = tasks;
  struct Label {
    std::int64_t total = 0, before = 0, offset = 0;
  };
  std::map<double, Label> by_label;
  std::vector<double> order;  // by first appearance over the file
  for (std::size_t r = 0; r < all_counts.size(); ++r) {
    const auto& c = all_counts[r];
    for (std::size_t k = 0; k + 1 < c.size(); k += 2) {
      const double y = std::bit_cast<double>(c[k]);
      auto [it, fresh] = by_label.try_emplace(y);
      if (fresh) order.push_back(y);
      it->second.total += c[k + 1];
      if (static_cast<int>(r) < rank) it->second.before += c[k + 1];
    }
  }
  std::int64_t next = 0;
  for (double y : order) {
    Label& l = by_label[y];
    l.offset = next;
    next = (next + l.total) % m;
  }
  ShardSplit s;
  s.task_rows.assign(static_cast<std::size_t>(m), 0);
  s.owned_begin.assign(static_cast<std::size_t>(m), 0);
  for (const auto& [y, l] : by_label)
    for (std::int64_t i = 0; i < m; ++i) {
      s.task_rows[static_cast<std::size_t>(i)] += dealt(l.total, l.offset, i, m);
      s.owned_begin[static_cast<std::size_t>(i)] += dealt(l.before, l.offset, i, m);
    }
  std::map<double, std::int64_t> seen;  // this rank's rows of each label so far
  s.task_of.reserve(labels.size());
  for (double y : labels) {
    const Label& l = by_label.at(y);
    const std::int64_t q = l.before + seen[y]++;
    s.task_of.push_back(static_cast<int>((l.offset + q) % m));
  }
  return s;
}

}  // namespace scfw::libsvm
