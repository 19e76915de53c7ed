// Arrays passed by name in place of data files (scfw/host_arrays.hpp, Overrides::arrays): the
// data oracles read a host's matrix to the same bits as the same numbers written to a file, read
// it in place (the memory account is the file's, less the file's copy where the oracle holds
// one), refuse a missing name, a bad shape, NaN and infinities with located messages, and a
// checkpoint's identity covers the arrays' contents.
#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/SparseCore>

#include "scfw/core/checkpoint.hpp"
#include "scfw/host.hpp"

namespace fs = std::filesystem;
using namespace scfw;

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// T x A daily returns: a deterministic pattern with many digits.
RowMatrix returns(int T, int A) {
  RowMatrix R(T, A);
  for (int t = 0; t < T; ++t)
    for (int a = 0; a < A; ++a) R(t, a) = 0.01 * std::sin(0.7 * t + 1.3 * a) + 1e-4 * (a + 1) / 3.0;
  return R;
}

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// The returns as a portfolio_returns CSV (a date column, one column per asset).
fs::path write_csv(const RowMatrix& R, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "scfw_test_host_arrays";
  fs::create_directories(dir);
  const fs::path file = dir / name;
  std::ofstream out(file);
  out << "date";
  for (Eigen::Index a = 0; a < R.cols(); ++a) out << ",asset " << a + 1;
  out << "\n";
  for (Eigen::Index t = 0; t < R.rows(); ++t) {
    out << "day" << t;
    for (Eigen::Index a = 0; a < R.cols(); ++a) out << "," << number(R(t, a));
    out << "\n";
  }
  return file;
}

nlohmann::json portfolio(const nlohmann::json& data) {
  nlohmann::json oracle = {{"plugin", "portfolio_returns"}, {"groups", 6}, {"batch", 2}, {"prices", false}};
  oracle.update(data);
  return {{"seed", 3},
          {"iterations", 60},
          {"oracle", oracle},
          {"outer", {{"plugin", "cvar_ru"}, {"alpha", 0.9}}},
          {"domain", {{"plugin", "simplex_interval"}, {"lower", -1}, {"upper", 1}}},
          {"report", {{"every", 20}}}};
}

std::shared_ptr<HostArrays> table(const std::string& name, const DenseView& v) {
  auto t = std::make_shared<HostArrays>();
  t->add(name, v);
  return t;
}

Overrides with(std::shared_ptr<const HostArrays> arrays) {
  Overrides o;
  o.arrays = std::move(arrays);
  return o;
}

}  // namespace

TEST_CASE("portfolio_returns reads a host matrix to the bits of the same numbers in a file, in place") {
  const Host host;
  const RowMatrix R = returns(40, 5);
  const fs::path file = write_csv(R, "returns.csv");
  Composition from_file = host.compose(portfolio({{"file", file.string()}}), "problem");
  Composition from_array = host.compose(portfolio({{"array", "R"}}), "problem", ".", with(table("R", matrix_view(R))));
  const Summary a = solve(from_file), b = solve(from_array);
  REQUIRE(a.y.size() == 6);
  CHECK(a.y == b.y);
  CHECK(std::bit_cast<std::uint64_t>(a.final_objective) == std::bit_cast<std::uint64_t>(b.final_objective));
  CHECK(std::bit_cast<std::uint64_t>(a.final_gap) == std::bit_cast<std::uint64_t>(b.final_gap));
  // The returns are read where they are: the account holds what the file's run holds (which
  // charges nothing for its own copy either), and an unaligned view is copied once, charged.
  CHECK(from_array.method.memory.held() == from_file.method.memory.held());
  std::vector<double> shifted(static_cast<size_t>(R.size()) + 1);
  std::copy(R.data(), R.data() + R.size(), shifted.begin() + 1);
  const DenseView unaligned{shifted.data() + 1, R.rows(), R.cols(), false};
  Composition copied = host.compose(portfolio({{"array", "R"}}), "problem", ".", with(table("R", unaligned)));
  CHECK(copied.method.memory.held() == from_file.method.memory.held() + static_cast<std::uint64_t>(R.size()) * 8);
  CHECK(solve(copied).y == a.y);
  fs::remove_all(file.parent_path());
}

