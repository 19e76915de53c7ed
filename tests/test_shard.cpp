// The pieces of a sharded data oracle that need no MPI (docs/scaling.md): byte shares of a file
// and the label-stratified split computed from each rank's own rows and the ranks' label counts.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../plugins/oracle/least_squares_tasks/libsvm.hpp"
#include "../plugins/oracle/least_squares_tasks/libsvm_shard.hpp"
#include "scfw/byte_range.hpp"

TEST_CASE("every line of a file is read by exactly one rank's share, in order") {
  const std::string path = "test_shard_lines.txt";
  std::mt19937_64 g(11);
  std::string whole;
  for (int r = 0; r < 200; ++r) {
    whole += std::string(g() % 40, 'a' + static_cast<char>(r % 26));  // empty lines too
    whole += '\n';
  }
  whole += "last line without a newline";
  std::ofstream(path, std::ios::binary) << whole;
  for (int ranks : {1, 2, 3, 7, 64, 500}) {
    std::string joined;
    long lines = 0;
    for (int r = 0; r < ranks; ++r) {
      const std::string part = scfw::read_line_share(path, r, ranks);
      joined += part;
      lines += scfw::count_lines(part);
    }
    CHECK_MESSAGE(joined == whole, "ranks = " << ranks);
    CHECK(lines == 201);
  }
  std::remove(path.c_str());
}

TEST_CASE("the sharded stratified split equals the split of the whole file") {
  std::mt19937_64 g(5);
  std::vector<double> labels(997);
  for (double& y : labels) {
    const auto u = g() % 10;
    y = u < 6 ? -1.0 : u < 9 ? 1.0 : (u == 9 && g() % 2 ? 0.0 : -0.0);  // -0.0 is label 0.0, as in std::map
  }
  for (int tasks : {1, 3, 10}) {
    const auto whole = scfw::libsvm::stratified_split(labels, tasks);
    for (int ranks : {1, 2, 3, 8}) {
      // Rank r holds rows [997 r / P, 997 (r+1) / P), in file order.
      std::vector<std::vector<double>> mine(static_cast<std::size_t>(ranks));
      std::vector<std::vector<std::int64_t>> counts;
      for (int r = 0; r < ranks; ++r) {
        const std::size_t b = labels.size() * r / ranks, e = labels.size() * (r + 1) / ranks;
        mine[r].assign(labels.begin() + static_cast<std::ptrdiff_t>(b), labels.begin() + static_cast<std::ptrdiff_t>(e));
        counts.push_back(scfw::libsvm::label_counts(mine[r]));
      }
      // Rebuild every task's rows from the ranks' views: rank r's rows of task i, in its file
      // order, sit at positions owned_begin[i] .. of task i.
      std::vector<std::vector<std::int64_t>> rebuilt(static_cast<std::size_t>(tasks));
      for (int r = 0; r < ranks; ++r) {
        const auto s = scfw::libsvm::shard_split(mine[r], tasks, counts, r);
        const std::size_t b = labels.size() * r / ranks;
        for (int i = 0; i < tasks; ++i) {
          REQUIRE(s.task_rows[i] == static_cast<std::int64_t>(whole[i].size()));
          CHECK(s.owned_begin[i] == static_cast<std::int64_t>(rebuilt[i].size()));
          for (std::size_t k = 0; k < mine[r].size(); ++k)
            if (s.task_of[k] == i) rebuilt[i].push_back(static_cast<std::int64_t>(b + k));
        }
      }
      for (int i = 0; i < tasks; ++i) {
        const std::vector<std::int64_t> want(whole[i].begin(), whole[i].end());
        CHECK_MESSAGE(rebuilt[i] == want, "tasks = " << tasks << ", ranks = " << ranks << ", task " << i);
      }
    }
  }
}
