// The `grouped_logistic` oracle (group DRO): groups from categorical blocks crossed with the
// label, values and Jacobians against finite differences and an independent per-group sum, the
// Hessian action, and the oracle composed with max, cvar and dro_chi2 over three domains.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>

#include "scfw/conformance.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"
#include "plugin_support.hpp"
#include "shared_data.hpp"
#include "../plugins/oracle/grouped_logistic/grouped_data.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using scfw::Mat;
using scfw::Vec;

namespace {

/// A generated LIBSVM file: features 1-2 one categorical attribute (2 values, 2:1), 3-5 another
/// (3 values), 6-10 real-valued features each present with probability 1/2; labels -1/+1 drawn
/// with a probability that depends on the attributes.
struct GeneratedFile {
  fs::path path;
  explicit GeneratedFile(int rows, const std::string& tag = "a", unsigned seed = 7) {
    path = fs::temp_directory_path() / ("scfw_grouped_" + std::to_string(::getpid()) + "_" + tag + ".svm");
    std::ofstream out(path);
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int r = 0; r < rows; ++r) {
      const int a = u(g) < 2.0 / 3.0 ? 2 : 1;
      const double v = u(g);
      const int b = v < 0.6 ? 3 : (v < 0.85 ? 4 : 5);
      const bool pos = u(g) < 0.2 + 0.1 * a + 0.1 * (b - 3);
      out << (pos ? "+1" : "-1") << " " << a << ":1 " << b << ":1";
      for (int j = 6; j <= 10; ++j)
        if (u(g) < 0.5) out << " " << j << ":" << (u(g) * 2.0 - 1.0);
      out << "\n";
    }
  }
  ~GeneratedFile() { fs::remove(path); }
};

std::unique_ptr<scfw::Oracle> make_oracle(json block) {
  return scfw::test::make<scfw::Oracle>("grouped_logistic", scfw::test::params(std::move(block)), scfw::test::context(0, 0));
}

Vec point(int d, unsigned seed, double scale) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-scale, scale);
  Vec x(d);
  for (int j = 0; j < d; ++j) x[j] = u(g);
  return x;
}

/// The per-group mean losses computed from the file's text, without grouped_data.hpp: a group is
/// (the feature set in 1-2, the one set in 3-5, the label), ordered lexicographically.
std::map<std::vector<double>, std::pair<double, int>> direct_means(const fs::path& path, const Vec& x, bool huber, double delta) {
  std::map<std::vector<double>, std::pair<double, int>> sums;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    double y = 0;
    s >> y;
    std::string tok;
    double t = 0;
    int a = 0, b = 0;
    while (s >> tok) {
      const int j = std::stoi(tok.substr(0, tok.find(':')));
      const double v = std::stod(tok.substr(tok.find(':') + 1));
      t += v * x[j - 1];
      if (j <= 2) a = j;
      else if (j <= 5) b = j;
    }
    double l = 0;
    if (huber) {
      const double r = t - y;
      l = std::abs(r) <= delta ? 0.5 * r * r : delta * (std::abs(r) - 0.5 * delta);
    } else {
      l = std::log(1.0 + std::exp(-y * t));
    }
    auto& e = sums[{static_cast<double>(a), static_cast<double>(b), y}];
    e.first += l;
    e.second += 1;
  }
  return sums;
}

}  // namespace

TEST_CASE("grouped_logistic: the categorical blocks of a generated file") {
  const GeneratedFile file(400, "blocks");
  const auto data = scfw::libsvm::read(file.path.string());
  std::vector<std::int64_t> count;
  const auto blocks = scfw::grouped::exclusive_blocks(data, &count);
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].first == 1);
  CHECK(blocks[0].last == 2);
  CHECK(blocks[1].first == 3);
  CHECK(blocks[1].last == 5);
  CHECK(count[1] + count[2] == 400);
  CHECK(count[3] + count[4] + count[5] == 400);
  CHECK(count[2] > count[1]);  // the 2:1 attribute
}

