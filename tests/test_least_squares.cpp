// The `least_squares_tasks` oracle (Task 1) and the SDK's check_oracle.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <unistd.h>

#include "scfw/conformance.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/error.hpp"
#include "plugin_support.hpp"
#include "shared_data.hpp"
#include "../plugins/oracle/least_squares_tasks/libsvm.hpp"

namespace fs = std::filesystem;
using scfw::test::input_error;
using scfw::test::TempDir;
using scfw::Mat;
using scfw::Vec;

namespace {

using nlohmann::json;

std::unique_ptr<scfw::Oracle> make_oracle(const json& block, const scfw::Context& ctx = {}) {
  return scfw::test::make<scfw::Oracle>("least_squares_tasks", scfw::test::params(block), ctx);
}

json synthetic_params(std::int64_t tasks, std::int64_t dim, std::int64_t rows, std::int64_t batch,
                      std::int64_t seed = 1) {
  return {{"batch", batch},
          {"synthetic",
           {{"tasks", tasks},
            {"dim", dim},
            {"rows_per_task", rows},
            {"sparsity", std::min<std::int64_t>(10, dim)},
            {"noise", 0.5},
            {"seed", seed}}}};
}

json file_params(const std::string& file, std::int64_t tasks) {
  return {{"batch", 1}, {"file", file}, {"tasks", tasks}};
}

Vec random_vec(int d, unsigned seed, double scale = 1.0) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-scale, scale);
  Vec x(d);
  for (int j = 0; j < d; ++j) x[j] = u(g);
  return x;
}

/// Delegates to a real oracle and distorts it, to show that check_oracle catches the distortion.
class DistortedOracle : public scfw::Oracle {
 public:
  DistortedOracle(const scfw::Oracle& inner, double jacobian_factor, double value_bias)
      : inner_(inner), factor_(jacobian_factor), bias_(value_bias) {}
  int dim() const override { return inner_.dim(); }
  int outputs() const override { return inner_.outputs(); }
  std::unique_ptr<scfw::Sample> make_sample() const override { return inner_.make_sample(); }
  void draw(scfw::Rng& rng, scfw::Sample& s) const override { inner_.draw(rng, s); }
  void evaluate(const scfw::Sample& s, const Vec& x, Vec* f, scfw::Jacobian* J) const override {
    inner_.evaluate(s, x, f, J);
    if (J) J->values() *= factor_;
    if (f) f->array() += bias_;  // a biased sample value: E f~ != f
  }
  scfw::Capabilities capabilities() const override { return scfw::Capability::Exact; }
  void exact(const Vec& x, Vec* f, scfw::Jacobian* J) const override {
    inner_.exact(x, f, J);
    if (J) J->values() *= factor_;
  }

 private:
  const scfw::Oracle& inner_;
  double factor_, bias_;
};

}  // namespace

TEST_CASE("least_squares_tasks: check_oracle passes on the paper's synthetic Task 1 instance") {
  // The defaults of the paper's setting: m = 10 tasks, d = 100, 500 rows per task.
  auto oracle = make_oracle(synthetic_params(10, 100, 500, 1));
  CHECK(oracle->outputs() == 10);
  CHECK(oracle->dim() == 100);
  const Vec x = random_vec(100, 42, 0.1);
  const auto rep = scfw::conformance::check_oracle(*oracle, x);
  INFO(rep.message);
  CHECK(rep.ok);
  CHECK(rep.max_error <= 1.0);
}

TEST_CASE("least_squares_tasks: check_oracle passes with a minibatch on a small instance") {
  auto oracle = make_oracle(synthetic_params(4, 8, 40, 3, 7));
  const Vec x = random_vec(8, 3);
  const auto rep = scfw::conformance::check_oracle(*oracle, x);
  INFO(rep.message);
  CHECK(rep.ok);
}

