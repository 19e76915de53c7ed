// Checkpoint and resume (core/include/scfw/core/checkpoint.hpp, docs/checkpoint.md): for every
// example, a run stopped at iteration k with a checkpoint and resumed in fresh objects gives
// bitwise the uninterrupted run's y_K, trace (every column but seconds) and summary counts; the
// file is refused under another scfw version, problem or plugin set with one line saying which;
// the state blocks round-trip bit for bit.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstring>
#include <limits>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine_support.hpp"
#include "scfw/core/checkpoint.hpp"
#include "scfw/core/report.hpp"
#include "scfw/state.hpp"

using namespace scfw;
namespace fs = std::filesystem;

namespace {

const char* const kExamples[] = {"minimax_synthetic", "cvar_portfolio", "dro_chi2",     "fairness",
                                 "exact_penalty",     "norm_multitask", "regularized", "matrix_completion"};
constexpr const char* kVersion = "9.9.9-test";

fs::path example(const std::string& name) { return fs::path(SCFW_SOURCE_DIR) / "examples" / (name + ".json"); }

nlohmann::json document(const std::string& name, long K) {
  nlohmann::json doc = read_json_file(example(name));
  doc["iterations"] = K;
  doc["report"] = {{"every", 10}};
  return doc;
}

Composition compose_doc(const nlohmann::json& doc) {
  return compose(test::registry(), doc, "example.json", fs::path(SCFW_SOURCE_DIR) / "examples");
}

/// Every column of a trace but the seconds (the fifth).
std::string without_seconds(const std::string& trace) {
  std::istringstream in(trace);
  std::string line, out;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    for (size_t i = 0; i < cells.size(); ++i)
      if (i != 4) out += cells[i] + (i + 1 < cells.size() ? "," : "");
    out += "\n";
  }
  return out;
}

bool bitwise_equal(const Vec& a, const Vec& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

struct Outcome {
  Summary summary;
  std::string trace;
};

Outcome run_whole(const nlohmann::json& doc) {
  Composition c = compose_doc(doc);
  Solver solver(c, c.options);
  std::ostringstream trace;
  TraceCsv csv(trace);
  solver.add_callback(csv);
  Outcome o;
  o.summary = solver.run();
  o.trace = trace.str();
  return o;
}

/// Runs to iteration `stop_at`, where a callback stops it: the Checkpointer writes `file` then.
void run_until(const nlohmann::json& doc, long stop_at, const fs::path& file) {
  Composition c = compose_doc(doc);
  Solver solver(c, c.options);
  std::ostringstream trace;
  TraceCsv csv(trace);
  solver.add_callback(csv);
  Checkpointer ck(c, run_identity(test::registry(), doc, c, kVersion), file, 0, 0);
  solver.add_callback(ck.trace_capture());
  solver.add_callback([stop_at](const IterationState& s) { return s.iteration < stop_at; });
  solver.set_state_hook(ck);
  const Summary s = solver.run();
  REQUIRE(s.iterations == stop_at);
  REQUIRE(ck.written() == 1);
}

Outcome resume(const nlohmann::json& doc, const fs::path& file) {
  Composition c = compose_doc(doc);
  const Checkpoint ck = read_checkpoint(file);
  check_identity(file.string(), ck.identity, run_identity(test::registry(), doc, c, kVersion));
  restore_components(file.string(), ck, c);
  Solver solver(c, c.options);
  std::ostringstream trace;
  trace << ck.trace;  // the rows up to the checkpoint, as ResumedTrace writes them back
  TraceCsv csv(trace);
  struct RowsOnly final : Callback {
    TraceCsv& t;
    explicit RowsOnly(TraceCsv& t) : t(t) {}
    CallbackResult on_iteration(const IterationState& s) override { return t.on_iteration(s); }
  } rows(csv);
  solver.add_callback(rows);
  solver.resume_from(ck.state);
  Outcome o;
  o.summary = solver.run();
  o.trace = trace.str();
  return o;
}

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("scfw_test_checkpoint_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

}  // namespace

TEST_CASE("every example resumed from a checkpoint gives the uninterrupted run bit for bit") {
  for (const char* name : kExamples) {
    CAPTURE(name);
    const long K = std::string(name) == "matrix_completion" ? 40 : 80;
    const nlohmann::json doc = document(name, K);
    const Outcome whole = run_whole(doc);
    for (long k : {K / 2 - 3, K / 2}) {  // mid-way between reports, and on one
      CAPTURE(k);
      const fs::path file = scratch(std::string(name) + ".ckpt");
      run_until(doc, k, file);
      for (const auto& entry : fs::directory_iterator(file.parent_path()))  // no temporary left behind
        CHECK(entry.path().filename().string().rfind("." + file.filename().string() + ".", 0) != 0);
      const Outcome resumed = resume(doc, file);
      CHECK(resumed.summary.iterations == K);
      CHECK(bitwise_equal(resumed.summary.y, whole.summary.y));
      CHECK(without_seconds(resumed.trace) == without_seconds(whole.trace));
      CHECK(resumed.summary.best_gap == whole.summary.best_gap);
      CHECK(resumed.summary.final_gap == whole.summary.final_gap);
      CHECK(resumed.summary.glmo_iterations == whole.summary.glmo_iterations);
      CHECK(resumed.summary.glmo_max_iterations == whole.summary.glmo_max_iterations);
      CHECK(resumed.summary.calls.draws == whole.summary.calls.draws);
      CHECK(resumed.summary.calls.jacobians == whole.summary.calls.jacobians);
      CHECK(resumed.summary.calls.glmo_solves == whole.summary.calls.glmo_solves);
      CHECK(resumed.summary.glmo_solver == whole.summary.glmo_solver);
    }
  }
}

TEST_CASE("every tracker, and a polytope's warm LMO under column generation, resume bit for bit") {
  // X = {x in [-1, 1]^6 : sum x <= 3}; column generation calls the polytope's LMO (a warm Clp
  // basis) at every GLMO solve. STORM and the Hessian tracker read y_{k-1}.
  nlohmann::json A = nlohmann::json::array(), b = nlohmann::json::array();
  for (int sign : {1, -1})
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) A.push_back(i == j ? sign : 0);
      b.push_back(1);
    }
  for (int j = 0; j < 6; ++j) A.push_back(1);
  b.push_back(3);
  for (const char* tracker : {"momentum", "storm", "hessian", "vanilla", "clipped"}) {
    CAPTURE(tracker);
    nlohmann::json doc = nlohmann::json::parse(R"({
      "seed": 5, "iterations": 60, "report": { "every": 10 },
      "oracle": { "plugin": "least_squares_tasks", "batch": 1,
                  "synthetic": { "tasks": 3, "dim": 6, "rows_per_task": 30, "sparsity": 3, "seed": 2 } },
      "outer":  { "plugin": "max" },
      "glmo":   { "plugin": "column_generation" },
      "schedule": { "plugin": "nonconvex" } })");
    doc["domain"] = {{"plugin", "polytope"}, {"A", A}, {"b", b}};
    doc["tracker"] = {{"plugin", tracker}};
    const Outcome whole = run_whole(doc);
    const fs::path file = scratch("polytope.ckpt");
    run_until(doc, 27, file);
    const Outcome resumed = resume(doc, file);
    CHECK(bitwise_equal(resumed.summary.y, whole.summary.y));
    CHECK(without_seconds(resumed.trace) == without_seconds(whole.trace));
    CHECK(resumed.summary.glmo_iterations == whole.summary.glmo_iterations);
    CHECK(resumed.summary.calls.hessian == whole.summary.calls.hessian);
  }
}