TEST_CASE("a matrix of prices is converted to returns as a file's") {
  const Host host;
  RowMatrix P(30, 3);
  for (int t = 0; t < 30; ++t)
    for (int a = 0; a < 3; ++a) P(t, a) = 100.0 + 3.0 * std::cos(0.3 * t * (a + 1)) + a / 7.0;
  const fs::path file = write_csv(P, "prices.csv");
  nlohmann::json by_file = portfolio({{"file", file.string()}, {"prices", true}});
  nlohmann::json by_array = portfolio({{"array", "P"}, {"prices", true}});
  Composition a = host.compose(by_file, "problem");
  Composition b = host.compose(by_array, "problem", ".", with(table("P", matrix_view(P))));
  CHECK(solve(a).y == solve(b).y);
  fs::remove_all(file.parent_path());
}

TEST_CASE("a missing array, a bad shape, NaN and infinities are located errors") {
  const Host host;
  RowMatrix R = returns(12, 3);
  const nlohmann::json doc = portfolio({{"array", "R"}});
  CHECK_THROWS_WITH_AS(host.compose(doc, "problem"),
                       "problem: /oracle/array: no array named \"R\" was passed (none was: a program passes arrays with "
                       "the problem, e.g. scfw.solve(problem, data={\"R\": array}) in Python)",
                       InputError);
  CHECK_THROWS_WITH_AS(host.compose(doc, "problem", ".", with(table("Q", matrix_view(R)))),
                       "problem: /oracle/array: no array named \"R\" was passed (passed: \"Q\")", InputError);
  R(3, 2) = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH_AS(host.compose(doc, "problem", ".", with(table("R", matrix_view(R)))),
                       "data \"R\": row 3, column 2: not a finite number (nan)", InputError);
  R(3, 2) = -std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS(host.compose(doc, "problem", ".", with(table("R", matrix_view(R)))),
                       "data \"R\": row 3, column 2: not a finite number (-inf)", InputError);
  const Vec v = Vec::Ones(12);
  CHECK_THROWS_WITH_AS(host.compose(doc, "problem", ".", with(table("R", vector_view(v)))),
                       "data \"R\": expected a days x assets matrix of returns, got a vector of 12", InputError);
  const RowMatrix one_day = returns(1, 3) + RowMatrix::Constant(1, 3, 1.0);
  nlohmann::json prices = portfolio({{"array", "R"}, {"prices", true}, {"groups", 1}});
  CHECK_THROWS_WITH_AS(host.compose(prices, "problem", ".", with(table("R", matrix_view(one_day)))),
                       "data \"R\": 1 row(s); need at least 2 prices", InputError);
  RowMatrix bad_price = RowMatrix::Constant(4, 2, 10.0);
  bad_price(2, 1) = -1.5;
  CHECK_THROWS_WITH_AS(host.compose(prices, "problem", ".", with(table("R", matrix_view(bad_price)))),
                       "data \"R\": row 2, column 1: a price must be > 0, got -1.5", InputError);
  nlohmann::json two = portfolio({{"array", "R"}, {"synthetic", nlohmann::json::object()}});
  CHECK_THROWS_WITH_AS(host.compose(two, "problem"),
                       "problem: /oracle/array: give only one data source of \"synthetic\", \"file\" and \"array\"",
                       InputError);
  // The table itself refuses a name given twice and a broken CSR structure.
  HostArrays t;
  t.add("R", matrix_view(R));
  CHECK_THROWS_WITH_AS(t.add("R", matrix_view(R)), "data \"R\": passed twice", InputError);
  const std::vector<std::int64_t> indptr{0, 2, 1}, indices{0, 1};
  const std::vector<double> values{1.0, 2.0};
  CsrView csr;
  csr.indptr = indptr.data();
  csr.indices = indices.data();
  csr.values = values.data();
  csr.rows = 2;
  csr.cols = 2;
  CHECK_THROWS_WITH_AS(t.add("A", csr), "data \"A\": indptr decreases at row 1 (2 then 1)", InputError);
}