TEST_CASE("check_oracle reports a wrong Jacobian and a biased sample value") {
  auto oracle = make_oracle(synthetic_params(3, 6, 30, 2));
  const Vec x = random_vec(6, 5);

  // J off by a factor in both the samples and the exact pass: unbiased, but not the derivative.
  DistortedOracle wrong_j(*oracle, 1.5, 0.0);
  const auto rep = scfw::conformance::check_oracle(wrong_j, x);
  INFO(rep.message);
  CHECK_FALSE(rep.ok);
  CHECK(rep.max_error > 1.0);
  CHECK(rep.message.find("finite differences of exact f vs exact J") != std::string::npos);
  CHECK(rep.message.find("finite differences of f~(.; xi) vs J~(.; xi)") != std::string::npos);
  CHECK(rep.message.find("unbiasedness") == std::string::npos);  // the means still agree
  CHECK(rep.message.find("J(0, 0): finite difference") != std::string::npos);

  // f~ shifted by 1 (a few percent of f here): the derivatives agree, the sample mean does not.
  DistortedOracle biased(*oracle, 1.0, 1.0);
  const auto rep2 = scfw::conformance::check_oracle(biased, x);
  INFO(rep2.message);
  CHECK_FALSE(rep2.ok);
  CHECK(rep2.message.find("unbiasedness") != std::string::npos);
  CHECK(rep2.message.find("f[0]: sample mean") != std::string::npos);
  CHECK(rep2.message.find("finite differences of") == std::string::npos);
}

TEST_CASE("least_squares_tasks: the synthetic data depend on the data seed only") {
  auto a = make_oracle(synthetic_params(3, 5, 20, 1, 11));
  auto b = make_oracle(synthetic_params(3, 5, 20, 4, 11));  // batch does not change the data
  auto c = make_oracle(synthetic_params(3, 5, 20, 1, 12));
  const Vec x = random_vec(5, 1);
  Vec fa(3), fb(3), fc(3);
  a->exact(x, &fa, nullptr);
  b->exact(x, &fb, nullptr);
  c->exact(x, &fc, nullptr);
  CHECK(fa == fb);
  CHECK(fa != fc);
}

namespace {
// 8 rows, 5 features; labels +1 -1 -1 +1 -1 +1 -1 -1, with a comment, a blank line, trailing
// spaces, a tab, "+1" labels and a '#' comment after a row.
const char* kSmallFile =
    "# a small LIBSVM file\n"
    "+1 1:0.5 3:-2 \n"
    "-1 2:1.5\t5:3\n"
    "\n"
    "-1 1:1 2:1 3:1 4:1 5:1   \n"
    "1 4:-0.25 # comment after a row\n"
    "-1 \n"
    "+1 2:2 3:0.75\n"
    "-1 1:-1 5:0.5\n"
    "-1.0 3:4\n";
const double kDense[8][5] = {{0.5, 0, -2, 0, 0}, {0, 1.5, 0, 0, 3},    {1, 1, 1, 1, 1},   {0, 0, 0, -0.25, 0},
                             {0, 0, 0, 0, 0},    {0, 2, 0.75, 0, 0}, {-1, 0, 0, 0, 0.5}, {0, 0, 4, 0, 0}};
const double kLabels[8] = {1, -1, -1, 1, -1, 1, -1, -1};
const int kTokens = 2 + 2 + 5 + 1 + 0 + 2 + 2 + 1;
}  // namespace

TEST_CASE("LIBSVM reader: values, labels and non-zeros of a small file") {
  TempDir dir;
  const std::string path = dir.write("small.svm", kSmallFile);
  const auto data = scfw::libsvm::read(path);
  REQUIRE(data.rows() == 8);
  CHECK(data.max_index == 5);
  CHECK(data.nnz() == static_cast<size_t>(kTokens));
  for (int r = 0; r < 8; ++r) {
    CHECK(data.labels[r] == kLabels[r]);
    double dense[5] = {0, 0, 0, 0, 0};
    for (auto k = data.row_ptr[r]; k < data.row_ptr[r + 1]; ++k) dense[data.cols[k]] = data.vals[k];
    for (int j = 0; j < 5; ++j) CHECK(dense[j] == kDense[r][j]);
  }
}

TEST_CASE("LIBSVM reader: the stratified split keeps the label proportions") {
  // 30 rows of -1 and 9 of +1, interleaved; 3 tasks: each gets 10 and 3.
  std::string text;
  std::vector<double> labels;
  for (int r = 0; r < 39; ++r) {
    const bool pos = r % 13 < 3;
    labels.push_back(pos ? 1 : -1);
    text += std::string(pos ? "+1" : "-1") + " 1:" + std::to_string(r + 1) + "\n";
  }
  TempDir dir;
  const auto data = scfw::libsvm::read(dir.write("strat.svm", text));
  const auto split = scfw::libsvm::stratified_split(data.labels, 3);
  REQUIRE(split.size() == 3);
  size_t total = 0;
  for (const auto& task : split) {
    int pos = 0, neg = 0;
    for (size_t r : task) (labels[r] > 0 ? pos : neg)++;
    CHECK(pos == 3);
    CHECK(neg == 10);
    total += task.size();
    CHECK(std::is_sorted(task.begin(), task.end()));
  }
  CHECK(total == 39);
}