TEST_CASE("a checkpoint of another scfw version, problem or plugin set is refused, saying which") {
  const nlohmann::json doc = document("dro_chi2", 40);
  const fs::path file = scratch("refuse.ckpt");
  run_until(doc, 15, file);
  const Checkpoint ck = read_checkpoint(file);
  const std::string f = file.string();
  Composition c = compose_doc(doc);
  const RunIdentity now = run_identity(test::registry(), doc, c, kVersion);
  CHECK_NOTHROW(check_identity(f, ck.identity, now));

  RunIdentity other = now;
  other.scfw_version = "1.0.0";
  CHECK_THROWS_WITH_AS(check_identity(f, ck.identity, other),
                       (f + ": checkpoint: scfw version 9.9.9-test in the checkpoint, 1.0.0 running").c_str(), InputError);

  nlohmann::json changed = doc;
  changed["seed"] = 2;
  changed["domain"]["scale"] = 4;
  Composition c2 = compose_doc(changed);
  CHECK_THROWS_WITH_AS(check_identity(f, ck.identity, run_identity(test::registry(), changed, c2, kVersion)),
                       (f + ": checkpoint: problem differs (domain, seed)").c_str(), InputError);
  changed = doc;
  changed["iterations"] = 41;
  Composition c3 = compose_doc(changed);
  CHECK_THROWS_WITH_AS(check_identity(f, ck.identity, run_identity(test::registry(), changed, c3, kVersion)),
                       (f + ": checkpoint: problem differs (iterations)").c_str(), InputError);

  other = now;
  for (auto& p : other.plugins)
    if (p.role == "tracker") p.version = "1.1.0";
  CHECK_THROWS_WITH_AS(check_identity(f, ck.identity, other),
                       (f + ": checkpoint: plugin tracker momentum version " + test::registry().find(Kind::Tracker, "momentum")->library_version +
                        " in the checkpoint, 1.1.0 loaded").c_str(),
                       InputError);
  other = now;
  for (auto& p : other.plugins)
    if (p.role == "glmo") p.name = "dense_simplex";
  CHECK_THROWS_WITH_AS(check_identity(f, ck.identity, other),
                       (f + ": checkpoint: plugin glmo clp in the checkpoint, dense_simplex loaded").c_str(), InputError);
}