TEST_CASE("a checkpoint's identity covers the arrays' contents") {
  const Host host;
  RowMatrix R = returns(20, 3);
  const nlohmann::json doc = portfolio({{"array", "R"}});
  const Composition c = host.compose(doc, "problem", ".", with(table("R", matrix_view(R))));
  const RunIdentity before = run_identity(host.registry(), doc, c, "v");
  REQUIRE(before.arrays.size() == 1);
  CHECK(before.arrays[0].path == "R");
  CHECK(before.arrays[0].size == 3 * 8 + 20 * 3 * 8);
  R(7, 1) += 1e-12;
  const RunIdentity after = run_identity(host.registry(), doc, c, "v");
  CHECK(after.arrays[0].hash != before.arrays[0].hash);
  CHECK_THROWS_WITH_AS(check_identity("ck", before, after),
                       doctest::Contains("ck: checkpoint: array \"R\" differs from the one passed when the checkpoint "
                                         "was taken (same size, other contents: FNV-1a "),
                       InputError);
  // The checkpoint's header records it as a line of its own (scfw.solve's resume in
  // tests/python/test_data.py reads one back).
  Checkpoint ck;
  ck.identity = before;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(before.arrays[0].hash));
  CHECK(checkpoint_text(ck).find("\narray 504 " + std::string(hex) + " R\n") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// least_squares_tasks and matrix_completion read the host's arrays in place too: the runs have
// the bits of the same numbers in files, and the memory account holds exactly the bytes of the
// file's copy less.

namespace {

/// Task i's rows, rows x 7, about a quarter of the entries zeros, and column (i + 2) mod 7 zero in
/// every row; its labels.
RowMatrix task_rows(int i, int rows) {
  RowMatrix A(rows, 7);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < 7; ++j) A(r, j) = (r + j + i) % 4 != 0 && j != (i + 2) % 7 ? std::cos(0.37 * r * (j + 1) + i) : 0.0;
  return A;
}
Vec task_labels(int i, int rows) {
  Vec b(rows);
  for (int r = 0; r < rows; ++r) b[r] = std::sin(0.5 * r + i) + 0.1 * i;
  return b;
}

/// The task as a LIBSVM file: every entry of each row (`every`), or its non-zeros.
fs::path write_libsvm(const RowMatrix& A, const Vec& b, bool every, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "scfw_test_host_arrays";
  fs::create_directories(dir);
  const fs::path file = dir / name;
  std::ofstream out(file);
  for (Eigen::Index r = 0; r < A.rows(); ++r) {
    out << number(b[r]);
    for (Eigen::Index j = 0; j < A.cols(); ++j)
      if (every || A(r, j) != 0.0) out << " " << j + 1 << ":" << number(A(r, j));
    out << "\n";
  }
  return file;
}

nlohmann::json regression(const nlohmann::json& data, const std::string& jacobian, int batch = 3) {
  nlohmann::json oracle = {{"plugin", "least_squares_tasks"}, {"batch", batch}, {"jacobian", jacobian}};
  oracle.update(data);
  return {{"seed", 5},
          {"iterations", 50},
          {"oracle", oracle},
          {"outer", {{"plugin", "max"}}},
          {"domain", {{"plugin", "l1_ball"}, {"radius", 2}}},
          {"tracker", {{"plugin", "momentum"}, {"value", "taylor"}}},
          {"report", {{"every", 10}}}};
}

void same_bits(const Summary& a, const Summary& b) {
  REQUIRE(a.y.size() == b.y.size());
  CHECK(a.y == b.y);
  CHECK(std::bit_cast<std::uint64_t>(a.final_objective) == std::bit_cast<std::uint64_t>(b.final_objective));
  CHECK(std::bit_cast<std::uint64_t>(a.final_gap) == std::bit_cast<std::uint64_t>(b.final_gap));
}

/// prefix + i + suffix, built by appends (g++ 12 warns (-Wrestrict) on "A" + std::to_string(i)).
std::string numbered(const char* prefix, int i, const char* suffix = "") {
  std::string s = prefix;
  s += std::to_string(i);
  s += suffix;
  return s;
}

using Csr32 = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
using Csr64 = Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>;

}  // namespace

