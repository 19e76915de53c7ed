// Checkpoint and resume (core/internal/scfw/core/checkpoint.hpp, docs/checkpoint.md): for every
// example, a run stopped at iteration k with a checkpoint and resumed in fresh objects gives
// bitwise the uninterrupted run's y_K, trace (every column but seconds) and summary counts; the
// file is refused under another scfw version, problem or plugin set with one line saying which;
// the state blocks round-trip bit for bit.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine_support.hpp"
#include "sanitizer_support.hpp"
#include "scfw/core/checkpoint.hpp"
#include "scfw/core/report.hpp"
#include "scfw/state.hpp"

using namespace scfw;
namespace fs = std::filesystem;

namespace {

const char* const kExamples[] = {"minimax_synthetic", "cvar_portfolio", "dro_chi2",     "fairness",
                                 "exact_penalty",     "norm_multitask", "regularized", "matrix_completion",
                                 "matrix_completion_observed"};
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
    // The two matrix_completion examples at 40: a column-generation solve per step (16 s per 120
    // iterations under the sanitizer job's build).
    const long K = std::string(name).rfind("matrix_completion", 0) == 0 ? 40 : 80;
    const nlohmann::json doc = document(name, K);
    const Outcome whole = run_whole(doc);
    for (long k : {K / 2 - 3, K / 2}) {  // mid-way between reports, and on one
      CAPTURE(k);
      const fs::path file = scratch(std::string(name) + ".ckpt");
      run_until(doc, k, file);
      std::string temporary = ".";  // output_file.cpp's prefix of a file being written
      temporary += file.filename().string();
      temporary += ".";
      for (const auto& entry : fs::directory_iterator(file.parent_path()))  // no temporary left behind
        CHECK(entry.path().filename().string().rfind(temporary, 0) != 0);
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
      // y as factors (matrix_completion_observed): the same columns, bit for bit.
      std::vector<double> c1, u1, v1, c2, u2, v2;
      whole.summary.factors.save(c1, u1, v1);
      resumed.summary.factors.save(c2, u2, v2);
      CHECK(resumed.summary.factors.active() == whole.summary.factors.active());
      CHECK((c1 == c2 && u1 == u2 && v1 == v2));
      if (std::string(name) == "matrix_completion_observed") CHECK(whole.summary.factors.count() > 0);
    }
  }
}

// Three least-squares tasks over X = {x in [-1, 1]^6 : sum x <= 3} (test::box_cut_polytope),
// reported every 10 iterations, solved by `glmo` in K iterations.
static nlohmann::json polytope_run(const char* glmo, long K) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "seed": 5, "report": { "every": 10 },
    "oracle": { "plugin": "least_squares_tasks", "batch": 1,
                "synthetic": { "tasks": 3, "dim": 6, "rows_per_task": 30, "sparsity": 3, "seed": 2 } },
    "outer":  { "plugin": "max" },
    "schedule": { "plugin": "nonconvex" } })");
  doc["iterations"] = K;
  doc["glmo"] = {{"plugin", glmo}};
  doc["domain"] = test::box_cut_polytope();
  return doc;
}