TEST_CASE("a truncated or foreign file is not a checkpoint") {
  const fs::path file = scratch("bad.ckpt");
  { std::ofstream(file) << "hello\n"; }
  CHECK_THROWS_WITH_AS(read_checkpoint(file), (file.string() + ": not an scfw checkpoint").c_str(), InputError);
  { std::ofstream(file) << "scfw-checkpoint 1\nscfw 1\nstate\n"; }
  CHECK_THROWS_WITH_AS(read_checkpoint(file), (file.string() + ": truncated checkpoint (no end line)").c_str(),
                       InputError);
  CHECK_THROWS_WITH_AS(read_checkpoint(scratch("missing.ckpt")),
                       (scratch("missing.ckpt").string() + ": cannot open checkpoint (No such file or directory)").c_str(), InputError);
}

TEST_CASE("state blocks keep every bit, and a mismatched block is named") {
  StateWriter w;
  const std::vector<double> v{0.1, -0.0, 1e-310, std::numeric_limits<double>::infinity(), 1.0 / 3.0};
  w.put("values", v);
  w.put("count", std::int64_t{-7});
  w.put("name", std::string("a b\nc"));
  w.put("empty", std::vector<int>{});
  StateReader r(w.text(), "glmo test");
  std::vector<double> back;
  r.get("values", back);
  REQUIRE(back.size() == v.size());
  CHECK(std::memcmp(back.data(), v.data(), sizeof(double) * v.size()) == 0);
  std::int64_t count = 0;
  r.get("count", count);
  CHECK(count == -7);
  std::string text;
  r.get("name", text);
  CHECK(text == "a b\nc");
  std::vector<int> empty{1, 2};
  r.get("empty", empty);
  CHECK(empty.empty());
  CHECK(r.at_end());

  StateReader r2(w.text(), "glmo test");
  std::vector<float> wrong;
  CHECK_THROWS_WITH_AS(r2.get("values", wrong), "glmo test: block values: type f64 saved, f32 expected",
                       Error);
  StateReader r3(w.text(), "glmo test");
  CHECK_THROWS_WITH_AS(r3.get("count", count), "glmo test: block count: found block \"values\" instead",
                       Error);
  // What a damaged state shows of itself: control characters as '?'.
  std::vector<double> values;
  StateReader r5(std::string("val\x01ues f64 1 -\n"), "glmo test");
  CHECK_THROWS_WITH_AS(r5.get("values", values), "glmo test: block values: found block \"val?ues\" instead",
                       Error);
  StateReader r6(std::string("values f\x7f 1 -\n"), "glmo test");
  CHECK_THROWS_WITH_AS(r6.get("values", values), "glmo test: block values: type f? saved, f64 expected",
                       Error);
  StateReader r7(std::string("values f64 x\x7f -\n"), "glmo test");
  CHECK_THROWS_WITH_AS(r7.get("values", values), "glmo test: block values: malformed count \"x?\"",
                       Error);
  for (const char* count_text : {"1x", "-1", "+1", "99999999999999999999999"}) {
    StateReader r8(std::string("values f64 ") + count_text + " -\n", "glmo test");
    CHECK_THROWS_WITH_AS(r8.get("values", values),
                         ("glmo test: block values: malformed count \"" + std::string(count_text) + "\"").c_str(),
                         Error);
  }
  StateReader r4(w.text(), "glmo test");
  std::vector<double> fixed(3);
  CHECK_THROWS_WITH_AS(r4.get_same_size("values", fixed),
                       "glmo test: block values: 5 values saved, 3 expected", Error);
}

TEST_CASE("a GLMO with warm state it cannot save makes --checkpoint an error naming it") {
  // A GLMO that forwards to the real one but says its warm state cannot be saved.
  struct Unsaveable final : Glmo {
    std::unique_ptr<Glmo> inner;
    explicit Unsaveable(std::unique_ptr<Glmo> g) : inner(std::move(g)) {}
    void setup(const OuterFunction& o, const Domain& d, int n, int dim) override { inner->setup(o, d, n, dim); }
    GlmoResult solve(const Vec& z, const Jacobian& V, const Vec& y, Vec& x) override { return inner->solve(z, V, y, x); }
    std::string describe() const override { return inner->describe(); }
    Capabilities capabilities() const override { return Capability::UnsavedState; }
  };
  const nlohmann::json doc = document("norm_multitask", 20);
  Composition c = compose_doc(doc);
  CHECK(unsaveable_state(c).empty());
  c.method.glmo = std::make_unique<Unsaveable>(std::move(c.method.glmo));
  CHECK(unsaveable_state(c) == "glmo dense_simplex");
  CHECK_THROWS_WITH_AS(Checkpointer(c, run_identity(test::registry(), doc, c, kVersion), scratch("no.ckpt"), 5, 0),
                       "--checkpoint: glmo dense_simplex keeps warm state it cannot save, so a resumed run would not be exact",
                       InputError);
}
