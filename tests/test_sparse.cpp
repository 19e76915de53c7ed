// Sparse Jacobians (sdk/include/scfw/jacobian.hpp, docs/api.md "Jacobians"):
//   * JacobianPattern's validation messages, word for word;
//   * Jacobian's products, rows and densification against the dense matrix built by hand;
//   * a sparse and a dense run of the same problem give the same iterates (to 1e-12) and gaps,
//     for every tracker that takes a sparse oracle and every GLMO (clp and column_generation on
//     the sparse V, dense_simplex on the host's dense copy): matrix_completion synthetic and
//     least_squares_tasks on a LIBSVM file;
//   * the hessian tracker refuses a sparse oracle, and the composer charges and notes the dense
//     copy for a GLMO that takes no sparse V;
//   * a checkpoint of a sparse V reads back bitwise, pattern included.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine_support.hpp"
#include "scfw/core/checkpoint.hpp"
#include "scfw/jacobian.hpp"

using namespace scfw;
using namespace scfw::test;
using nlohmann::json;

namespace {

/// A random 5 x 9 pattern with a few empty rows, and its values.
Jacobian random_sparse(std::mt19937_64& rng) {
  std::vector<std::int64_t> rs{0};
  std::vector<int> col;
  std::bernoulli_distribution keep(0.4);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 9; ++j)
      if (i != 2 && keep(rng)) col.push_back(j);
    rs.push_back(static_cast<std::int64_t>(col.size()));
  }
  Jacobian J(std::make_shared<const JacobianPattern>(5, 9, rs, col));
  std::normal_distribution<double> normal;
  for (auto& v : J.values()) v = normal(rng);
  return J;
}

}  // namespace

TEST_CASE("JacobianPattern refuses a malformed pattern with one message naming the first violation") {
  auto msg = [](int rows, int cols, std::vector<std::int64_t> rs, std::vector<int> col) {
    return error_of([&] { JacobianPattern p(rows, cols, std::move(rs), std::move(col)); });
  };
  CHECK(msg(0, 3, {0}, {}) == "Jacobian pattern: rows = 0 and cols = 3; both must be >= 1");
  CHECK(msg(2, 3, {0, 1}, {0}) == "Jacobian pattern: row_start has 2 entries, expected rows + 1 = 3");
  CHECK(msg(2, 3, {1, 1, 2}, {0, 1}) == "Jacobian pattern: row_start[0] = 1, expected 0");
  CHECK(msg(2, 3, {0, 2, 1}, {0, 1}) == "Jacobian pattern: row_start decreases at row 1 (1 after 2)");
  CHECK(msg(2, 3, {0, 1, 3}, {0, 1}) == "Jacobian pattern: row_start[rows] = 3 but col has 2 entries");
  CHECK(msg(2, 3, {0, 1, 2}, {0, 3}) == "Jacobian pattern: column 3 in row 1 is outside 0..2");
  CHECK(msg(2, 3, {0, 1, 2}, {-1, 0}) == "Jacobian pattern: column -1 in row 0 is outside 0..2");
  CHECK(msg(1, 3, {0, 2}, {1, 1}) == "Jacobian pattern: column 1 repeated in row 0");
  CHECK(msg(1, 3, {0, 2}, {2, 0}) == "Jacobian pattern: columns of row 0 are not sorted (0 after 2)");
  CHECK_THROWS_AS(JacobianPattern(1, 3, {0, 2}, {2, 0}), Error);
  const JacobianPattern ok(2, 3, {0, 0, 2}, {0, 2});
  CHECK(ok.nnz() == 2);
  CHECK(ok.row_cols(1).size() == 2);
  CHECK(ok.row_cols(1)[1] == 2);
}