TEST_CASE("least_squares_tasks reads dense and CSR tasks in place, to the bits of LIBSVM files") {
  const Host host;
  // Four tasks, so that batch 1 takes the four-rows-at-once path of dense rows.
  const std::vector<int> sizes = {9, 12, 7, 10};
  std::vector<RowMatrix> A;
  std::vector<Vec> b;
  std::vector<Csr32> S;
  std::vector<Csr64> L;
  std::string every, sparse, a_names, b_names;
  std::int64_t rows = 0, nonzeros = 0;
  for (int i = 0; i < 4; ++i) {
    A.push_back(task_rows(i, sizes[static_cast<size_t>(i)]));
    b.push_back(task_labels(i, sizes[static_cast<size_t>(i)]));
    S.push_back(A.back().sparseView());  // the non-zeros, as scipy's csr_matrix(A) stores them
    L.push_back(A.back().sparseView());
    S.back().makeCompressed();
    L.back().makeCompressed();
    const std::string sep = i ? ", " : "";
    every += sep;
    every += write_libsvm(A.back(), b.back(), true, numbered("every", i, ".txt")).string();
    sparse += sep;
    sparse += write_libsvm(A.back(), b.back(), false, numbered("sparse", i, ".txt")).string();
    a_names += sep;
    a_names += numbered("A", i);
    b_names += sep;
    b_names += numbered("b", i);
    rows += A.back().rows();
    nonzeros += (A.back().array() != 0.0).count();
  }
  const std::int64_t cells = rows * 7;
  REQUIRE(nonzeros < cells);
  const nlohmann::json names = {{"arrays", a_names}, {"labels", b_names}};
  // 0: every task dense; 1: CSR with 4-byte indices; 2: 8-byte; 3: dense, 4-byte, 8-byte, dense.
  auto arrays = [&](int kind) {
    auto t = std::make_shared<HostArrays>();
    for (int i = 0; i < 4; ++i) {
      const std::string name = numbered("A", i);
      const int as = kind < 3 ? kind : std::vector<int>{0, 1, 2, 0}[static_cast<size_t>(i)];
      if (as == 0) t->add(name, matrix_view(A[static_cast<size_t>(i)]));
      if (as == 1) t->add(name, csr_view(S[static_cast<size_t>(i)]));
      if (as == 2) t->add(name, csr_view(L[static_cast<size_t>(i)]));
      t->add(numbered("b", i), vector_view(b[static_cast<size_t>(i)]));
    }
    return t;
  };
  for (const std::string jacobian : {"dense", "sparse"}) {
    for (const int batch : {3, 1, 0}) {
      CAPTURE(jacobian);
      CAPTURE(batch);
      Composition by_every = host.compose(regression({{"files", every}, {"features", 7}}, jacobian, batch), "problem");
      Composition by_sparse = host.compose(regression({{"files", sparse}, {"features", 7}}, jacobian, batch), "problem");
      const Summary every_run = solve(by_every), sparse_run = solve(by_sparse);
      // A dense Jacobian: a row's zeros add nothing to a sum's bits, so both files agree. A
      // sparse one: a dense array's zeros are not entries, its pattern is the CSR matrix's of
      // its non-zeros (the file of non-zeros), not the file's of every entry.
      if (jacobian == "dense") same_bits(every_run, sparse_run);
      for (const int kind : {0, 1, 2, 3}) {
        CAPTURE(kind);
        Composition c = host.compose(regression(names, jacobian, batch), "problem", ".", with(arrays(kind)));
        same_bits(solve(c), sparse_run);
        if (jacobian == "sparse") {
          REQUIRE(c.problem.oracle->jacobian_pattern());
          CHECK(c.problem.oracle->jacobian_pattern()->same_as(*by_sparse.problem.oracle->jacobian_pattern()));
          CHECK(c.problem.oracle->jacobian_pattern()->nnz() < by_every.problem.oracle->jacobian_pattern()->nnz());
        } else {
          // Nothing of the rows is copied: the account holds a file's run less the file's rows
          // (a column index and a value per stored entry, a label and a row offset per row).
          CHECK(c.method.memory.held() + static_cast<std::uint64_t>(cells * 12 + rows * 16) == by_every.method.memory.held());
          CHECK(c.method.memory.held() + static_cast<std::uint64_t>(nonzeros * 12 + rows * 16) == by_sparse.method.memory.held());
        }
      }
    }
  }
  fs::remove_all(fs::temp_directory_path() / "scfw_test_host_arrays");
}