TEST_CASE("least_squares_tasks: exact f and J of a LIBSVM file equal a dense computation") {
  TempDir dir;
  dir.write("small.svm", kSmallFile);
  scfw::Context ctx;
  ctx.base_dir = dir.path.string();  // a relative `file` resolves against the problem's folder
  auto oracle = make_oracle(file_params("small.svm", 2), ctx);
  REQUIRE(oracle->outputs() == 2);
  REQUIRE(oracle->dim() == 5);
  // The documented split: label +1 (first seen) rows 0, 3, 5 dealt to tasks 0, 1, 0; then label
  // -1 continues at task 1: rows 1, 2, 4, 6, 7 to tasks 1, 0, 1, 0, 1.
  const std::vector<std::vector<int>> tasks = {{0, 2, 5, 6}, {1, 3, 4, 7}};
  const Vec x = random_vec(5, 9);
  Vec f(2);
  Mat J(2, 5);
  oracle->exact(x, &f, scfw::test::as_jacobian(J));
  for (int i = 0; i < 2; ++i) {
    double fi = 0;
    double gi[5] = {0, 0, 0, 0, 0};
    for (int r : tasks[i]) {
      double res = -kLabels[r];
      for (int j = 0; j < 5; ++j) res += kDense[r][j] * x[j];
      fi += res * res;
      for (int j = 0; j < 5; ++j) gi[j] += res * kDense[r][j];
    }
    const double N = static_cast<double>(tasks[i].size());
    CHECK(f[i] == doctest::Approx(fi / (2 * N)).epsilon(1e-14));
    for (int j = 0; j < 5; ++j) CHECK(J(i, j) == doctest::Approx(gi[j] / N).epsilon(1e-14));
  }

  // `files`: one file per task, same rows, so the same f and J.
  dir.write("t0.svm", "+1 1:0.5 3:-2\n-1 1:1 2:1 3:1 4:1 5:1\n+1 2:2 3:0.75\n-1 1:-1 5:0.5\n");
  dir.write("t1.svm", "-1 2:1.5 5:3\n1 4:-0.25\n-1\n-1 3:4\n");
  auto per_file = make_oracle({{"batch", 1}, {"files", "t0.svm, t1.svm"}}, ctx);
  REQUIRE(per_file->outputs() == 2);
  Vec f2(2);
  Mat J2(2, 5);
  per_file->exact(x, &f2, scfw::test::as_jacobian(J2));
  CHECK((f2 - f).norm() <= 1e-14 * f.norm());
  CHECK((J2 - J).norm() <= 1e-14 * J.norm());
}