TEST_CASE("Jacobian: products, rows and densification agree with the dense matrix built entry by entry") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    CAPTURE(trial);
    Jacobian J = random_sparse(rng);
    REQUIRE(J.is_sparse());
    Mat D = Mat::Zero(5, 9);
    for (int i = 0; i < 5; ++i) {
      const Jacobian::Row r = J.row(i);
      for (std::int64_t k = 0; k < r.size; ++k) D(i, r.col(k)) = r.values[k];
    }
    Mat Dj;
    J.to_dense(Dj);
    CHECK(Dj == D);
    std::normal_distribution<double> normal;
    Vec x(9), w(5);
    for (auto& v : x) v = normal(rng);
    for (auto& v : w) v = normal(rng);
    Vec out(5), out_t(9), acc = Vec::Ones(5);
    J.multiply(x, out);
    J.multiply_add(x, acc);
    J.transpose_multiply(w, out_t);
    const Vec want = D * x, want_t = D.transpose() * w;
    CHECK((out - want).cwiseAbs().maxCoeff() <= 1e-14);
    CHECK((acc - (want + Vec::Ones(5))).cwiseAbs().maxCoeff() <= 1e-14);
    CHECK((out_t - want_t).cwiseAbs().maxCoeff() <= 1e-14);
    // The dense kind holds D itself: the same products, and rows over every column.
    Jacobian Jd(D);
    CHECK(!Jd.is_sparse());
    CHECK(Jd.size() == 45);
    CHECK(Jd.row(3).size == 9);
    CHECK(Jd.row(3).col(4) == 4);
    CHECK(Jd.row(3).values[4] == D(3, 4));
    Jd.multiply(x, out);
    CHECK(out == Vec(D * x));
    // Copies share the pattern; set_zero keeps it.
    Jacobian K = J;
    CHECK(K.same_structure(J));
    CHECK(&K.pattern() == &J.pattern());
    K.set_zero();
    CHECK(K.values().cwiseAbs().maxCoeff() == 0.0);
    CHECK(K.size() == J.size());
    CHECK(!K.same_structure(Jd));
  }
  Jacobian Jd(2, 3);
  CHECK(error_of([&] { (void)Jd.pattern(); }) == "Jacobian::pattern(): this Jacobian is dense");
  std::mt19937_64 r2(1);
  Jacobian Js = random_sparse(r2);
  CHECK(error_of([&] { (void)Js.dense(); }) == "Jacobian::dense(): this Jacobian is sparse (use to_dense())");
}

