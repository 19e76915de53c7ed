// The composer: problem documents validated against the declared parameters of the plugins they
// name, every bad input reported as one line "<file>: <JSON pointer>: <what>" (checked word for
// word here), defaults and overrides, and the host wrappers that check sizes and count calls.
// Real plugins come from SCFW_PLUGIN_DIR; tests/fixtures/composer holds components that
// misbehave in one way each.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <unistd.h>

#include "scfw/core/checked.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using scfw::InputError;
using scfw::Kind;
using scfw::Registry;

namespace {

// Domain::lmo's answer as a d-vector.
void lmo_dense(const scfw::Domain& domain, const scfw::Vec& g, scfw::Vec& x) {
  scfw::Atom s;
  domain.lmo(g, s);
  s.to_dense(x);
}

// Exactly these real plugins, so that lists of names in messages do not depend on what else
// happens to be built.
const char* const kPlugins[] = {"least_squares_tasks", "max", "linear", "l1_ball", "simplex", "box",
                                "clp", "dense_simplex", "column_generation", "nuclear_ball", "momentum", "nonconvex", "convex", "deterministic", "constant"};

/// A registry (kept for the whole test program) of the kPlugins that were built.
Registry* load_real_plugins() {
  auto* reg = new Registry();
  for (const char* name : kPlugins) {
    const fs::path lib = fs::path(SCFW_PLUGIN_DIR) / ("libscfw_" + std::string(name) + ".so");
    if (fs::exists(lib)) reg->load_library(lib);
  }
  return reg;
}

const Registry& real_plugins() {
  static Registry* r = [] {
    Registry* reg = load_real_plugins();
    for (const auto& f : reg->failures()) MESSAGE("plugin failed to load: ", f.path, ": ", f.reason);
    return reg;
  }();
  return *r;
}

/// The real plugins plus the composer fixture.
const Registry& with_fixtures() {
  static Registry* r = [] {
    Registry* reg = load_real_plugins();
    reg->load_library(fs::path(SCFW_FIXTURE_DIR) / "composer" / "libcomposer.so");
    return reg;
  }();
  return *r;
}

/// A small valid problem: 3 tasks in dimension 5.
json base() {
  return json::parse(R"({
    "oracle": {"plugin": "least_squares_tasks",
               "synthetic": {"tasks": 3, "dim": 5, "rows_per_task": 20, "sparsity": 2}},
    "outer":  {"plugin": "max"},
    "domain": {"plugin": "l1_ball"}
  })");
}