TEST_CASE("least_squares_tasks: bad data files are reported with file and line, word for word") {
  TempDir dir;
  const std::string base = dir.path.string();
  auto error_for = [&](const std::string& text, std::int64_t tasks = 1) {
    const std::string path = dir.write("data.svm", text);
    return input_error([&] { make_oracle(file_params(path, tasks)); });
  };
  const std::string path = (dir.path / "data.svm").string();

  CHECK(error_for("1 1:1\n-1 2:1\n1 3:1 7x1\n") == path + ":3: expected index:value, got \"7x1\"");
  CHECK(error_for("1 1:1\n# comment\n\n-1 2:1\n1 2:1 9:1 4:1\n") == path + ":5: feature indices must increase (4 after 9)");
  CHECK(error_for("1 1:1\nabc 2:1\n") == path + ":2: bad label \"abc\"");
  CHECK(error_for("1 1:1 3:x\n") == path + ":1: expected index:value, got \"3:x\"");
  CHECK(error_for("1 0:1\n") == path + ":1: feature indices start at 1, got 0");
  CHECK(error_for("1 1:1\n-1 2:1\n", 3) ==
        path + ": task 3 of 3 has no rows (the file has 2 rows; use at most that many tasks)");
  // A missing file: its parameter, the folder looked in and the nearest name there.
  const std::string folder = std::filesystem::absolute(dir.path).lexically_normal().string();
  CHECK(input_error([&] { make_oracle(file_params((dir.path / "missing.svm").string(), 2)); }) ==
        "<input>: /file: no file 'missing.svm' in " + folder);
  // Relative paths resolve against the problem file's folder, and the message names that folder.
  scfw::Context ctx;
  ctx.base_dir = base;
  CHECK(input_error([&] { make_oracle(file_params("data.sv", 2), ctx); }) ==
        "<input>: /file: no file 'data.sv' in " + folder + " (did you mean 'data.svm'?)");

  // An empty entry of `files`; the list shown cut to 40 bytes, control characters as '?'.
  CHECK(input_error([&] { make_oracle({{"batch", 1}, {"files", "t0.svm,,t1.svm"}}); }) ==
        "<input>: /files: empty path in the comma-separated list \"t0.svm,,t1.svm\"");
  CHECK(input_error([&] { make_oracle({{"batch", 1}, {"files", "a\x7f,," + std::string(60, 'b')}}); }) ==
        "<input>: /files: empty path in the comma-separated list \"a?,," + std::string(36, 'b') + "... (64 bytes)\"");

  // Parameter errors name the parameter.
  CHECK(input_error([&] { make_oracle({{"batch", 1}}); }) ==
        "<input>: /synthetic: no data source: give one of \"synthetic\", \"file\" (with \"tasks\"), \"files\" or \"arrays\"");
  CHECK(input_error([&] { make_oracle({{"file", path}}); }) ==
        "<input>: /tasks: \"file\" needs \"tasks\", the number of subsets to split it into");
  // An integer the plugin reads as an int is refused when it does not fit, never truncated
  // (4294967297 = 2^32 + 1 would otherwise run as batch 1).
  CHECK(input_error([&] { make_oracle(synthetic_params(2, 3, 4, std::int64_t{4294967297})); }) ==
        "<input>: /batch: expected an integer <= 2147483647 (it is read as an int), got 4294967297");
  CHECK(input_error([&] { make_oracle(synthetic_params(2, 3, 4, -1)); }) == "<input>: /batch: expected an integer >= 0, got -1");
}

TEST_CASE("shared data: least_squares_tasks: a9a, 10 label-stratified tasks") {
  const std::string path = scfw::test::shared_data_file("a9a");
  if (path.empty()) return;
  const auto data = scfw::libsvm::read(path);
  CHECK(data.rows() == 32561);
  CHECK(data.max_index == 123);
  CHECK(data.nnz() == 451592);
  std::map<double, int> counts;
  for (double y : data.labels) counts[y]++;
  CHECK(counts.size() == 2);
  CHECK(counts[-1] == 24720);
  CHECK(counts[1] == 7841);

  const auto split = scfw::libsvm::stratified_split(data.labels, 10);
  REQUIRE(split.size() == 10);
  for (const auto& task : split) {
    int neg = 0, pos = 0;
    for (size_t r : task) (data.labels[r] > 0 ? pos : neg)++;
    CHECK(std::abs(neg - 24720 / 10.0) <= 1.0);
    CHECK(std::abs(pos - 7841 / 10.0) <= 1.0);
  }

  auto oracle = make_oracle(file_params(path, 10));
  CHECK(oracle->outputs() == 10);
  CHECK(oracle->dim() == 123);
  // At x = 0 every residual is -b = -(+-1), so f_i = 1/2 exactly.
  Vec f(10);
  oracle->exact(Vec::Zero(123), &f, nullptr);
  for (int i = 0; i < 10; ++i) CHECK(f[i] == doctest::Approx(0.5).epsilon(1e-15));
}

TEST_CASE("least_squares_tasks: the Hessian action equals finite differences of J~ for one sample") {
  auto oracle = make_oracle(synthetic_params(4, 12, 50, 3));
  REQUIRE(oracle->capabilities().has(scfw::Capability::HessianAction));
  const Vec x = random_vec(12, 21), v = random_vec(12, 22);
  scfw::Rng rng(5);
  auto s = oracle->make_sample();
  oracle->draw(rng, *s);
  Mat H(4, 12), Jp(4, 12), Jm(4, 12);
  oracle->hessian_action(*s, x, v, H);
  const double h = 1e-4;
  oracle->evaluate(*s, x + h * v, nullptr, scfw::test::as_jacobian(Jp));
  oracle->evaluate(*s, x - h * v, nullptr, scfw::test::as_jacobian(Jm));
  const Mat fd = (Jp - Jm) / (2 * h);
  INFO("max |H - fd| = " << (H - fd).cwiseAbs().maxCoeff());
  CHECK((H - fd).cwiseAbs().maxCoeff() <= 1e-7 * std::max(1.0, H.cwiseAbs().maxCoeff()));
  CHECK(H.cwiseAbs().maxCoeff() > 0.1);  // not trivially zero
}