namespace {

json completion(const std::string& jacobian, const json& tracker, const json& glmo, const json& domain = nullptr) {
  json doc = {{"seed", 3},
              {"iterations", 40},
              {"oracle",
               {{"plugin", "matrix_completion"},
                {"groups", 6},
                {"batch", 2},
                {"jacobian", jacobian},
                {"synthetic", {{"rows", 12}, {"cols", 9}, {"rank", 3}, {"density", 0.4}, {"noise", 0.3}, {"seed", 2}}}}},
              {"outer", {{"plugin", "norm"}, {"p", "1"}}},
              {"domain", domain.is_null() ? json{{"plugin", "nuclear_ball"}, {"rows", 12}, {"cols", 9}, {"radius", 5}} : domain},
              {"tracker", tracker},
              {"schedule", {{"plugin", "nonconvex"}, {"r", 2}}}};
  // Column generation to a tight tolerance: its stopping point then does not depend on the
  // last bits of V s and V^T pi, which the sparse and dense products round differently.
  doc["glmo"] = glmo.is_null() ? json{{"plugin", "column_generation"}, {"tolerance", 1e-13}} : glmo;
  return doc;
}

/// A small LIBSVM file: 3 tasks' worth of rows with 2-4 of 40 features each (written once).
std::string libsvm_file() {
  const auto dir = std::filesystem::temp_directory_path() / "scfw_test_sparse";
  std::filesystem::create_directories(dir);
  const auto path = dir / "tasks.svm";
  std::ofstream out(path);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> feature(1, 40), count(2, 4);
  std::normal_distribution<double> normal;
  for (int r = 0; r < 90; ++r) {
    std::vector<int> f;
    const int c = count(rng);
    while (static_cast<int>(f.size()) < c) {
      const int j = feature(rng);
      if (std::find(f.begin(), f.end(), j) == f.end()) f.push_back(j);
    }
    std::sort(f.begin(), f.end());
    out << (r % 2 ? "+1" : "-1");
    for (int j : f) out << " " << j << ":" << normal(rng);
    out << "\n";
  }
  return path.string();
}

json regression(const std::string& jacobian, const json& tracker, const json& glmo, const std::string& file) {
  json doc = {{"seed", 4},
              {"iterations", 40},
              {"oracle", {{"plugin", "least_squares_tasks"}, {"file", file}, {"tasks", 3}, {"batch", 2},
                          {"features", 40}, {"jacobian", jacobian}}},
              {"outer", {{"plugin", "max"}}},
              {"domain", {{"plugin", "l1_ball"}, {"radius", 2}}},
              {"tracker", tracker},
              {"schedule", {{"plugin", "nonconvex"}, {"r", 2}}}};
  if (!glmo.is_null()) doc["glmo"] = glmo;
  return doc;
}

/// Runs both documents with gap reports every 10 iterations and compares iterates and gaps.
void same_runs(const json& sparse_doc, const json& dense_doc, bool expect_dense_copy) {
  Composition s = make(sparse_doc), d = make(dense_doc);
  REQUIRE(s.problem.oracle->capabilities().has(Capability::SparseJacobian));
  REQUIRE_FALSE(d.problem.oracle->capabilities().has(Capability::SparseJacobian));
  bool noted = false;
  for (const auto& note : s.method.notes) noted = noted || note.find("takes no sparse V") != std::string::npos;
  CHECK(noted == expect_dense_copy);
  const Trajectory ts = run(s, 9, 40, 10, true), td = run(d, 9, 40, 10, true);
  REQUIRE(ts.y.size() == 40);
  REQUIRE(td.y.size() == 40);
  double worst = 0;
  for (size_t k = 0; k < ts.y.size(); ++k) worst = std::max(worst, (ts.y[k] - td.y[k]).cwiseAbs().maxCoeff());
  CHECK(worst <= 1e-12);
  REQUIRE(ts.gaps.size() == td.gaps.size());
  for (size_t k = 0; k < ts.gaps.size(); ++k) CHECK(std::abs(ts.gaps[k] - td.gaps[k]) <= 1e-10);
  CHECK(std::abs(ts.summary.final_objective - td.summary.final_objective) <= 1e-12);
}

const std::vector<json> kTrackers = {
    {{"plugin", "momentum"}, {"value", "polyak"}}, {{"plugin", "momentum"}, {"value", "taylor"}},
    {{"plugin", "vanilla"}},                       {{"plugin", "storm"}},
    {{"plugin", "clipped"}, {"threshold", 0.5}}};

}  // namespace

TEST_CASE("matrix_completion: a sparse and a dense run give the same iterates, every tracker and GLMO") {
  // Over a polyhedral domain every GLMO solve is exact, so the last bits of the products do not
  // move the iterates: every tracker, clp and column generation on the sparse V, dense_simplex
  // on the host's dense copy.
  const json box = {{"plugin", "l1_ball"}, {"radius", 5}};
  for (const char* glmo : {"clp", "column_generation", "dense_simplex"})
    for (const json& tracker : kTrackers) {
      CAPTURE(glmo);
      CAPTURE(tracker.dump());
      same_runs(completion("sparse", tracker, {{"plugin", glmo}}, box), completion("dense", tracker, {{"plugin", glmo}}, box),
                std::string(glmo) == "dense_simplex");
    }
  // Over the nuclear ball the sparse run keeps compact (rank-one) atoms, whose products round
  // differently from the dense run's, and column generation stops at a tolerance (or a repeated
  // atom) on a curved set where the GLMO's minimizers are not unique (V has rank n << d): the two
  // runs pick different x of the same value. Their objectives are compared in "whole short
  // runs" below.
}