TEST_CASE("grouped_logistic: groups, exact values and Jacobian against a direct sum") {
  const GeneratedFile file(600, "exact");
  for (const bool huber : {false, true}) {
    json block = {{"file", file.path.string()}, {"group_by", "1-2,3-5"}, {"batch", 4}};
    if (huber) {
      block["loss"] = "huber";
      block["delta"] = 0.7;
    }
    const auto o = make_oracle(block);
    const Vec x = point(10, 3, 1.5);
    const auto direct = direct_means(file.path, x, huber, 0.7);
    REQUIRE(o->outputs() == static_cast<int>(direct.size()));
    CHECK(o->outputs() == 12);
    CHECK(o->dim() == 10);
    CHECK(o->output_names().front() == "features 1+3, label -1");
    Vec f(o->outputs());
    o->exact(x, &f, nullptr);
    int g = 0;
    for (const auto& [key, e] : direct) {
      CHECK(f[g] == doctest::Approx(e.first / e.second).epsilon(1e-12));
      ++g;
    }
    // One group of all rows (plain ERM): the row-weighted mean of the group losses.
    json all = block;
    all.erase("group_by");
    all["by_label"] = false;
    const auto erm = make_oracle(all);
    REQUIRE(erm->outputs() == 1);
    CHECK(erm->output_names() == std::vector<std::string>{"all rows"});
    Vec f1(1);
    erm->exact(x, &f1, nullptr);
    double total = 0;
    int rows = 0;
    for (const auto& [key, e] : direct) {
      total += e.first;
      rows += e.second;
    }
    CHECK(rows == 600);
    CHECK(f1[0] == doctest::Approx(total / rows).epsilon(1e-12));
    // Conformance: unbiased samples, finite differences of the exact f and of one sample.
    scfw::conformance::OracleCheckOptions opt;
    opt.samples = 3000;
    const auto report = scfw::conformance::check_oracle(*o, x, opt);
    CHECK_MESSAGE(report.ok, report.message);
  }
}

TEST_CASE("grouped_logistic: sparse and dense Jacobians agree; batch 0 is the exact oracle") {
  const GeneratedFile file(300, "kinds");
  const json base = {{"file", file.path.string()}, {"group_by", "3-5"}, {"batch", 3}};
  json dense_block = base;
  dense_block["jacobian"] = "dense";
  const auto sparse = make_oracle(base), dense = make_oracle(dense_block);
  REQUIRE(sparse->jacobian_pattern() != nullptr);
  const Vec x = point(10, 5, 1.0);
  auto s = sparse->make_sample();
  scfw::Rng rng(11);
  sparse->draw(rng, *s);
  Vec fs_(sparse->outputs()), fd(dense->outputs());
  scfw::Jacobian Js = scfw::make_jacobian(*sparse), Jd = scfw::make_jacobian(*dense);
  sparse->evaluate(*s, x, &fs_, &Js);
  dense->evaluate(*s, x, &fd, &Jd);
  Mat a, b;
  Js.to_dense(a);
  Jd.to_dense(b);
  CHECK((a - b).cwiseAbs().maxCoeff() == 0.0);
  CHECK((fs_ - fd).cwiseAbs().maxCoeff() == 0.0);

  json full_block = base;
  full_block["batch"] = 0;
  const auto full = make_oracle(full_block);
  auto s0 = full->make_sample();
  full->draw(rng, *s0);
  Vec f0(full->outputs()), fe(full->outputs());
  scfw::Jacobian J0 = scfw::make_jacobian(*full), Je = scfw::make_jacobian(*full);
  full->evaluate(*s0, x, &f0, &J0);
  full->exact(x, &fe, &Je);
  CHECK((f0 - fe).cwiseAbs().maxCoeff() == 0.0);
  CHECK((J0.values() - Je.values()).cwiseAbs().maxCoeff() == 0.0);
}

TEST_CASE("grouped_logistic: the Hessian action against finite differences of the Jacobian") {
  const GeneratedFile file(300, "hessian");
  for (const char* loss : {"logistic", "huber"}) {
    const auto o = make_oracle({{"file", file.path.string()}, {"group_by", "1-2"}, {"batch", 5}, {"loss", loss}, {"jacobian", "dense"}});
    const int n = o->outputs(), d = o->dim();
    auto s = o->make_sample();
    scfw::Rng rng(3);
    o->draw(rng, *s);
    const Vec x = point(d, 8, 0.5), v = point(d, 9, 1.0);
    Mat H(n, d);
    o->hessian_action(*s, x, v, H);
    const double h = 1e-6;
    scfw::Jacobian Jp(n, d), Jm(n, d);
    const Vec xp = x + h * v, xm = x - h * v;
    o->evaluate(*s, xp, nullptr, &Jp);
    o->evaluate(*s, xm, nullptr, &Jm);
    const Mat fd = (Jp.dense() - Jm.dense()) / (2 * h);
    // Huber's second derivative jumps at |t - y| = delta; x is drawn small enough that no drawn
    // row sits within h of a kink.
    CHECK((fd - H).cwiseAbs().maxCoeff() <= 1e-6 * std::max(1.0, H.cwiseAbs().maxCoeff()));
  }
}