namespace {

/// Observed entries of a 6 x 5 matrix as 1-based (row, col, value) triplets.
RowMatrix triplets() {
  std::vector<std::array<double, 3>> rows;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j)
      if ((i + 2 * j) % 3 != 1) rows.push_back({i + 1.0, j + 1.0, std::sin(i + 0.3 * j) * 2.5});
  RowMatrix T(static_cast<Eigen::Index>(rows.size()), 3);
  for (size_t k = 0; k < rows.size(); ++k)
    for (int c = 0; c < 3; ++c) T(static_cast<Eigen::Index>(k), c) = rows[k][static_cast<size_t>(c)];
  return T;
}

nlohmann::json completion(const nlohmann::json& data) {
  nlohmann::json oracle = {{"plugin", "matrix_completion"}, {"groups", 5}, {"batch", 2}};
  oracle.update(data);
  return {{"seed", 2},
          {"iterations", 40},
          {"oracle", oracle},
          {"outer", {{"plugin", "norm"}, {"p", "1"}}},
          {"domain", {{"plugin", "nuclear_ball"}, {"rows", 6}, {"cols", 5}, {"radius", 3}}},
          {"report", {{"every", 10}}}};
}

}  // namespace

TEST_CASE("matrix_completion reads triplets in place, to the bits of a file") {
  const Host host;
  const RowMatrix T = triplets();
  const std::int64_t k = T.rows();
  const fs::path dir = fs::temp_directory_path() / "scfw_test_host_arrays";
  fs::create_directories(dir);
  const fs::path file = dir / "m.txt";
  {
    std::ofstream out(file);
    for (Eigen::Index e = 0; e < k; ++e) out << T(e, 0) << " " << T(e, 1) << " " << number(T(e, 2)) << "\n";
  }
  RowMatrix zero_based = T;
  zero_based.leftCols(2).array() -= 1.0;
  const std::vector<nlohmann::json> variants = {
      {{"jacobian", "dense"}},
      {{"jacobian", "sparse"}},
      {{"groups", 0}, {"jacobian", "sparse"}},
      {{"grouping", "blocks"}, {"row_bins", 2}, {"col_bins", 2}, {"by_value", true}},
      {{"weighting", "share"}, {"rows", 7}, {"cols", 6}}};
  for (const nlohmann::json& variant : variants) {
    CAPTURE(variant.dump());
    nlohmann::json by_file = completion({{"file", file.string()}}), by_array = completion({{"array", "M"}});
    by_file["oracle"].update(variant);
    by_array["oracle"].update(variant);
    if (variant.contains("rows")) by_file["domain"]["rows"] = by_array["domain"]["rows"] = 7;
    if (variant.contains("cols")) by_file["domain"]["cols"] = by_array["domain"]["cols"] = 6;
    Composition a = host.compose(by_file, "problem");
    Composition b = host.compose(by_array, "problem", ".", with(table("M", matrix_view(T))));
    const Summary file_run = solve(a);
    same_bits(solve(b), file_run);
    // The oracle keeps the group order of the triplets, not the file's copy of their coordinates
    // and values (8 bytes each).
    CHECK(b.method.memory.held() + static_cast<std::uint64_t>(k * 16) == a.method.memory.held());
    nlohmann::json from_zero = by_array;
    from_zero["oracle"]["one_based"] = false;
    Composition z = host.compose(from_zero, "problem", ".", with(table("M", matrix_view(zero_based))));
    same_bits(solve(z), file_run);
  }
  // A sub-matrix renumbers the entries: their coordinates are computed and held, and their
  // values beside them, as a file's.
  nlohmann::json top_file = completion({{"file", file.string()}, {"top_rows", 4}}), top_array = completion({{"array", "M"}, {"top_rows", 4}});
  top_file["domain"]["rows"] = top_array["domain"]["rows"] = 4;
  Composition a = host.compose(top_file, "problem");
  Composition b = host.compose(top_array, "problem", ".", with(table("M", matrix_view(T))));
  same_bits(solve(a), solve(b));
  CHECK(b.method.memory.held() == a.method.memory.held());
  // The checks are the file's, located by the array's row.
  RowMatrix repeated(k + 1, 3);
  repeated << T, T.row(2);
  CHECK_THROWS_WITH_AS(host.compose(completion({{"array", "M"}}), "problem", ".", with(table("M", matrix_view(repeated)))),
                       ("data \"M\": row " + std::to_string(k) + ": entry (1, 4) repeats row 2").c_str(), InputError);
  fs::remove_all(dir);
}