TEST_CASE("least_squares_tasks on a LIBSVM file: sparse and dense runs agree, every tracker and GLMO") {
  const std::string file = libsvm_file();
  for (const char* glmo : {"clp", "column_generation", "dense_simplex"}) {
    for (const json& tracker : kTrackers) {
      CAPTURE(glmo);
      CAPTURE(tracker.dump());
      same_runs(regression("sparse", tracker, {{"plugin", glmo}}, file),
                regression("dense", tracker, {{"plugin", glmo}}, file), std::string(glmo) == "dense_simplex");
    }
  }
}

TEST_CASE("the sparse oracles' Jacobians are the dense ones at the pattern's places") {
  const std::string file = libsvm_file();
  for (const bool completion_oracle : {true, false}) {
    CAPTURE(completion_oracle);
    const json tracker = {{"plugin", "vanilla"}};
    Composition s = make(completion_oracle ? completion("sparse", tracker, nullptr) : regression("sparse", tracker, nullptr, file));
    Composition d = make(completion_oracle ? completion("dense", tracker, nullptr) : regression("dense", tracker, nullptr, file));
    const Oracle& os = *s.problem.oracle;
    const Oracle& od = *d.problem.oracle;
    const int n = os.outputs(), dim = os.dim();
    Jacobian Js = make_jacobian(os), Jd = make_jacobian(od);
    REQUIRE(Js.is_sparse());
    REQUIRE(!Jd.is_sparse());
    CHECK(Js.size() < static_cast<std::int64_t>(n) * dim);
    Vec x = Vec::LinSpaced(dim, -0.3, 0.4), fs(n), fd(n);
    auto sample_s = os.make_sample(), sample_d = od.make_sample();
    Rng r1(21), r2(21);
    for (int t = 0; t < 3; ++t) {
      os.draw(r1, *sample_s);
      od.draw(r2, *sample_d);
      os.evaluate(*sample_s, x, &fs, &Js);
      od.evaluate(*sample_d, x, &fd, &Jd);
      Mat dense;
      Js.to_dense(dense);
      CHECK(dense == Jd.dense());  // bitwise: the same sums in the same order
      CHECK(fs == fd);
    }
    os.exact(x, &fs, &Js);
    od.exact(x, &fd, &Jd);
    Mat dense;
    Js.to_dense(dense);
    CHECK(dense == Jd.dense());
    CHECK(fs == fd);
  }
}

TEST_CASE("hessian tracker refuses a sparse oracle; a dense-only GLMO's copy of V is charged and noted") {
  json doc = completion("sparse", {{"plugin", "hessian"}}, nullptr);
  CHECK(error_of([&] { make(doc); }) ==
        "test.json: /tracker: tracker \"hessian\" needs a dense Jacobian: its Hessian action H~ dy is a dense n x d "
        "matrix that leaves the oracle's sparse Jacobian pattern; use the oracle's dense Jacobian or another tracker");
  const std::string file = libsvm_file();
  Composition c = make(regression("sparse", {{"plugin", "momentum"}}, {{"plugin", "dense_simplex"}}, file));
  bool charged = false;
  for (const auto& ch : c.method.memory.charges())
    if (ch.what == "a dense copy of V for the GLMO dense_simplex, which takes no sparse V (3 x 40)") {
      charged = true;
      CHECK(ch.bytes == 3u * 40u * 8u);
    }
  CHECK(charged);
  bool noted = false;
  for (const auto& note : c.method.notes)
    noted = noted || note == "glmo: dense_simplex takes no sparse V, so the host copies V (3 x 40, 960 B) into a dense "
                             "buffer before each solve";
  CHECK(noted);
}