TEST_CASE("grouped_logistic: refusals, one located line each") {
  const fs::path dir = fs::temp_directory_path();
  const fs::path bad = dir / ("scfw_grouped_bad_" + std::to_string(::getpid()) + ".svm");
  {
    std::ofstream(bad) << "+1 1:1 3:1\n-1 2:1 4:1 5:1\n";
  }
  CHECK(scfw::test::input_error([&] { make_oracle({{"file", bad.string()}, {"group_by", "3-5"}}); }) ==
        bad.string() + ": row 2: features 4 and 5 of the block 3-5 are both set (a block is one categorical attribute: one feature per row)");
  CHECK(scfw::test::input_error([&] { make_oracle({{"file", bad.string()}, {"group_by", "6-7"}, {"features", 7}}); }) ==
        bad.string() + ": row 1: no feature of the block 6-7 is set (a block is one categorical attribute: one feature per row)");
  CHECK(scfw::test::input_error([&] { make_oracle({{"file", bad.string()}, {"group_by", "1-2,x"}}); }) ==
        "<input>: /group_by: expected blocks of 1-based feature indices such as \"67-71,72-73\", got \"x\"");
  CHECK(scfw::test::input_error([&] { make_oracle({{"file", bad.string()}, {"group_by", "1-2,2-3"}}); }) ==
        "<input>: /group_by: the blocks 1-2 and 2-3 overlap");
  CHECK(scfw::test::input_error([&] { make_oracle({{"file", bad.string()}, {"delta", 2}}); }) ==
        "<input>: /delta: only used with \"loss\": \"huber\"");
  {
    std::ofstream(bad) << "+1 1:1\n2 2:1\n";
  }
  CHECK(scfw::test::input_error([&] { make_oracle({{"file", bad.string()}, {"group_by", "1-2"}}); }) ==
        bad.string() + ": row 2: the label 2 is not -1 or +1 (the logistic loss needs binary labels)");
  fs::remove(bad);
}

TEST_CASE("grouped_logistic: resampled rows keep their groups") {
  const GeneratedFile file(200, "resample");
  const auto o = make_oracle({{"file", file.path.string()}, {"group_by", "1-2"}, {"resample", {{"rows", 5000}, {"noise", 0.1}, {"seed", 2}}}});
  CHECK(o->outputs() == 4);
  // The same draws twice: the same data.
  const auto o2 = make_oracle({{"file", file.path.string()}, {"group_by", "1-2"}, {"resample", {{"rows", 5000}, {"noise", 0.1}, {"seed", 2}}}});
  const Vec x = point(10, 1, 1.0);
  Vec f(4), f2(4);
  o->exact(x, &f, nullptr);
  o2->exact(x, &f2, nullptr);
  CHECK((f - f2).cwiseAbs().maxCoeff() == 0.0);
}

TEST_CASE("grouped_logistic: composed with max, cvar and dro_chi2 over l1, l2 and box") {
  const GeneratedFile file(400, "compose");
  scfw::Registry& registry = scfw::test::registry();
  const json outers[] = {{{"plugin", "max"}}, {{"plugin", "cvar"}, {"alpha", 0.25}}, {{"plugin", "dro_chi2"}, {"rho", 1}}};
  const json domains[] = {{{"plugin", "l1_ball"}, {"radius", 3}}, {{"plugin", "l2_ball"}, {"radius", 2}}, {{"plugin", "box"}, {"lower", -1}, {"upper", 1}}};
  for (const auto& outer : outers) {
    for (const auto& domain : domains) {
      CAPTURE(outer.dump());
      CAPTURE(domain.dump());
      const json doc = {{"oracle", {{"plugin", "grouped_logistic"}, {"file", file.path.string()}, {"group_by", "1-2"}, {"batch", 0}}},
                        {"outer", outer},
                        {"domain", domain}};
      scfw::Problem problem = scfw::compose_problem(registry, doc, "<test>", ".");
      const json tracker = {{"plugin", "momentum"}}, schedule = {{"plugin", "deterministic"}, {"step", "convex"}};
      scfw::Method method = scfw::compose_method(registry, problem, {&tracker, "/tracker"}, {&schedule, "/schedule"}, {nullptr, "/glmo"});
      scfw::SolverOptions o;
      o.iterations = 200;
      o.seed = 1;
      o.report_every = 0;
      o.final_report = true;
      scfw::Solver solver(problem, method, o);
      const scfw::Summary sum = solver.run();
      REQUIRE(sum.has_gap);
      // phi at the start (x = 0 for these domains: log 2 in every group) against the end, and
      // the certified gap of the convex composite problem.
      CHECK(sum.final_objective < std::log(2.0));
      CHECK(sum.final_gap >= -1e-9);
      CHECK(sum.final_gap < 0.05);
    }
  }
}

TEST_CASE("shared data: grouped_logistic: a9a's sex and race blocks") {
  const std::string path = scfw::test::shared_data_file("a9a");
  if (path.empty()) return;
  const auto data = scfw::libsvm::read(path);
  std::vector<std::int64_t> count;
  const auto blocks = scfw::grouped::exclusive_blocks(data, &count);
  bool race = false, sex = false;
  for (const auto& b : blocks) {
    race = race || (b.first == 67 && b.last == 71);
    sex = sex || (b.first == 72 && b.last == 73);
  }
  CHECK(race);
  CHECK(sex);
  CHECK(count[72] == 10771);
  CHECK(count[73] == 21790);
  CHECK(count[67] == 27816);
  CHECK(count[71] == 3124);
  const auto o = make_oracle({{"file", path}, {"group_by", "67-71,72-73"}});
  CHECK(o->outputs() == 20);
}