TEST_CASE("every tracker, and a polytope's warm LMO under column generation, resume bit for bit") {
  // X = {x in [-1, 1]^6 : sum x <= 3}; column generation calls the polytope's LMO (a warm Clp
  // basis) at every GLMO solve. STORM and the Hessian tracker read y_{k-1}.
  for (const char* tracker : {"momentum", "storm", "hessian", "vanilla", "clipped"}) {
    CAPTURE(tracker);
    nlohmann::json doc = polytope_run("column_generation", 60);
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

TEST_CASE("a resume with another report setting gives the same y_K: the gap reports keep their own domain") {
  // The polytope's LMO keeps a warm Clp basis; the gap reports solve over a second polytope
  // (composer.cpp), so neither the reports before the checkpoint nor those after it move y_K.
  const nlohmann::json doc = polytope_run("column_generation", 60);
  const Outcome whole = run_whole(doc);
  const fs::path file = scratch("report_setting.ckpt");
  run_until(doc, 27, file);
  for (long every : {1L, 3L, 0L}) {
    CAPTURE(every);
    nlohmann::json other = doc;
    other["report"] = {{"every", every}};
    const Outcome resumed = resume(other, file);
    CHECK(resumed.summary.iterations == 60);
    CHECK(bitwise_equal(resumed.summary.y, whole.summary.y));
  }
}

TEST_CASE("long runs resume bit for bit at three points, with every GLMO, clp included") {
  // Every example at 2,000 iterations (matrix_completion, whose GLMO is an SVD per step, at
  // 400; dro_chi2 runs clp with its outer-approximation cuts, fairness clp on an l1 ball), and
  // clp on a polytope, resumed at three points: early, between reports, and late.
  // The warm GLMOs carry a basis and Clp's own state across thousands of re-solves; with only
  // Clp's random seed saved (not its last bad iteration), dro_chi2 resumed at 1000 and 1787
  // ended with another y_K.
  if (scfw::test::kAllocatorSanitized) {
    // 40 runs of 2,000 iterations: the sanitizer job would spend many minutes here
    // (.ci/sanitize.sh); the 80-iteration resumes above run there.
    MESSAGE("long resumes not run under a sanitizer (.ci/sanitize.sh)");
    return;
  }
  std::vector<std::pair<std::string, nlohmann::json>> runs;
  for (const char* name : kExamples) {
    nlohmann::json doc = document(name, std::string(name) == "matrix_completion" ? 400 : 2000);
    doc["report"] = {{"every", 50}};
    runs.emplace_back(name, doc);
  }
  nlohmann::json polytope = polytope_run("clp", 2000);
  polytope["report"] = {{"every", 50}};
  runs.emplace_back("clp on a polytope", polytope);
  for (const auto& run : runs) {
    // Not a structured binding: clang 14 refuses CAPTURE's lambda reference to one.
    const std::string& name = run.first;
    const nlohmann::json& doc = run.second;
    CAPTURE(name);
    const long K = doc["iterations"].get<long>();
    const Outcome whole = run_whole(doc);
    for (long k : {K / 10 + 7, K / 2, K - K / 10 - 13}) {
      CAPTURE(k);
      const fs::path file = scratch("long.ckpt");
      run_until(doc, k, file);
      const Outcome resumed = resume(doc, file);
      CHECK(resumed.summary.iterations == K);
      CHECK(bitwise_equal(resumed.summary.y, whole.summary.y));
      CHECK(without_seconds(resumed.trace) == without_seconds(whole.trace));
      CHECK(resumed.summary.glmo_iterations == whole.summary.glmo_iterations);
    }
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
  { std::ofstream(file) << "scfw-checkpoint 2\nscfw 1\nstate\n"; }
  CHECK_THROWS_WITH_AS(read_checkpoint(file), (file.string() + ": truncated checkpoint (no end line)").c_str(),
                       InputError);
  { std::ofstream(file) << "scfw-checkpoint 1\nscfw 1\nstate\nend\n"; }
  CHECK_THROWS_WITH_AS(read_checkpoint(file),
                       (file.string() + ": checkpoint format 1 (an earlier scfw, without a checksum) is not resumed; "
                                        "run again from the start to write a format 2 checkpoint").c_str(),
                       InputError);
  { std::ofstream(file) << "scfw-checkpoint 2\nscfw 1\nstate\nend\n"; }
  CHECK_THROWS_WITH_AS(read_checkpoint(file),
                       (file.string() + ": checkpoint is damaged: no checksum line before its end").c_str(), InputError);
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

TEST_CASE("a block's bytes must be exactly its declared count of values, checked before any is read") {
  std::vector<double> values;
  // A count with no bytes behind it (the reader used to copy 3 doubles out of an empty buffer).
  StateReader r1(std::string("values f64 3 -\n"), "CK");
  CHECK_THROWS_WITH_AS(r1.get("values", values), "CK: block values: 3 f64 values declared, 0 bytes follow", Error);
  // A short block: 8 bytes held 2 doubles by the old divisibility check.
  StateReader r2(std::string("values f64 2 000000000000f03f\n"), "CK");
  CHECK_THROWS_WITH_AS(r2.get("values", values), "CK: block values: 2 f64 values declared, 8 bytes follow", Error);
  StateReader r3(std::string("values f64 18446744073709551615 000000000000f03f\n"), "CK");
  CHECK_THROWS_WITH_AS(r3.get("values", values),
                       "CK: block values: 18446744073709551615 f64 values declared, 8 bytes follow", Error);
  StateReader r4(std::string("values f64 1 000000000000f03\n"), "CK");
  CHECK_THROWS_WITH_AS(r4.get("values", values), "CK: block values: 1 f64 values declared, an odd number of hex digits follow",
                       Error);
  std::string text;
  StateReader r5(std::string("text str 4 6162\n"), "CK");
  CHECK_THROWS_WITH_AS(r5.get("text", text), "CK: block text: 4 str values declared, 2 bytes follow", Error);
  StateReader r6(std::string("values f64 1 000000000000f03f\n"), "CK");
  r6.get("values", values);
  CHECK(values == std::vector<double>{1.0});
  // What load_state() checks with the reader's helpers.
  StateReader r7(std::string(""), "CK: glmo x");
  CHECK_THROWS_WITH_AS(r7.check_range("head", std::vector<int>{0, -1}, 0, 9), "CK: glmo x: block head: value -1 at 1 is outside [0, 9]",
                       Error);
  CHECK_THROWS_WITH_AS(r7.check_range("bound", std::vector<double>{1e300}, 0.0, 1e20),
                       "CK: glmo x: block bound: value 1.0000000000000001e+300 is outside [0, 1e+20]", Error);
  CHECK_THROWS_WITH_AS(r7.check_finite("x", std::vector<double>{0, std::numeric_limits<double>::quiet_NaN()}),
                       "CK: glmo x: block x: value nan at 1 is not finite", Error);
}

namespace {
/// The checkpoint file's text, and the same written back.
std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void spill(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }
/// The hex digits of block `name` (a line "<name> <type> <count> <hex>").
std::size_t block_hex(const std::string& text, const std::string& name) {
  const std::size_t line = text.find("\n" + name + " ");
  REQUIRE(line != std::string::npos);
  std::size_t at = line + 1;
  for (int spaces = 0; spaces < 3; ++at)
    if (text[at] == ' ') ++spaces;
  return at;
}
std::string checksum_of(const std::string& text) {
  const std::size_t at = text.rfind("\nchecksum fnv1a64 ");
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a64(text.substr(0, at + 1))));
  return buf;
}
}  // namespace

TEST_CASE("a damaged checkpoint is refused by its checksum before anything of it is read") {
  nlohmann::json doc = document("dro_chi2", 300);
  const fs::path file = scratch("damaged.ckpt");
  run_until(doc, 180, file);
  const std::string good = slurp(file);
  const std::string f = file.string();
  const std::string recorded = good.substr(good.rfind("checksum fnv1a64 ") + 17, 16);
  CHECK(recorded == checksum_of(good));

  // One hex digit of y flipped.
  std::string y = good;
  const std::size_t at = block_hex(y, "y") + 5;
  y[at] = y[at] == '0' ? '1' : '0';
  spill(file, y);
  CHECK_THROWS_WITH_AS(read_checkpoint(file),
                       (f + ": checkpoint is damaged: checksum " + recorded + " recorded, " + checksum_of(y) +
                        " computed over its contents").c_str(),
                       InputError);
  // The iteration edited from 180 to 100.
  std::string k = good;
  const std::size_t it = block_hex(k, "iteration");
  REQUIRE(k.substr(it, 16) == "b400000000000000");
  k.replace(it, 16, "6400000000000000");
  spill(file, k);
  CHECK_THROWS_WITH_AS(read_checkpoint(file),
                       (f + ": checkpoint is damaged: checksum " + recorded + " recorded, " + checksum_of(k) +
                        " computed over its contents").c_str(),
                       InputError);
  // Behind a right checksum, the blocks are still checked: a cut y, a y with no bytes at all.
  spill(file, good);
  const std::string d = std::to_string(read_checkpoint(file).state.y.size());
  std::string cut = good;
  const std::size_t yb = block_hex(cut, "y");
  cut.erase(yb + 16, cut.find('\n', yb) - yb - 16);
  spill(file, reseal_checkpoint(cut));
  CHECK_THROWS_WITH_AS(read_checkpoint(file), (f + ": block y: " + d + " f64 values declared, 8 bytes follow").c_str(),
                       InputError);
  std::string none = good;
  none.replace(yb, none.find('\n', yb) - yb, "-");
  spill(file, reseal_checkpoint(none));
  CHECK_THROWS_WITH_AS(read_checkpoint(file), (f + ": block y: " + d + " f64 values declared, 0 bytes follow").c_str(),
                       InputError);
  // A value no run holds: a NaN in y.
  std::string nan = good;
  nan.replace(yb, 16, "000000000000f87f");
  spill(file, reseal_checkpoint(nan));
  CHECK_THROWS_WITH_AS(read_checkpoint(file), (f + ": block y: value nan at 0 is not finite").c_str(), InputError);
  // A control character in a line that messages quote (a plugin's name here).
  std::string control = good;
  const std::size_t plugin_end = control.find('\n', control.find("\nplugin tracker "));
  const std::size_t plugin_at = control.rfind('\n', plugin_end - 1) + 1;
  const std::string plugin_line = control.substr(plugin_at, plugin_end - plugin_at);
  control.insert(plugin_end, "\x15");
  spill(file, reseal_checkpoint(control));
  CHECK_THROWS_WITH_AS(read_checkpoint(file), (f + ": malformed checkpoint line \"" + plugin_line + "?\"").c_str(), InputError);
  spill(file, reseal_checkpoint(good));
  CHECK(read_checkpoint(file).state.done == 180);
}

namespace {
/// `state` (a plugin's blocks) with the hex digits of block `name` from digit `at` replaced by
/// `hex`; the block's count of values stays.
std::string with_block_hex(const std::string& state, const std::string& name, std::size_t at, const std::string& hex) {
  std::string out = state;
  const std::size_t line = ("\n" + out).find("\n" + name + " ");
  REQUIRE(line != std::string::npos);
  std::size_t pos = line;
  for (int spaces = 0; spaces < 3; ++pos)
    if (out[pos] == ' ') ++spaces;
  REQUIRE(pos + at + hex.size() <= out.find('\n', pos));
  out.replace(pos + at, hex.size(), hex);
  return out;
}
/// The count of block `name` of a plugin's state.
std::string block_count(const std::string& state, const std::string& name) {
  std::istringstream in(state);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name + " ", 0) == 0) {
      std::istringstream ls(line);
      std::string n, type, count;
      ls >> n >> type >> count;
      return count;
    }
  FAIL("no block " << name);
  return "";
}
std::string hex_of(double v) {
  unsigned char b[8];
  std::memcpy(b, &v, 8);
  std::string out;
  for (unsigned char c : b) {
    const char* digits = "0123456789abcdef";
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}
}  // namespace

TEST_CASE("a plugin's load_state refuses a state it could not have saved, naming the checkpoint and the block") {
  nlohmann::json doc = document("minimax_synthetic", 60);
  const fs::path file = scratch("plugin.ckpt");
  const std::string f = file.string();
  SUBCASE("dense_simplex: a basis index of -1 (it gave \"double free or corruption\")") {
    doc["glmo"] = {{"plugin", "dense_simplex"}};
    run_until(doc, 25, file);
    Checkpoint ck = read_checkpoint(file);
    const long nt = std::stol(block_count(ck.algorithm_glmo, "status"));
    ck.algorithm_glmo = with_block_hex(ck.algorithm_glmo, "head", 0, "ffffffff");
    Composition c = compose_doc(doc);
    CHECK_THROWS_WITH_AS(restore_components(f, ck, c),
                         (f + ": glmo dense_simplex: block head: value -1 at 0 is outside [0, " + std::to_string(nt - 1) + "]").c_str(),
                         InputError);
    // A basis variable whose status is not basic: the first status made "at lower" (00).
    Checkpoint ck2 = read_checkpoint(file);
    Composition c2 = compose_doc(doc);
    // The variable in basis position 0 (head's first i32, little-endian) made "at lower" (00).
    const std::size_t head_at = ck2.algorithm_glmo.find("head i32 ");
    REQUIRE(head_at != std::string::npos);
    std::string head_hex = ck2.algorithm_glmo.substr(ck2.algorithm_glmo.find(' ', head_at + 9) + 1, 8);
    unsigned char bytes[4];
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<unsigned char>(std::stoi(head_hex.substr(2 * i, 2), nullptr, 16));
    std::int32_t j = 0;
    std::memcpy(&j, bytes, 4);
    REQUIRE(j >= 0);
    ck2.algorithm_glmo = with_block_hex(ck2.algorithm_glmo, "status", 2 * static_cast<std::size_t>(j), "00");
    CHECK_THROWS_WITH_AS(restore_components(f, ck2, c2),
                         (f + ": glmo dense_simplex: block head: variable " + std::to_string(j) +
                          " is in the basis but its status is not basic").c_str(),
                         InputError);
    Checkpoint ck3 = read_checkpoint(file);
    Composition c3 = compose_doc(doc);
    ck3.algorithm_glmo = with_block_hex(ck3.algorithm_glmo, "x", 0, hex_of(std::numeric_limits<double>::infinity()));
    CHECK_THROWS_WITH_AS(restore_components(f, ck3, c3), (f + ": glmo dense_simplex: block x: value inf at 0 is not finite").c_str(),
                         InputError);
    Checkpoint good = read_checkpoint(file);
    Composition c4 = compose_doc(doc);
    CHECK_NOTHROW(restore_components(f, good, c4));
  }
  SUBCASE("clp: a dual bound of 1e300 (it crashed inside Clp)") {
    doc["glmo"] = {{"plugin", "clp"}};
    run_until(doc, 25, file);
    Checkpoint ck = read_checkpoint(file);
    ck.algorithm_glmo = with_block_hex(ck.algorithm_glmo, "clp_bounds", 0, hex_of(1e300));
    Composition c = compose_doc(doc);
    CHECK_THROWS_WITH_AS(restore_components(f, ck, c),
                         (f + ": glmo clp: block clp_bounds: value 1.0000000000000001e+300 at 0 is outside "
                              "[2.2250738585072014e-308, 1e+20]").c_str(),
                         InputError);
    Checkpoint ck2 = read_checkpoint(file);
    ck2.algorithm_glmo = with_block_hex(ck2.algorithm_glmo, "clp_status", 0, "07");
    Composition c2 = compose_doc(doc);
    CHECK_THROWS_WITH_AS(restore_components(f, ck2, c2),
                         (f + ": glmo clp: block clp_status: value 7 at 0 is not a Clp basis status").c_str(), InputError);
    Checkpoint ck3 = read_checkpoint(file);
    ck3.algorithm_glmo = with_block_hex(ck3.algorithm_glmo, "clp_duals", 0, hex_of(std::numeric_limits<double>::quiet_NaN()));
    Composition c3 = compose_doc(doc);
    CHECK_THROWS_WITH_AS(restore_components(f, ck3, c3), (f + ": glmo clp: block clp_duals: value nan at 0 is not finite").c_str(),
                         InputError);
  }
}

TEST_CASE("a data file changed between the run and the resume is refused, naming it") {
  const fs::path csv = scratch("poly.csv");
  const auto write_csv = [&](const std::string& last) {
    std::ofstream out(csv);
    for (int sign : {1, -1})
      for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) out << (i == j ? sign : 0) << ",";
        out << "1\n";
      }
    out << last << "\n";
  };
  write_csv("1,1,1,1,1,1,3");
  nlohmann::json doc = nlohmann::json::parse(R"({
    "seed": 5, "iterations": 40, "report": { "every": 10 },
    "oracle": { "plugin": "least_squares_tasks", "batch": 1,
                "synthetic": { "tasks": 3, "dim": 6, "rows_per_task": 30, "sparsity": 3, "seed": 2 } },
    "outer":  { "plugin": "max" }, "glmo": { "plugin": "column_generation" } })");
  doc["domain"] = {{"plugin", "polytope"}, {"file", csv.string()}};
  const fs::path file = scratch("data.ckpt");
  const std::string f = file.string();
  run_until(doc, 15, file);
  const Checkpoint ck = read_checkpoint(file);
  REQUIRE(ck.identity.data.size() == 1);
  CHECK(ck.identity.data[0].path == csv.string());
  CHECK(ck.identity.data[0].size == fs::file_size(csv));
  {
    Composition c = compose_doc(doc);
    CHECK_NOTHROW(check_identity(f, ck.identity, run_identity(test::registry(), doc, c, kVersion)));
  }
  const auto size_before = fs::file_size(csv);
  write_csv("1,1,1,1,1,1,2");  // same size, other contents
  {
    Composition c = compose_doc(doc);
    const RunIdentity now = run_identity(test::registry(), doc, c, kVersion);
    char then_hash[17], now_hash[17];
    std::snprintf(then_hash, sizeof then_hash, "%016llx", static_cast<unsigned long long>(ck.identity.data[0].hash));
    std::snprintf(now_hash, sizeof now_hash, "%016llx", static_cast<unsigned long long>(now.data[0].hash));
    CHECK_THROWS_WITH_AS(check_identity(f, ck.identity, now),
                         (f + ": checkpoint: data file " + csv.string() +
                          " differs from the one read when the checkpoint was taken (same size, other contents: FNV-1a " +
                          then_hash + " then, " + now_hash + " now)").c_str(),
                         InputError);
  }
  write_csv("1,1,1,1,1,1,2.5");
  {
    Composition c = compose_doc(doc);
    CHECK_THROWS_WITH_AS(check_identity(f, ck.identity, run_identity(test::registry(), doc, c, kVersion)),
                         (f + ": checkpoint: data file " + csv.string() + " differs from the one read when the checkpoint was taken (" +
                          std::to_string(size_before) + " bytes then, " + std::to_string(size_before + 2) + " now)").c_str(),
                         InputError);
  }
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