namespace {

/// The run of `doc` interrupted at iteration 20 of 40 with a checkpoint written to `file`, then
/// resumed from that file in freshly composed objects; the resumed run's summary. `saved` (if not
/// null) receives the checkpoint as read back.
Summary interrupted_and_resumed(const json& doc, const std::filesystem::path& file, Checkpoint* saved = nullptr) {
  SolverOptions o = test::options(40, 9, 0, false);
  {
    Composition c = make(doc);
    Solver solver(c, o);
    Checkpointer ck(c, run_identity(registry(), doc, c, "test"), file, 0, 0);
    solver.add_callback([](const IterationState& st) { return st.iteration < 20; });
    solver.set_state_hook(ck);
    REQUIRE(solver.run().iterations == 20);
    REQUIRE(ck.written() == 1);
  }
  Composition c = make(doc);
  const Checkpoint back = read_checkpoint(file);
  restore_components(file.string(), back, c);
  Solver solver(c, o);
  solver.resume_from(back.state);
  if (saved) *saved = back;
  return solver.run();
}

}  // namespace

TEST_CASE("a checkpoint of a sparse V reads back bitwise, pattern included, and resumes the run exactly") {
  const auto dir = std::filesystem::temp_directory_path() / "scfw_test_sparse";
  std::filesystem::create_directories(dir);
  const auto file = dir / "sparse.ckpt";
  std::mt19937_64 rng(3);
  Checkpoint ck;
  ck.state.done = 5;
  ck.state.y = Vec::LinSpaced(9, 0, 1);
  ck.state.y_prev = ck.state.y;
  ck.state.z = Vec::Ones(5);
  ck.state.V = random_sparse(rng);
  ck.state.V.values()[0] = std::nextafter(1.0, 2.0);
  write_checkpoint(file, ck);
  const Checkpoint back = read_checkpoint(file);
  REQUIRE(back.state.V.is_sparse());
  CHECK(back.state.V.pattern().same_as(ck.state.V.pattern()));
  REQUIRE(back.state.V.size() == ck.state.V.size());
  for (std::int64_t k = 0; k < ck.state.V.size(); ++k) CHECK(back.state.V.data()[k] == ck.state.V.data()[k]);

  // A run interrupted at 20 of 40 with a checkpoint and resumed in fresh objects gives the
  // uninterrupted iterates bitwise (the sparse V goes through the file).
  const json doc = regression("sparse", {{"plugin", "momentum"}, {"value", "taylor"}}, {{"plugin", "clp"}}, libsvm_file());
  Composition whole = make(doc);
  const Trajectory all = run(whole, 9, 40, 0, true, false);
  Checkpoint saved;
  const Summary s = interrupted_and_resumed(doc, dir / "run.ckpt", &saved);
  REQUIRE(saved.state.V.is_sparse());
  REQUIRE(s.iterations == 40);
  CHECK(s.y == all.y.back());
}

// --- Column generation on compact atoms (a sparse V and a domain with compact atoms).