/// The message of the InputError that composing `doc` raises ("" if none).
std::string compose_error(const json& doc, const Registry& registry = real_plugins()) {
  try {
    scfw::compose(registry, doc, "problem.json", ".");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// The message of the scfw::Error other than an InputError (a failure of the run, exit 1) that
/// composing `doc` with the fixtures raises.
std::string run_failure(const json& doc) {
  try {
    scfw::compose(with_fixtures(), doc, "problem.json", ".");
  } catch (const InputError& e) {
    FAIL("not an input error: ", e.what());
  } catch (const scfw::Error& e) {
    return e.what();
  }
  FAIL("expected an error");
  return "";
}

/// A file in a fresh temporary folder, removed with the folder at exit of the test case.
struct TempFile {
  fs::path dir, path;
  TempFile(const std::string& name, const std::string& text) {
    dir = fs::temp_directory_path() / ("scfw_test_composer_" + std::to_string(::getpid()) + "_" + name);
    fs::create_directories(dir);
    path = dir / name;
    std::ofstream(path) << text;
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

/// What nlohmann itself says about the position of a parse error, "line L, column C".
std::string parser_position(const std::string& text) {
  try {
    const json parsed = json::parse(text);
    (void)parsed;
  } catch (const json::parse_error& e) {
    std::smatch m;
    const std::string what = e.what();
    if (std::regex_search(what, m, std::regex("line [0-9]+, column [0-9]+"))) return m.str();
  }
  return "";
}

bool have_real_plugins() {
  const bool ok = real_plugins().find(Kind::Oracle, "least_squares_tasks") && real_plugins().find(Kind::Outer, "max") &&
                  real_plugins().find(Kind::Domain, "l1_ball") && real_plugins().find(Kind::Glmo, "clp") &&
                  real_plugins().find(Kind::Tracker, "momentum") && real_plugins().find(Kind::Schedule, "nonconvex");
  if (!ok) MESSAGE("some real plugins are not built in " SCFW_PLUGIN_DIR);
  return ok;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Reading files

TEST_CASE("a missing file: cannot open") {
  CHECK_THROWS_WITH_AS(scfw::read_json_file("no/such/problem.json"), "no/such/problem.json: cannot open file (No such file or directory)",
                       InputError);
  CHECK_THROWS_WITH_AS(scfw::load_problem(real_plugins(), "no/such/problem.json"),
                       "no/such/problem.json: cannot open file (No such file or directory)", InputError);
}

TEST_CASE("malformed JSON: file, line and column, then the parser's explanation") {
  const std::string text = "{\n  \"oracle\": {\"plugin\": \"x\"},\n  \"outer\" {\"plugin\": \"max\"}\n}\n";
  TempFile f("bad.json", text);
  const std::string file = f.path.string();
  CHECK_THROWS_WITH_AS(scfw::read_json_file(f.path),
                       (file + ": line 3, column 11: syntax error while parsing object separator - "
                               "unexpected '{'; expected ':'")
                           .c_str(),
                       InputError);
  CHECK(parser_position(text) == "line 3, column 11");
}

TEST_CASE("malformed JSON: line and column agree with the parser's own count") {
  const std::vector<std::string> texts = {
      "",
      "{",
      "{\"a\": 1,}",
      "{\n\"a\": [1, 2,\n 3\n",
      "{\n  \"a\": tru\n}",
      "{\"a\": \"unterminated\n}",
      "[1, 2]\n  x",
      "\n\n\n   }",
  };
  for (const auto& text : texts) {
    TempFile f("t.json", text);
    try {
      scfw::read_json_file(f.path);
      FAIL("no error for: ", text);
    } catch (const InputError& e) {
      const std::string what = e.what();
      const std::string expected_head = f.path.string() + ": " + parser_position(text) + ": ";
      CHECK_MESSAGE(what.rfind(expected_head, 0) == 0, what, " vs ", expected_head);
      CHECK(what.find("[json.exception") == std::string::npos);
      CHECK(what.find("parse error at") == std::string::npos);
    }
  }
  // The end of input is reported where it happens.
  TempFile f("empty.json", "");
  CHECK_THROWS_WITH_AS(scfw::read_json_file(f.path),
                       (f.path.string() + ": line 1, column 1: syntax error while parsing value - unexpected end "
                                          "of input; expected '[', '{', or a literal")
                           .c_str(),
                       InputError);
}

// ---------------------------------------------------------------------------------------------
// validate_params on its own

TEST_CASE("validate_params: types, defaults, coercions and nested objects") {
  using scfw::ParamSpec;
  const std::vector<ParamSpec> specs = {
      ParamSpec::number("radius", "radius").positive().def(1.0),
      ParamSpec::integer("dim", "dimension").range(1, scfw::inf),
      ParamSpec::number_list("lower", "lower bounds").def(std::vector<double>{0.0}),
      ParamSpec::boolean("warm", "warm start").def(true),
      ParamSpec::choice("value", {"polyak", "taylor"}, "tracker").def("taylor"),
      ParamSpec::string("file", "data file"),
      ParamSpec::object("synthetic", {ParamSpec::integer("tasks", "tasks").range(1, scfw::inf).def(10)}, "generator"),
  };
  SUBCASE("defaults filled, optional ones without default absent") {
    const auto p = scfw::validate_params(specs, json::parse(R"({"plugin": "x"})"), "f.json", "/domain");
    CHECK(p.number("radius") == 1.0);
    CHECK_FALSE(p.has("dim"));
    CHECK(p.numbers("lower") == std::vector<double>{0.0});
    CHECK(p.boolean("warm"));
    CHECK(p.string("value") == "taylor");
    CHECK_FALSE(p.has("file"));
    CHECK_FALSE(p.has("synthetic"));
    CHECK(p.source() == "f.json");
    CHECK(p.pointer() == "/domain");
    CHECK(p.where("radius") == "f.json: /domain/radius");
  }
  SUBCASE("an integer for a number, 3.0 for an integer, a scalar for a list") {
    const auto p = scfw::validate_params(
        specs, json::parse(R"({"radius": 2, "dim": 3.0, "lower": -1.5, "synthetic": {}})"), "f.json", "/domain");
    CHECK(p.number("radius") == 2.0);
    CHECK(p.integer("dim") == 3);
    CHECK(p.numbers("lower") == std::vector<double>{-1.5});
    REQUIRE(p.has("synthetic"));
    CHECK(p.object("synthetic").integer("tasks") == 10);
    CHECK(p.object("synthetic").pointer() == "/domain/synthetic");
  }
  SUBCASE("messages") {
    auto error = [&](const char* text) {
      try {
        scfw::validate_params(specs, json::parse(text), "f.json", "/domain", "box");
      } catch (const InputError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(error(R"({"dim": 2.5})") == "f.json: /domain/dim: expected an integer >= 1, got 2.5");
    CHECK(error(R"({"dim": 0})") == "f.json: /domain/dim: expected an integer >= 1, got 0");
    CHECK(error(R"({"dim": "3"})") == "f.json: /domain/dim: expected an integer >= 1, got \"3\"");
    CHECK(error(R"({"radius": null})") == "f.json: /domain/radius: expected a number > 0, got null");
    CHECK(error(R"({"lower": [1, "a"]})") == "f.json: /domain/lower/1: expected a number, got \"a\"");
    CHECK(error(R"({"lower": {"a": 1}})") == "f.json: /domain/lower: expected an array of numbers, got {\"a\":1}");
    CHECK(error(R"({"warm": 1})") == "f.json: /domain/warm: expected true or false, got 1");
    CHECK(error(R"({"file": 1})") == "f.json: /domain/file: expected a string, got 1");
    CHECK(error(R"({"value": 1})") == "f.json: /domain/value: expected one of \"polyak\", \"taylor\", got 1");
    CHECK(error(R"({"synthetic": 1})") == "f.json: /domain/synthetic: expected an object, got 1");
    CHECK(error(R"({"synthetic": {"tasks": 0}})") ==
          "f.json: /domain/synthetic/tasks: expected an integer >= 1, got 0");
    CHECK(error(R"({"synthetic": {"task": 2}})") ==
          "f.json: /domain/synthetic/task: unknown parameter of box.synthetic; did you mean \"tasks\"?");
    CHECK(error(R"({"synthetic": {"plugin": 2}})") ==
          "f.json: /domain/synthetic/plugin: unknown parameter of box.synthetic; its parameters are \"tasks\"");
    CHECK(error(R"({"rad": 2})") == "f.json: /domain/rad: unknown parameter of box; did you mean \"radius\"?");
    CHECK(error(R"({"a/b": 2})") ==
          "f.json: /domain/a~1b: unknown parameter of box; its parameters are \"dim\", \"file\", \"lower\", "
          "\"radius\", \"synthetic\", \"value\", \"warm\"");
    CHECK(error(R"([1])") == "f.json: /domain: expected an object, got [1]");
    // A long value is shortened.
    CHECK(error(R"({"file": [1111111111, 2222222222, 3333333333, 4444444444, 5555555555, 6666666666]})") ==
          "f.json: /domain/file: expected a string, got [1111111111,2222222222,3333333333,4444444444,5555555555,6...");
  }
  SUBCASE("a required parameter") {
    const std::vector<ParamSpec> req = {ParamSpec::string("file", "the LIBSVM data file").require()};
    CHECK_THROWS_WITH_AS(scfw::validate_params(req, json::object(), "f.json", "/oracle"),
                         "f.json: /oracle/file: missing required parameter (the LIBSVM data file)", InputError);
  }
  SUBCASE("the four-argument form names the block") {
    CHECK_THROWS_WITH_AS(scfw::validate_params({}, json::parse(R"({"plugin": "max", "alpha": 1})"), "f.json", "/outer"),
                         "f.json: /outer/alpha: unknown parameter of outer; it takes no parameters", InputError);
  }
}

// ---------------------------------------------------------------------------------------------
// compose: bad input, word for word

TEST_CASE("compose: the top level") {
  REQUIRE(have_real_plugins());
  CHECK(compose_error(json::array()) == "problem.json: expected an object at the top level, got an array");

  json doc = base();
  doc["iteration"] = 10;
  CHECK(compose_error(doc) == "problem.json: /iteration: unknown key; did you mean \"iterations\"?");

  doc = base();
  doc["colour"] = "red";
  CHECK(compose_error(doc) ==
        "problem.json: /colour: unknown key; expected one of \"domain\", \"glmo\", \"iterations\", \"name\", "
        "\"oracle\", \"outer\", \"output\", \"report\", \"schedule\", \"seed\", \"start\", \"stop\", \"tracker\"");

  doc = base();
  doc["Outer"] = doc["outer"];
  CHECK(compose_error(doc) == "problem.json: /Outer: unknown key; did you mean \"outer\"?");

  doc = base();
  doc["seed"] = -1;
  CHECK(compose_error(doc) == "problem.json: /seed: expected an integer >= 0, got -1");
  doc["seed"] = "1";
  CHECK(compose_error(doc) == "problem.json: /seed: expected an integer >= 0, got \"1\"");

  doc = base();
  doc["iterations"] = 0;
  CHECK(compose_error(doc) == "problem.json: /iterations: expected an integer >= 1, got 0");
  doc["iterations"] = 10.5;
  CHECK(compose_error(doc) == "problem.json: /iterations: expected an integer >= 1, got 10.5");

  doc = base();
  doc["name"] = 3;
  CHECK(compose_error(doc) == "problem.json: /name: expected a string, got 3");

  doc = base();
  doc["report"] = json{{"every", -1}};
  CHECK(compose_error(doc) == "problem.json: /report/every: expected an integer >= 0, got -1");
  doc["report"] = json{{"evry", 10}};
  CHECK(compose_error(doc) == "problem.json: /report/evry: unknown parameter of report; did you mean \"every\"?");
  doc["report"] = 10;
  CHECK(compose_error(doc) == "problem.json: /report: expected an object, got 10");
}

TEST_CASE("compose: blocks and plugin names") {
  REQUIRE(have_real_plugins());
  json doc = base();
  doc.erase("outer");
  CHECK(compose_error(doc) ==
        "problem.json: /outer: missing block; add {\"plugin\": NAME} with NAME one of \"linear\", \"max\"");

  doc = base();
  doc["outer"] = "max";
  CHECK(compose_error(doc) == "problem.json: /outer: expected an object {\"plugin\": NAME, ...}");

  doc = base();
  doc["outer"] = json::object();
  CHECK(compose_error(doc) == "problem.json: /outer/plugin: missing; expected the name of an outer plugin");
  doc["outer"] = json{{"plugin", 1}};
  CHECK(compose_error(doc) == "problem.json: /outer/plugin: expected the name of an outer plugin, got 1");

  doc = base();
  doc["outer"]["plugin"] = "maks";
  CHECK(compose_error(doc) == "problem.json: /outer/plugin: unknown outer plugin \"maks\"; closest: \"max\", \"linear\"");

  doc = base();
  doc["outer"]["plugin"] = "l1_ball";
  CHECK(compose_error(doc) == "problem.json: /outer/plugin: \"l1_ball\" is a domain plugin, not an outer plugin");
  doc = base();
  doc["oracle"] = json{{"plugin", "max"}};
  CHECK(compose_error(doc) == "problem.json: /oracle/plugin: \"max\" is an outer plugin, not an oracle plugin");
  doc = base();
  doc["glmo"] = json{{"plugin", "momentum"}};
  CHECK(compose_error(doc) == "problem.json: /glmo/plugin: \"momentum\" is a tracker plugin, not a glmo plugin");

  // Every block is validated before any factory runs: the schedule's typo is reported even
  // though the oracle's data would be fine.
  doc = base();
  doc["schedule"] = json{{"plugin", "nonconvx"}};
  const std::string msg = compose_error(doc);
  CHECK(msg.rfind("problem.json: /schedule/plugin: unknown schedule plugin \"nonconvx\"; closest: \"nonconvex\"", 0) == 0);
}

TEST_CASE("compose: no loaded plugin of an absent block's role is chosen automatically") {
  Registry r;
  for (const char* name : {"least_squares_tasks", "max", "l1_ball", "momentum", "nonconvex"})
    r.load_library(fs::path(SCFW_PLUGIN_DIR) / ("libscfw_" + std::string(name) + ".so"));
  REQUIRE(r.find(Kind::Oracle, "least_squares_tasks"));
  CHECK(compose_error(base(), r) ==
        "problem.json: /glmo: missing block; add {\"plugin\": NAME}; no glmo plugins are loaded (check --plugin-path "
        "or SCFW_PLUGIN_PATH)");
  // The fixture's GLMO declares no preference (registrar.hpp, Preference): it is used only where named.
  r.load_library(fs::path(SCFW_FIXTURE_DIR) / "composer" / "libcomposer.so");
  CHECK(compose_error(base(), r) ==
        "problem.json: /glmo: missing block, and no loaded glmo plugin is chosen automatically; add {\"plugin\": "
        "NAME} with NAME one of \"fixture_setup_fails\"");
}

TEST_CASE("compose: an absent block's plugin is the loaded one of the highest declared rank") {
  REQUIRE(have_real_plugins());
  // Every plugin of every role, with the rank it declares: the defaults of the tracker and the
  // schedule, and the order in which the GLMOs are asked.
  Registry all;
  all.load_directory(SCFW_PLUGIN_DIR);
  std::vector<std::pair<std::string, int>> glmos;
  for (const auto& c : all.components()) {
    if (c.info.kind == Kind::Tracker) CHECK(c.info.preference.rank == (c.info.name == "momentum" ? 1 : 0));
    if (c.info.kind == Kind::Schedule) CHECK(c.info.preference.rank == (c.info.name == "nonconvex" ? 1 : 0));
    if (c.info.kind == Kind::Glmo && c.info.preference.rank > 0) glmos.emplace_back(c.info.name, c.info.preference.rank);
    CHECK(c.info.preference.hands_over == (c.info.kind == Kind::Glmo && c.info.name == "clp"));
  }
  std::sort(glmos.begin(), glmos.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  const std::vector<std::pair<std::string, int>> order = {
      {"scenario_dual", 40}, {"dense_simplex", 30}, {"clp", 20}, {"column_generation", 10}};
  CHECK(glmos == order);

  // The two notes the tests above do not reach. Many scenarios against few assets: the dual.
  json doc = {{"oracle",
               {{"plugin", "portfolio_returns"}, {"groups", 20}, {"batch", 1},
                {"synthetic", {{"assets", 5}, {"days", 200}}}}},
              {"outer", {{"plugin", "cvar_ru"}, {"alpha", 0.9}}},
              {"domain", {{"plugin", "simplex_interval"}}}};
  scfw::Composition c = scfw::compose(all, doc, "problem.json", ".");
  CHECK(c.plugins()[3].second == "scenario_dual");
  CHECK(c.notes() == std::vector<std::string>{"glmo: scenario_dual selected automatically (the GLMO LP has many rows "
                                              "against few structural columns; its dual is solved, warm)"});
  // A cone: scenario_dual and dense_simplex decline, clp (which declares no reason) says why the
  // GLMO above it declined.
  doc = base();
  doc["domain"] = json{{"plugin", "l2_ball"}, {"radius", 1}};
  c = scfw::compose(all, doc, "problem.json", ".");
  CHECK(c.plugins()[3].second == "clp");
  CHECK(c.notes() == std::vector<std::string>{"glmo: clp selected automatically; dense_simplex declined: dense_simplex: "
                                              "the model has second-order cones, which this LP solver does not handle; "
                                              "use the clp GLMO"});
}

TEST_CASE("compose: parameters of a plugin") {
  REQUIRE(have_real_plugins());
  json doc = base();
  doc["domain"]["raduis"] = 2;
  CHECK(compose_error(doc) == "problem.json: /domain/raduis: unknown parameter of l1_ball; did you mean \"radius\"?");

  doc = base();
  doc["domain"]["tau"] = 2;
  CHECK(compose_error(doc) == "problem.json: /domain/tau: unknown parameter of l1_ball; its parameters are \"dim\", \"radius\"");

  doc = base();
  doc["outer"]["alpha"] = 0.5;
  CHECK(compose_error(doc) == "problem.json: /outer/alpha: unknown parameter of max; it takes no parameters");

  // A long list of parameters is not spelled out: the count and the three closest names keep the
  // line short (the fuzzer's limit is 300 bytes besides paths; matrix_completion has 16; the
  // fuzzer's finding is in test_hostile_inputs.cpp).
  Registry with_completion;
  for (const char* name : {"matrix_completion", "max", "nuclear_ball", "clp", "momentum", "nonconvex"})
    with_completion.load_library(fs::path(SCFW_PLUGIN_DIR) / ("libscfw_" + std::string(name) + ".so"));
  REQUIRE(with_completion.find(Kind::Oracle, "matrix_completion"));
  doc = base();
  doc["oracle"] = {{"plugin", "matrix_completion"}, {"row", 3}};
  CHECK(compose_error(doc, with_completion) == "problem.json: /oracle/row: unknown parameter of matrix_completion; did you mean \"rows\"?");
  doc["oracle"] = {{"plugin", "matrix_completion"}, {"learning_rate", 3}};
  CHECK(compose_error(doc, with_completion) == "problem.json: /oracle/learning_rate: unknown parameter of matrix_completion; it has 18 "
                              "parameters; closest: \"coordinates\", \"array\", \"grouping\"");

  doc = base();
  doc["oracle"]["synthetic"]["taks"] = 3;
  CHECK(compose_error(doc) ==
        "problem.json: /oracle/synthetic/taks: unknown parameter of least_squares_tasks.synthetic; did you mean \"tasks\"?");

  doc = base();
  doc["domain"]["radius"] = -1;
  CHECK(compose_error(doc) == "problem.json: /domain/radius: expected a number in (0, 1e10], got -1");
  doc["domain"]["radius"] = "big";
  CHECK(compose_error(doc) == "problem.json: /domain/radius: expected a number in (0, 1e10], got \"big\"");

  doc = base();
  doc["oracle"]["synthetic"]["dim"] = 2.5;
  CHECK(compose_error(doc) == "problem.json: /oracle/synthetic/dim: expected an integer >= 1, got 2.5");

  doc = base();
  doc["tracker"] = json{{"plugin", "momentum"}, {"value", "tailor"}};
  CHECK(compose_error(doc) == "problem.json: /tracker/value: expected one of \"polyak\", \"taylor\", got \"tailor\"");

  doc = base();
  doc["glmo"] = json{{"plugin", "clp"}, {"warm_start", "yes"}};
  CHECK(compose_error(doc) == "problem.json: /glmo/warm_start: expected true or false, got \"yes\"");
}

TEST_CASE("compose: a domain whose dimension differs from the oracle's") {
  REQUIRE(have_real_plugins());
  // The domain's own "dim" is checked by the plugin against the oracle's d.
  json doc = base();
  doc["domain"]["dim"] = 3;
  CHECK(compose_error(doc) == "problem.json: /domain/dim: the domain has dimension 3 but the oracle has dimension 5");
  doc["domain"]["dim"] = 5.0;  // integral float: fine
  CHECK(compose_error(doc) == "");

  // A domain that does not check is caught by the composer.
  doc = base();
  doc["domain"] = json{{"plugin", "fixture_fixed_dim"}, {"dim", 3}};
  CHECK(compose_error(doc, with_fixtures()) ==
        "problem.json: /domain: the domain has dimension 3 but the oracle has dimension 5");
  doc["domain"] = json{{"plugin", "fixture_fixed_dim"}};
  CHECK(compose_error(doc, with_fixtures()) == "problem.json: /domain/dim: missing required parameter (dimension)");
}

TEST_CASE("compose: failures inside factories, bind and setup") {
  REQUIRE(have_real_plugins());
  json doc = base();
  doc["oracle"] = json{{"plugin", "fixture_factory_throws"}};
  CHECK(compose_error(doc, with_fixtures()) == "problem.json: /oracle: fixture_factory_throws: cannot read data.bin");

  // A plugin's own InputError (Params::fail) passes unchanged.
  doc = base();
  doc["oracle"]["synthetic"]["sparsity"] = 6;
  CHECK(compose_error(doc) == "problem.json: /oracle/synthetic/sparsity: expected at most dim = 5 non-zeros, got 6");

  // least_squares_tasks has a Hessian action; the fixture oracle has none.
  doc = base();
  doc["oracle"] = json{{"plugin", "fixture_linear_oracle"}};
  doc["tracker"] = json{{"plugin", "fixture_needs_hessian"}};
  CHECK_THROWS_WITH_AS(scfw::compose(with_fixtures(), doc, "problem.json", "."),
                       "problem.json: /tracker: fixture_needs_hessian needs the oracle's Hessian action "
                       "(capability \"hessian_action\")",
                       scfw::CapabilityError);

  // A GLMO's setup that fails without saying the input is bad (a numerical failure, a plugin's
  // own exception) is a failure of the run (exit 1), located at the block all the same.
  doc = base();
  doc["glmo"] = json{{"plugin", "fixture_setup_fails"}};
  CHECK(run_failure(doc) == "problem.json: /glmo: fixture_setup_fails: no LP model");

  // A factory that makes an object of another role is a plugin bug, not bad input.
  doc = base();
  doc["outer"] = json{{"plugin", "fixture_wrong_role"}};
  CHECK(run_failure(doc) ==
        "fixture_wrong_role: registered as an outer plugin, but its factory made an object of another role");
}

// ---------------------------------------------------------------------------------------------
// compose: what a valid document gives

TEST_CASE("compose: defaults are filled in") {
  REQUIRE(have_real_plugins());
  const scfw::Composition p = scfw::compose(real_plugins(), base(), "examples/robust.json", "examples");
  CHECK(p.problem.source == "examples/robust.json");
  CHECK(p.problem.name == "robust");
  CHECK(p.options.seed == 1);
  CHECK(p.options.iterations == 1000);
  CHECK(p.options.report_every == 0);
  CHECK(p.options.trace == "");
  const std::vector<std::pair<std::string, std::string>> plugins = {
      {"oracle", "least_squares_tasks"}, {"outer", "max"},      {"domain", "l1_ball"},
      {"glmo", "dense_simplex"},         {"tracker", "momentum"}, {"schedule", "nonconvex"}};
  CHECK(p.plugins() == plugins);
  // No glmo block: the small LP goes to the dense simplex, and the summary will say so.
  REQUIRE(p.notes().size() == 1);
  CHECK(p.notes()[0] ==
        "glmo: dense_simplex selected automatically (the GLMO LP is small enough for the dense simplex that keeps "
        "its basis between iterations)");
  REQUIRE(p.problem.oracle);
  REQUIRE(p.problem.outer);
  REQUIRE(p.problem.domain);
  REQUIRE(p.method.glmo);
  REQUIRE(p.method.gap_glmo);
  REQUIRE(p.method.tracker);
  REQUIRE(p.method.schedule);
  CHECK(p.method.glmo.get() != p.method.gap_glmo.get());
  CHECK(p.problem.oracle->dim() == 5);
  CHECK(p.problem.oracle->outputs() == 3);
  CHECK(p.problem.domain->dim() == 5);
  // l1_ball's radius defaults to 1: the LMO's vertex is -radius e_j at the largest |g_j|.
  scfw::Vec x;
  lmo_dense(*p.problem.domain, scfw::Vec::LinSpaced(5, 1.0, 5.0), x);
  CHECK(x == -scfw::Vec::Unit(5, 4));
  REQUIRE(p.problem.counters);
}

TEST_CASE("compose: values from the file, and overrides that win over them") {
  REQUIRE(have_real_plugins());
  json doc = base();
  doc["name"] = "robust minimax";
  doc["seed"] = 4;
  doc["iterations"] = 50.0;
  doc["report"] = json{{"every", 10}, {"trace", "t.csv"}};
  doc["domain"]["radius"] = 5;
  doc["tracker"] = json{{"plugin", "momentum"}, {"value", "polyak"}};
  doc["schedule"] = json{{"plugin", "constant"}};
  doc["outer"] = json{{"plugin", "linear"}, {"component", 2}};
  {
    const scfw::Composition p = scfw::compose(real_plugins(), doc, "problem.json", ".");
    CHECK(p.problem.name == "robust minimax");
    CHECK(p.options.seed == 4);
    CHECK(p.options.iterations == 50);
    CHECK(p.options.report_every == 10);
    CHECK(p.options.trace == "t.csv");
    scfw::Vec x;
    lmo_dense(*p.problem.domain, scfw::Vec::LinSpaced(5, 1.0, 5.0), x);
    CHECK(x == -5.0 * scfw::Vec::Unit(5, 4));  // radius 5
    CHECK(p.plugins()[1] == std::pair<std::string, std::string>{"outer", "linear"});
    CHECK(p.plugins()[5] == std::pair<std::string, std::string>{"schedule", "constant"});
  }
  scfw::Overrides o;
  o.iterations = 7;
  o.seed = 9;
  o.trace = "other.csv";
  const scfw::Composition p = scfw::compose(real_plugins(), doc, "problem.json", ".", o);
  CHECK(p.options.iterations == 7);
  CHECK(p.options.seed == 9);
  CHECK(p.options.trace == "other.csv");
  CHECK(p.options.report_every == 10);

  o.iterations = 0;
  CHECK_THROWS_WITH_AS(scfw::compose(real_plugins(), doc, "problem.json", ".", o),
                       "--iterations: expected an integer >= 1, got 0", InputError);
}

TEST_CASE("load_problem: a file on disk") {
  REQUIRE(have_real_plugins());
  TempFile f("task.json", base().dump(2));
  const scfw::Composition p = scfw::load_problem(real_plugins(), f.path);
  CHECK(p.problem.source == f.path.string());
  CHECK(p.problem.name == "task");
  CHECK(p.problem.oracle->dim() == 5);

  json bad = base();
  bad["domain"]["radius"] = 0;
  TempFile g("bad_radius.json", bad.dump(2));
  CHECK_THROWS_WITH_AS(scfw::load_problem(real_plugins(), g.path),
                       (g.path.string() + ": /domain/radius: expected a number in (0, 1e10], got 0").c_str(), InputError);
}

// ---------------------------------------------------------------------------------------------
// The wrappers around the composed objects

TEST_CASE("the composed objects count calls and reject wrong sizes") {
  REQUIRE(have_real_plugins());
  scfw::Composition p = scfw::compose(real_plugins(), base(), "problem.json", ".");
  const scfw::CallCounters& c = *p.problem.counters;
  const int n = 3, d = 5;

  scfw::Rng rng(1);
  auto sample = p.problem.oracle->make_sample();
  p.problem.oracle->draw(rng, *sample);
  p.problem.oracle->draw(rng, *sample);
  scfw::Vec x = p.problem.domain->initial_point();
  scfw::Vec f(n);
  scfw::Jacobian J(n, d);
  p.problem.oracle->evaluate(*sample, x, &f, nullptr);
  p.problem.oracle->evaluate(*sample, x, nullptr, &J);
  p.problem.oracle->evaluate(*sample, x, &f, &J);
  p.problem.oracle->exact(x, &f, &J);
  CHECK(c.draws == 2);
  CHECK(c.values == 2);
  CHECK(c.jacobians == 2);
  CHECK(c.exact == 1);
  CHECK(c.oracle_seconds > 0.0);  // draw and evaluate are timed (exact is not: gap reports time it)

  const double F = p.problem.outer->value(f, x);
  CHECK(F == doctest::Approx(f.maxCoeff()));
  CHECK(c.outer_values == 1);

  scfw::Vec xo;  // sized by the wrapper
  p.method.glmo->solve(f, J, x, xo);
  CHECK(xo.size() == d);
  p.method.gap_glmo->solve(f, J, x, xo);
  CHECK(c.glmo_solves == 2);

  // The tracker is bound to the wrapped oracle: its draws are counted too.
  scfw::Vec z;
  scfw::Mat V;
  p.method.tracker->start(x, rng, z, V);
  CHECK(z.size() == n);
  CHECK(V.rows() == n);
  CHECK(V.cols() == d);
  CHECK(c.draws >= 3);

  const scfw::Vec short_x = scfw::Vec::Zero(d - 1);
  CHECK_THROWS_WITH_AS(p.problem.oracle->evaluate(*sample, short_x, &f, nullptr),
                       "least_squares_tasks: evaluate: x has size 4, expected d = 5", scfw::Error);
  scfw::Vec long_f(n + 1);
  CHECK_THROWS_WITH_AS(p.problem.oracle->evaluate(*sample, x, &long_f, nullptr),
                       "least_squares_tasks: evaluate: f has size 4, expected n = 3", scfw::Error);
  scfw::Jacobian JT(d, n);
  CHECK_THROWS_WITH_AS(p.problem.oracle->exact(x, nullptr, &JT),
                       "least_squares_tasks: exact: J is 5 x 3, expected n x d = 3 x 5", scfw::Error);
  CHECK_THROWS_WITH_AS(p.problem.outer->value(long_f, x), "max: value: u has size 4, expected n = 3", scfw::Error);
  CHECK_THROWS_WITH_AS(p.method.glmo->solve(f, JT, x, xo), "dense_simplex: solve: V is 5 x 3, expected n x d = 3 x 5", scfw::Error);
  CHECK_THROWS_WITH_AS(lmo_dense(*p.problem.domain, short_x, xo), "l1_ball: lmo: g has size 4, expected d = 5", scfw::Error);
  {
    // A sparse gradient is checked too: indices strictly increasing in [0, d), one value each.
    const std::vector<int> unsorted{3, 1};
    const std::vector<double> two{1.0, -2.0};
    scfw::Atom atom;
    CHECK_THROWS_WITH_AS(p.problem.domain->lmo(scfw::Gradient::sparse(d, unsorted, two), atom),
                         "l1_ball: lmo: got a sparse gradient of dimension 5 with 2 indices and 2 values, "
                         "expected dimension d = 5 and indices strictly increasing in [0, d)",
                         scfw::Error);
    const std::vector<int> sorted{1, 3};
    p.problem.domain->lmo(scfw::Gradient::sparse(d, sorted, two), atom);
    CHECK(atom.kind() == scfw::Atom::Kind::Sparse);  // l1_ball answers a sparse g compactly: -r sign(g_3) e_3
    REQUIRE(atom.nnz() == 1);
    CHECK(atom.index()[0] == 3);
    scfw::Vec dense_g = scfw::Vec::Zero(d), from_sparse, from_dense;
    dense_g[1] = 1.0;
    dense_g[3] = -2.0;
    atom.to_dense(from_sparse);
    lmo_dense(*p.problem.domain, dense_g, from_dense);
    CHECK(from_sparse == from_dense);  // the same vertex from either form of g
  }
  CHECK_THROWS_WITH_AS(p.method.schedule->at(10, 10), "nonconvex: at: iteration k = 10 is outside 0 .. K-1 for K = 10",
                       scfw::Error);
  // Rejected calls are not counted.
  CHECK(c.glmo_solves == 2);
  CHECK(c.outer_values == 1);
}

namespace {

/// A deliberately faulty oracle for the wrapper: throws a plain std::exception on request and
/// resizes its output on request.
class FaultyOracle : public scfw::Oracle {
 public:
  mutable int mode = 0;  // 0 fine, 1 throw std::runtime_error, 2 throw InputError, 3 resize f
  int dim() const override { return 2; }
  int outputs() const override { return 3; }
  std::unique_ptr<scfw::Sample> make_sample() const override { return std::make_unique<scfw::Sample>(); }
  void draw(scfw::Rng&, scfw::Sample&) const override {
    if (mode == 1) throw std::runtime_error("boom");
  }
  void evaluate(const scfw::Sample&, const scfw::Vec&, scfw::Vec* f, scfw::Jacobian*) const override {
    if (mode == 1) throw std::out_of_range("index 7");
    if (mode == 2) throw InputError("data.csv: line 3: bad row");
    if (mode == 3 && f) f->resize(2);
  }
};

class BadSchedule : public scfw::Schedule {
 public:
  scfw::Steps at(long, long) const override { return {1.5, 0.5, 0.5}; }
  std::string describe(long) const override { return "bad"; }
};

}  // namespace

TEST_CASE("the wrappers name the plugin in foreign exceptions and pass scfw errors unchanged") {
  auto inner = std::make_unique<FaultyOracle>();
  FaultyOracle* raw = inner.get();
  auto counters = std::make_shared<scfw::CallCounters>();
  auto oracle = scfw::wrap_oracle(std::move(inner), "faulty", counters);
  scfw::Rng rng(1);
  auto s = oracle->make_sample();
  scfw::Vec x = scfw::Vec::Zero(2), f = scfw::Vec::Zero(3);

  oracle->evaluate(*s, x, &f, nullptr);
  CHECK(counters->values == 1);
  CHECK(counters->jacobians == 0);

  raw->mode = 1;
  CHECK_THROWS_WITH_AS(oracle->draw(rng, *s), "faulty: boom", scfw::Error);
  CHECK_THROWS_WITH_AS(oracle->evaluate(*s, x, &f, nullptr), "faulty: index 7", scfw::Error);
  raw->mode = 2;
  CHECK_THROWS_WITH_AS(oracle->evaluate(*s, x, &f, nullptr), "data.csv: line 3: bad row", InputError);
  raw->mode = 3;
  CHECK_THROWS_WITH_AS(oracle->evaluate(*s, x, &f, nullptr), "faulty: evaluate: left f with size 2, expected n = 3",
                       scfw::Error);
  raw->mode = 0;
  // Capabilities the plugin lacks are refused by name, unchanged.
  f.resize(3);
  CHECK_FALSE(oracle->capabilities().has(scfw::Capability::Exact));
  CHECK_THROWS_AS(oracle->exact(x, &f, nullptr), scfw::CapabilityError);

  auto schedule = scfw::wrap_schedule(std::make_unique<BadSchedule>(), "bad_schedule");
  CHECK_THROWS_WITH_AS(schedule->at(0, 5), "bad_schedule: at(0, 5) returned gamma = 1.5, outside [0, 1]",
                       scfw::Error);

  CHECK_THROWS_WITH_AS(scfw::wrap_domain(nullptr, "nothing"), "nothing: its factory returned no object", scfw::Error);
}

// ---------------------------------------------------------------------------------------------
// The host-composed product domain and the automatic GLMO choices

TEST_CASE("compose: a product domain is composed from its factor blocks") {
  REQUIRE(have_real_plugins());
  json doc = base();
  doc["domain"] = json::parse(R"({"plugin": "product", "factors": [
      {"plugin": "simplex", "dim": 4}, {"plugin": "box", "dim": 1, "lower": -1, "upper": 1}]})");
  doc["glmo"] = json{{"plugin", "clp"}};
  scfw::Composition p = scfw::compose(real_plugins(), doc, "problem.json", ".");
  CHECK(p.plugins()[2].second == "product(simplex[4], box[1])");
  REQUIRE(p.problem.domain->dim() == 5);
  const scfw::Vec y0 = p.problem.domain->initial_point();
  CHECK(y0.head(4).isApproxToConstant(0.25, 1e-15));
  CHECK(y0[4] == 0.0);
  // The LMO of a product is the concatenation of the factors' LMOs.
  scfw::Vec g(5), x(5);
  g << 0.3, -0.2, 0.1, 0.5, -2.0;
  lmo_dense(*p.problem.domain, g, x);
  scfw::Vec expect(5);
  expect << 0, 1, 0, 0, 1;
  CHECK(x == expect);
  CHECK(p.problem.domain->contains(expect, 1e-12));
  expect[4] = 1.5;
  CHECK_FALSE(p.problem.domain->contains(expect, 1e-12));
  // The LP model of the product: with F = max and V = 0 the GLMO returns max(z) at a feasible x.
  scfw::Vec z(3), xo(5);
  z << 1.0, 2.0, -1.0;
  const scfw::GlmoResult r = p.method.glmo->solve(z, scfw::Mat(scfw::Mat::Zero(3, 5)), y0, xo);
  CHECK(r.value == doctest::Approx(2.0));
  CHECK(p.problem.domain->contains(xo, 1e-9));
}

TEST_CASE("compose: product domain errors name the factor") {
  REQUIRE(have_real_plugins());
  json doc = base();
  doc["domain"] = json::parse(R"({"plugin": "product", "factors": [{"plugin": "simplex", "dim": 4},
      {"plugin": "box", "dim": 2}]})");
  CHECK(compose_error(doc) == "problem.json: /domain: the domain has dimension 6 but the oracle has dimension 5");
  doc["domain"]["factors"][1] = json{{"plugin", "box"}, {"dim", 1}, {"lowr", 0}};
  CHECK(compose_error(doc) ==
        "problem.json: /domain/factors/1/lowr: unknown parameter of box; did you mean \"lower\"?");
  doc["domain"]["factors"][1] = json{{"plugin", "maks"}};
  CHECK(compose_error(doc).rfind("problem.json: /domain/factors/1/plugin: unknown domain plugin \"maks\"", 0) == 0);
  doc["domain"] = json{{"plugin", "product"}};
  CHECK(compose_error(doc) ==
        "problem.json: /domain/factors: missing required parameter (the factor domains, an array of blocks)");
  doc["domain"] = json{{"plugin", "product"}, {"factors", json::array()}};
  CHECK(compose_error(doc) ==
        "problem.json: /domain/factors: expected a non-empty array of domain blocks {\"plugin\": NAME, ...}, got []");
}

TEST_CASE("compose: clp over a domain known only by its LMO hands over to column_generation") {
  REQUIRE(have_real_plugins());
  REQUIRE(real_plugins().find(Kind::Glmo, "column_generation"));
  json doc = base();
  doc["oracle"]["synthetic"]["dim"] = 6;
  doc["domain"] = json{{"plugin", "nuclear_ball"}, {"rows", 3}, {"cols", 2}, {"radius", 1.0}};
  doc["glmo"] = json{{"plugin", "clp"}};
  const scfw::Composition p = scfw::compose(real_plugins(), doc, "problem.json", ".");
  CHECK(p.plugins()[3].second == "column_generation");
  REQUIRE(p.notes().size() == 1);
  CHECK(p.notes()[0] ==
        "glmo: the domain has no LP model, so clp handed over to column_generation (a restricted master LP over "
        "the domain's LMO atoms)");
  doc.erase("glmo");
  const scfw::Composition q = scfw::compose(real_plugins(), doc, "problem.json", ".");
  CHECK(q.plugins()[3].second == "column_generation");
  CHECK(q.notes()[0].rfind("glmo: the domain has no LP model, so column_generation was selected", 0) == 0);
}

// ---------------------------------------------------------------------------------------------
// Problem, method and options composed apart

TEST_CASE("compose_problem, compose_method, read_options: each part on its own") {
  REQUIRE(have_real_plugins());
  json doc = base();
  doc["methods"] = "not looked at";  // compose_problem reads only the problem's blocks and "name"
  scfw::Problem problem = scfw::compose_problem(real_plugins(), doc, "exp.json", ".");
  CHECK(problem.name == "exp");
  const std::vector<std::pair<std::string, std::string>> roles = {
      {"oracle", "least_squares_tasks"}, {"outer", "max"}, {"domain", "l1_ball"}};
  CHECK(problem.plugins == roles);
  CHECK(problem.dim() == 5);
  CHECK(problem.outputs() == 3);

  // A method's blocks are named by the pointers the caller gives.
  const json tracker = {{"plugin", "momentum"}, {"value", "tailor"}};
  const json schedule = {{"plugin", "nonconvex"}};
  CHECK_THROWS_WITH_AS(scfw::compose_method(real_plugins(), problem, {&tracker, "/methods/1/tracker"},
                                            {&schedule, "/methods/1/schedule"}, {nullptr, "/glmo"}),
                       "exp.json: /methods/1/tracker/value: expected one of \"polyak\", \"taylor\", got \"tailor\"",
                       InputError);
  // Absent blocks: the default tracker, and the GLMO the host picks (with its note).
  const scfw::Method method =
      scfw::compose_method(real_plugins(), problem, {nullptr, "/tracker"}, {&schedule, "/schedule"}, {nullptr, "/glmo"});
  const std::vector<std::pair<std::string, std::string>> method_roles = {
      {"glmo", "dense_simplex"}, {"tracker", "momentum"}, {"schedule", "nonconvex"}};
  CHECK(method.plugins == method_roles);
  REQUIRE(method.notes.size() == 1);
  CHECK(method.notes[0].rfind("glmo: dense_simplex selected automatically", 0) == 0);
  CHECK(method.glmo.get() != method.gap_glmo.get());

  // A renewed domain is a new object from the same block.
  const scfw::Domain* before = problem.domain.get();
  problem.renew_domain();
  CHECK(problem.domain.get() != before);
  CHECK(problem.domain->dim() == 5);
  scfw::Vec x;
  lmo_dense(*problem.domain, scfw::Vec::LinSpaced(5, 1.0, 5.0), x);
  CHECK(x == -scfw::Vec::Unit(5, 4));  // the same l1 ball of radius 1
}

TEST_CASE("read_options: the top level, \"report\", \"stop\", then the command line") {
  json doc = base();
  doc["seed"] = 3;
  doc["iterations"] = 80;
  doc["report"] = {{"every", 8}};
  doc["stop"] = {{"gap_tolerance", 1e-4}, {"time_limit", 30}};
  scfw::SolverOptions o = scfw::read_options(doc, "problem.json");
  CHECK(o.seed == 3);
  CHECK(o.iterations == 80);
  CHECK(o.report_every == 8);
  CHECK(o.trace == "");
  CHECK(o.gap_tolerance == 1e-4);
  CHECK(o.time_limit == 30);

  scfw::Overrides over;
  over.gap_tolerance = 0.5;
  over.time_limit = 2;
  o = scfw::read_options(doc, "problem.json", over);
  CHECK(o.gap_tolerance == 0.5);
  CHECK(o.time_limit == 2);
  over.gap_tolerance = -1;
  CHECK_THROWS_WITH_AS(scfw::read_options(doc, "problem.json", over), "--gap-tolerance: expected a number >= 0, got -1",
                       InputError);

  doc["stop"] = {{"gap_tol", 1e-4}};
  CHECK(compose_error(doc) == "problem.json: /stop/gap_tol: unknown parameter of stop; did you mean \"gap_tolerance\"?");
  doc["stop"] = {{"time_limit", -1}};
  CHECK(compose_error(doc) == "problem.json: /stop/time_limit: expected a number >= 0, got -1");
}

TEST_CASE("renew_domain: a domain without the warm state of the old one's LMO") {
  // The case for renewing the domain between runs on one problem: polytope's LMO re-solves from
  // Clp's previous basis, so when the minimizer is not unique the answer depends on the calls
  // made before; a renewed domain answers as a new one does.
  const int d = 3;
  json A = json::array(), b = json::array();
  for (int sign : {1, -1})
    for (int i = 0; i < d; ++i) {
      for (int j = 0; j < d; ++j) A.push_back(i == j ? sign : 0);
      b.push_back(1);
    }
  json doc = json::parse(R"({
    "oracle": { "plugin": "least_squares_tasks", "synthetic": { "tasks": 2, "dim": 3, "rows_per_task": 10, "sparsity": 2 } },
    "outer":  { "plugin": "max" }
  })");
  doc["domain"] = {{"plugin", "polytope"}, {"A", A}, {"b", b}};  // the cube [-1, 1]^3
  Registry registry;
  for (const char* name : {"least_squares_tasks", "max", "polytope"})
    registry.load_library(fs::path(SCFW_PLUGIN_DIR) / ("libscfw_" + std::string(name) + ".so"));
  scfw::Problem problem = scfw::compose_problem(registry, doc, "cube.json", ".");
  // g = (0, 0, -1): the whole face x_3 = 1 is optimal; which vertex comes back is Clp's choice.
  const scfw::Vec tie = (scfw::Vec(3) << 0, 0, -1).finished();
  const scfw::Vec g = (scfw::Vec(3) << 1, 1, -1).finished();
  scfw::Vec first(d), again(d), fresh(d), x(d);
  lmo_dense(*problem.domain, tie, first);
  CHECK(first == (scfw::Vec(3) << 1, 1, 1).finished());
  lmo_dense(*problem.domain, g, x);  // a unique answer, the vertex (-1, -1, 1)...
  CHECK(x == (scfw::Vec(3) << -1, -1, 1).finished());
  lmo_dense(*problem.domain, tie, again);  // ... whose basis now resolves the tie
  CHECK(again == x);
  problem.renew_domain();
  lmo_dense(*problem.domain, tie, fresh);
  CHECK(fresh == first);  // as a new domain answers
}