TEST_CASE("column_generation on compact atoms gives the dense path's GLMO values, nuclear ball and l1 ball") {
  // The problem's exact f and Jacobian at the points of a dense run, z = f: the GLMO of the
  // sparse composition (compact atoms: rank-one over the nuclear ball, one non-zero over the l1
  // ball) and of the dense one (d-vector atoms) solve to a relative tolerance of 1e-13, so their
  // values agree to 1e-9 although the products round differently.
  const json cg = {{"plugin", "column_generation"}, {"tolerance", 1e-13}};
  const std::string file = libsvm_file();
  struct Case {
    json sparse, dense;
    std::string domain;
  };
  const json polyak = {{"plugin", "momentum"}, {"value", "polyak"}};
  const std::vector<Case> cases = {
      {completion("sparse", polyak, cg), completion("dense", polyak, cg), "nuclear_ball"},
      {regression("sparse", polyak, cg, file), regression("dense", polyak, cg, file), "l1_ball"}};
  for (const Case& c : cases) {
    CAPTURE(c.domain);
    Composition path = make(c.dense);
    const Trajectory t = run(path, 9, 15, 0, true, false);
    Composition s = make(c.sparse), d = make(c.dense);
    Jacobian Vs = make_jacobian(*s.problem.oracle), Vd = make_jacobian(*d.problem.oracle);
    REQUIRE(Vs.is_sparse());
    REQUIRE(!Vd.is_sparse());
    Vec fs(s.problem.oracle->outputs()), fd(d.problem.oracle->outputs()), xs, xd;
    double worst = 0.0;
    for (const Vec& y : t.y) {
      s.problem.oracle->exact(y, &fs, &Vs);
      d.problem.oracle->exact(y, &fd, &Vd);
      const GlmoResult rs = s.method.glmo->solve(fs, Vs, y, xs);
      const GlmoResult rd = d.method.glmo->solve(fd, Vd, y, xd);
      worst = std::max(worst, std::abs(rs.value - rd.value) / std::max(1.0, std::abs(rd.value)));
      CHECK(s.problem.domain->contains(xs, 1e-9));
    }
    CHECK(worst <= 1e-9);
    // The support of the pricing gradient: the pattern's distinct columns.
    std::vector<int> cols = s.problem.oracle->jacobian_pattern()->col();
    std::sort(cols.begin(), cols.end());
    const auto distinct = std::unique(cols.begin(), cols.end()) - cols.begin();
    CHECK(s.method.glmo->describe().find("; compact atoms (V's pattern: " + std::to_string(distinct) + " columns)") !=
          std::string::npos);
    CHECK(d.method.glmo->describe().find("compact atoms") == std::string::npos);
  }
}

TEST_CASE("whole short runs over the nuclear ball: sparse (compact atoms) and dense agree in phi to 1e-9") {
  // Momentum-type trackers (V an average of samples). The plug-in trackers (vanilla, clipped:
  // V is the fresh sample) are not compared here: with them a difference of 1e-11 in x at the
  // second solve (two minimizers of the same value, to 1e-15) had grown to 5.6e-6 in phi at
  // iteration 6 (measured, vanilla), a property of the problem, not of either path.
  for (const json& tracker : {kTrackers[0], kTrackers[1], kTrackers[3]}) {
    CAPTURE(tracker.dump());
    json sparse = completion("sparse", tracker, nullptr), dense = completion("dense", tracker, nullptr);
    Composition s = make(sparse), d = make(dense);
    const Trajectory ts = run(s, 9, 6, 2, true), td = run(d, 9, 6, 2, true);
    CHECK(std::abs(ts.summary.final_objective - td.summary.final_objective) <=
          1e-9 * std::max(1.0, std::abs(td.summary.final_objective)));
  }
}

TEST_CASE("the compact atoms' memory charge: the figure, accepted at it and refused one byte below") {
  const json doc = completion("sparse", {{"plugin", "momentum"}}, nullptr);
  Overrides o;
  o.memory = MemoryAccount(1u << 30);
  const Composition c = compose(registry(), doc, "test.json", SCFW_SOURCE_DIR, o);
  const std::int64_t nnz = c.problem.oracle->jacobian_pattern()->nnz(), n = 6, atoms = 100, atom = 12 + 9 + 1;
  // 2 max_atoms atoms of rows + cols + 1 numbers and their images (n), the master, the pattern's
  // index (6 integers and 3 gradient values per non-zero), x's factors.
  const std::uint64_t one = static_cast<std::uint64_t>(atoms * (atom + n) * 8 + (atoms + n + 1) * (atoms + n + 1) * 8 +
                                                       nnz * 48 + atoms * atom * 8);
  // The GLMO and its twin for the gap reports charge the same in their setup(), one after the other.
  const std::string what = "column_generation's atoms and master LP (2 x max_atoms = 100 atoms)";
  std::uint64_t before = 0;
  std::vector<std::uint64_t> glmo;
  for (const auto& ch : c.method.memory.charges()) {
    if (ch.what == what) glmo.push_back(ch.bytes);
    else if (glmo.empty()) before += ch.bytes;
  }
  REQUIRE(glmo.size() == 2);
  CHECK(glmo[0] == one);
  CHECK(glmo[1] == one);
  o.memory = MemoryAccount(before + 2 * one, "set it with --memory-limit or SCFW_MEMORY_LIMIT");
  CHECK_NOTHROW(compose(registry(), doc, "test.json", SCFW_SOURCE_DIR, o));
  o.memory = MemoryAccount(before + 2 * one - 1, "set it with --memory-limit or SCFW_MEMORY_LIMIT");
  CHECK(error_of([&] { compose(registry(), doc, "test.json", SCFW_SOURCE_DIR, o); }) ==
        "test.json: /glmo: needs " + format_bytes(one) + " for " + what + " on top of " +
            format_bytes(before + one) + " counted before (" + format_bytes(before + 2 * one) +
            "); the memory limit is " + format_bytes(before + 2 * one - 1) +
            " (set it with --memory-limit or SCFW_MEMORY_LIMIT)");
}

TEST_CASE("column_generation's compact atoms go through a checkpoint: the resumed run is the uninterrupted one") {
  // Rank-one atoms (nuclear ball) and one-entry atoms (column generation over the l1 ball), saved
  // by kind with the rest of the GLMO's state at iteration 20 of 40.
  const auto dir = std::filesystem::temp_directory_path() / "scfw_test_sparse";
  std::filesystem::create_directories(dir);
  const json momentum = {{"plugin", "momentum"}, {"value", "polyak"}};
  for (const json& doc : {completion("sparse", momentum, nullptr),
                          regression("sparse", momentum, {{"plugin", "column_generation"}}, libsvm_file())}) {
    CAPTURE(doc["domain"].dump());
    Composition whole = make(doc);
    const Trajectory all = run(whole, 9, 40, 0, true, false);
    REQUIRE(whole.method.glmo->describe().find("compact atoms") != std::string::npos);
    const Summary s = interrupted_and_resumed(doc, dir / "compact.ckpt");
    REQUIRE(s.iterations == 40);
    CHECK(s.y == all.y.back());
  }
}

TEST_CASE("column generation on compact atoms reaches a vanilla sample's model minimum 0 at every iteration") {
  // Vanilla on a completion whose domain takes the Lanczos path (min(rows, cols) > 128): each
  // iteration's V is a fresh sample of one entry per group, so the sampled model
  // sum_g |z_g + V_g (s - y)| reaches 0 inside a ball this large (set the sampled entries of s to
  // their targets). Every solve must end there, to its tolerance: neither the LMO (a start
  // orthogonal to the new G) nor the duplicate test (a smoothed atom next to the priced one taken
  // as a stall) may stop it above.
  json doc = {{"seed", 4},
              {"iterations", 60},
              {"oracle",
               {{"plugin", "matrix_completion"},
                {"groups", 40},
                {"batch", 1},
                {"jacobian", "sparse"},
                {"synthetic", {{"rows", 150}, {"cols", 140}, {"rank", 3}, {"density", 0.05}, {"noise", 0.3}, {"seed", 2}}}}},
              {"outer", {{"plugin", "norm"}, {"p", "1"}}},
              {"domain", {{"plugin", "nuclear_ball"}, {"rows", 150}, {"cols", 140}, {"radius", 5000}}},
              {"glmo", {{"plugin", "column_generation"}, {"tolerance", 1e-9}}},
              {"tracker", {{"plugin", "vanilla"}}},
              {"schedule", {{"plugin", "nonconvex"}, {"r", 2}}}};
  Composition c = make(doc);
  SolverOptions o = test::options(60, 4, 0, false);
  Solver solver(c, o);
  std::vector<double> values;
  solver.add_callback([&](const IterationState& st) {
    values.push_back(st.glmo_value);
    return true;
  });
  REQUIRE(solver.run().iterations == 60);
  REQUIRE(values.size() == 60u);
  for (size_t k = 0; k < values.size(); ++k) {
    CAPTURE(k);
    CHECK(std::abs(values[k]) <= 1e-8);
  }
}
