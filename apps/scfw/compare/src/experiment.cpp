// scfw compare: the experiment file, its K expressions, and what one run composes (compare.hpp).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>

#include "scfw/compare/compare.hpp"
#include "scfw/core/diagnostics.hpp"
#include "scfw/core/plugin_lookup.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/error.hpp"
#include "internal.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace scfw {

namespace {

const std::vector<std::string> kProblemKeys = {"oracle", "outer", "domain", "glmo"};
const std::vector<std::string> kExperimentKeys = {"name",    "note",  "oracle",     "outer",  "domain", "glmo",
                                                  "methods", "seeds", "iterations", "report", "out"};

/// An integer >= min (a JSON integer, or a float with an integral value).
bool integer_at_least(const json& v, std::int64_t& out, std::int64_t min) {
  return diagnostics::as_integer(v, out) && out >= min;
}

// ---------------------------------------------------------------------------------------------
// K expressions: expr := factor (('*' | '/') factor)*;  factor := number | 'K' ['^' exponent];
// exponent := signed-number | '(' signed-number ['/' number] ')'.

/// A character of an expression for a message: 'c' when printable ASCII, else its byte in hex
/// (a control character or a piece of a UTF-8 letter must not land raw in a one-line message).
std::string shown_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7F) return "'" + std::string(1, c) + "'";
  char hex[16];
  std::snprintf(hex, sizeof hex, "byte 0x%02X", u);
  return hex;
}

struct KParser {
  const std::string& s;
  long K;
  size_t i = 0;

  void skip() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  [[noreturn]] void bad(const std::string& why) { throw std::invalid_argument(why); }
  double number(bool allow_sign) {
    skip();
    const size_t start = i;
    if (allow_sign && i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    bool digits = false;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i, digits = true;
    if (digits && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    }
    if (!digits) bad("expected a number or K at character " + std::to_string(start + 1));
    const std::string tok = s.substr(start, i - start);
    char* end = nullptr;
    const double v = std::strtod(tok.c_str(), &end);
    if (!end || *end != '\0') bad("'" + diagnostics::excerpt(tok) + "' is not a number");
    return v;
  }
  double exponent() {
    skip();
    if (i < s.size() && s[i] == '(') {
      ++i;
      double e = number(true);
      skip();
      if (i < s.size() && s[i] == '/') {
        ++i;
        const double q = number(false);
        if (q == 0) bad("division by zero in the exponent");
        e /= q;
      }
      skip();
      if (i >= s.size() || s[i] != ')') bad("expected ')' at character " + std::to_string(i + 1));
      ++i;
      return e;
    }
    return number(true);
  }
  double factor() {
    skip();
    if (i < s.size() && s[i] == 'K') {
      ++i;
      skip();
      if (i < s.size() && s[i] == '^') {
        ++i;
        return std::pow(static_cast<double>(K), exponent());
      }
      return static_cast<double>(K);
    }
    return number(false);
  }
  double parse() {
    double v = factor();
    for (;;) {
      skip();
      if (i >= s.size()) break;
      const char op = s[i];
      if (op != '*' && op != '/') bad("unexpected " + shown_char(op) + " at character " + std::to_string(i + 1));
      ++i;
      const double f = factor();
      v = op == '*' ? v * f : v / f;
    }
    return v;
  }
};

/// The block with every string given for a number parameter evaluated at K.
json with_k_evaluated(const json& block, const RegisteredComponent* component, long K, const std::string& source,
                   const std::string& pointer) {
  json out = block;
  if (!component || !block.is_object()) return out;
  for (const auto& spec : component->info.params) {
    if (spec.type != ParamType::Number) continue;
    auto it = out.find(spec.name);
    if (it == out.end() || !it->is_string()) continue;
    const std::string text = it->get<std::string>();
    double v = 0;
    try {
      v = evaluate_k_expression(text, K);
    } catch (const std::invalid_argument& e) {
      diagnostics::input_error(source, pointer + "/" + spec.name,
           "expected a number or an expression in K such as \"K^-0.75\", got " + diagnostics::show(*it) + " (" + e.what() + ")");
    }
    if (!std::isfinite(v))
      diagnostics::input_error(source, pointer + "/" + spec.name, diagnostics::show(*it) + " is not finite at K = " + std::to_string(K));
    *it = v;
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

double evaluate_k_expression(const std::string& expr, long K) {
  KParser p{expr, K};
  p.skip();
  if (p.i >= expr.size()) throw std::invalid_argument("empty expression");
  return p.parse();
}

Experiment parse_experiment(const Registry& registry, const json& doc, const std::string& source,
                            const fs::path& base_dir) {
  const std::string src = source.empty() ? std::string("<input>") : source;
  if (!doc.is_object())
    throw InputError(src + ": expected an object at the top level, got " + std::string(doc.type_name()));
  for (const auto& [key, v] : doc.items()) {
    if (std::find(kExperimentKeys.begin(), kExperimentKeys.end(), key) != kExperimentKeys.end()) continue;
    if (key == "tracker" || key == "schedule")
      diagnostics::input_error(src, diagnostics::child("", key), "unknown key; an experiment gives the tracker and schedule of each method in \"methods\"");
    const std::string guess = diagnostics::did_you_mean(key, kExperimentKeys);
    // The key cut to 40 bytes, control characters as '?' (it may be anything the file holds).
    diagnostics::input_error(src, diagnostics::child("", diagnostics::excerpt(key)),
         guess.empty() ? "unknown key; expected one of " + diagnostics::quoted_list(kExperimentKeys, false)
                       : "unknown key; did you mean \"" + guess + "\"?");
  }
  Experiment e;
  e.source = source;
  e.base_dir = base_dir;
  e.name = fs::path(source).stem().string();
  if (auto it = doc.find("name"); it != doc.end()) {
    if (!it->is_string()) diagnostics::input_error(src, "/name", "expected a string, got " + diagnostics::show(*it));
    e.name = it->get<std::string>();
  }
  if (auto it = doc.find("note"); it != doc.end()) {
    if (!it->is_string()) diagnostics::input_error(src, "/note", "expected a string, got " + diagnostics::show(*it));
    e.note = it->get<std::string>();
  }
  if (auto it = doc.find("out"); it != doc.end()) {
    if (!it->is_string() || it->get<std::string>().empty())
      diagnostics::input_error(src, "/out", "expected a folder name, got " + diagnostics::show(*it));
    e.out = it->get<std::string>();
    diagnostics::check_file_name(src, "/out", e.out);
  }
  e.problem = json::object();
  for (const auto& k : kProblemKeys)
    if (auto it = doc.find(k); it != doc.end()) e.problem[k] = *it;

  // seeds: N (1..N) or a list of distinct integers >= 0
  {
    auto it = doc.find("seeds");
    if (it == doc.end()) {
      e.seeds = {1};
    } else if (it->is_array()) {
      if (it->empty()) diagnostics::input_error(src, "/seeds", "expected a non-empty list of seeds");
      std::set<std::uint64_t> seen;
      for (size_t i = 0; i < it->size(); ++i) {
        std::int64_t s = 0;
        if (!integer_at_least((*it)[i], s, 0))
          diagnostics::input_error(src, "/seeds/" + std::to_string(i), "expected an integer >= 0, got " + diagnostics::show((*it)[i]));
        if (!seen.insert(static_cast<std::uint64_t>(s)).second)
          diagnostics::input_error(src, "/seeds/" + std::to_string(i), "seed " + std::to_string(s) + " is listed twice");
        e.seeds.push_back(static_cast<std::uint64_t>(s));
      }
    } else {
      std::int64_t n = 0;
      if (!integer_at_least(*it, n, 1) || n > 100000)
        diagnostics::input_error(src, "/seeds", "expected a number of seeds >= 1 or a list of seeds, got " + diagnostics::show(*it));
      for (std::int64_t s = 1; s <= n; ++s) e.seeds.push_back(static_cast<std::uint64_t>(s));
    }
  }
  // iterations: K or [K1, K2, ...]
  {
    auto it = doc.find("iterations");
    if (it == doc.end()) diagnostics::input_error(src, "/iterations", "missing; expected the budgets K, e.g. [1000, 3000, 10000]");
    std::vector<std::pair<json, std::string>> items;
    if (it->is_array()) {
      if (it->empty()) diagnostics::input_error(src, "/iterations", "expected a non-empty list of budgets K");
      for (size_t i = 0; i < it->size(); ++i) items.emplace_back((*it)[i], "/iterations/" + std::to_string(i));
    } else {
      items.emplace_back(*it, "/iterations");
    }
    for (const auto& [v, ptr] : items) {
      std::int64_t k = 0;
      if (!integer_at_least(v, k, 1)) diagnostics::input_error(src, ptr, "expected an integer >= 1, got " + diagnostics::show(v));
      if (std::find(e.budgets.begin(), e.budgets.end(), k) != e.budgets.end())
        diagnostics::input_error(src, ptr, "K = " + std::to_string(k) + " is listed twice");
      e.budgets.push_back(static_cast<long>(k));
    }
    std::sort(e.budgets.begin(), e.budgets.end());
  }
  if (auto it = doc.find("report"); it != doc.end()) {
    if (!it->is_object()) diagnostics::input_error(src, "/report", "expected an object {\"points\": N}, got " + diagnostics::show(*it));
    for (const auto& [key, v] : it->items()) {
      if (key != "points")
        diagnostics::input_error(src, diagnostics::child("/report", diagnostics::excerpt(key)), "unknown parameter of report; its parameters are \"points\"");
      std::int64_t p = 0;
      if (!integer_at_least(v, p, 1)) diagnostics::input_error(src, "/report/points", "expected an integer >= 1, got " + diagnostics::show(v));
      e.report_points = static_cast<long>(p);
    }
  }
  // methods
  auto mit = doc.find("methods");
  if (mit == doc.end())
    diagnostics::input_error(src, "/methods", "missing; expected a list of {\"label\": ..., \"tracker\": {...}, \"schedule\": {...}}");
  if (!mit->is_array() || mit->empty())
    diagnostics::input_error(src, "/methods", "expected a non-empty list of {\"label\", \"tracker\", \"schedule\"}, got " + diagnostics::show(*mit));
  std::set<std::string> labels;
  std::map<std::string, size_t> file_names;  // safe_name(label) -> index of the method
  for (size_t i = 0; i < mit->size(); ++i) {
    const json& m = (*mit)[i];
    const std::string ptr = "/methods/" + std::to_string(i);
    if (!m.is_object()) diagnostics::input_error(src, ptr, "expected an object {\"label\", \"tracker\", \"schedule\"}, got " + diagnostics::show(m));
    for (const auto& [key, v] : m.items()) {
      if (key == "label" || key == "tracker" || key == "schedule") continue;
      const std::string guess = diagnostics::did_you_mean(key, {"label", "tracker", "schedule"});
      diagnostics::input_error(src, diagnostics::child(ptr, diagnostics::excerpt(key)),
           guess.empty() ? "unknown key; a method has \"label\", \"tracker\" and \"schedule\""
                         : "unknown key; did you mean \"" + guess + "\"?");
    }
    CompareMethod cm;
    auto l = m.find("label");
    if (l == m.end()) diagnostics::input_error(src, ptr + "/label", "missing; expected the method's name in plots and tables");
    if (!l->is_string() || l->get<std::string>().empty())
      diagnostics::input_error(src, ptr + "/label", "expected a non-empty string, got " + diagnostics::show(*l));
    cm.label = l->get<std::string>();
    if (!labels.insert(cm.label).second)
      diagnostics::input_error(src, ptr + "/label", "label \"" + diagnostics::excerpt(cm.label) + "\" is used twice");
    // A label names files (traces/<label>-K..-seed..csv) and is written into CSV cells and
    // gnuplot scripts: no path separators, quotes or control characters, and two labels must not
    // name the same file ("a b" and "a_b" would write, concurrently, the same traces).
    for (const char c : cm.label) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7F || c == '/' || c == '\\' || c == '"' || c == '\'' || c == '`')
        diagnostics::input_error(src, ptr + "/label",
                           "label \"" + diagnostics::excerpt(cm.label) +
                               "\": a label cannot contain '/', '\\', quotes or control characters (it names trace "
                               "files and is written into CSV files and plot scripts)");
    }
    const std::string file = compare_detail::safe_name(cm.label);
    if (auto [it, fresh] = file_names.emplace(file, i); !fresh)
      diagnostics::input_error(src, ptr + "/label",
                         "label \"" + diagnostics::excerpt(cm.label) + "\" names the same trace files (traces/" +
                             diagnostics::excerpt(file) + "-K...csv) as /methods/" + std::to_string(it->second) +
                             "/label \"" + diagnostics::excerpt((*mit)[it->second]["label"].get<std::string>()) +
                             "\"; file names keep a label's letters, digits, '-' and '.', anything else becomes '_'");
    auto t = m.find("tracker");
    if (t == m.end()) diagnostics::input_error(src, ptr + "/tracker", "missing block; add {\"plugin\": NAME}");
    auto s = m.find("schedule");
    if (s == m.end()) diagnostics::input_error(src, ptr + "/schedule", "missing block; add {\"plugin\": NAME}");
    cm.tracker = *t;
    cm.schedule = *s;
    const std::pair<Kind, const json*> blocks[] = {{Kind::Tracker, t.operator->()}, {Kind::Schedule, s.operator->()}};
    for (const auto& [kind, block] : blocks) {
      const std::string bptr = ptr + "/" + to_string(kind);
      const RegisteredComponent* c = &find_plugin(registry, kind, *block, src, bptr);
      for (long K : e.budgets) {
        const json resolved = with_k_evaluated(*block, c, K, src, bptr);
        validate_params(c->info.params, resolved, src, bptr, c->info.name);
      }
    }
    e.methods.push_back(std::move(cm));
  }
  // The GLMO block, checked now: the runs compose it only after the problem has read its data.
  if (auto g = e.problem.find("glmo"); g != e.problem.end()) {
    const RegisteredComponent& c = find_plugin(registry, Kind::Glmo, *g, src, "/glmo");
    validate_params(c.info.params, *g, src, "/glmo", c.info.name);
  }
  return e;
}

Experiment load_experiment(const Registry& registry, const fs::path& file) {
  return parse_experiment(registry, read_json_file(file), file.string(), file.parent_path());
}

namespace {

json raw_document(const Experiment& e, size_t method, long K, std::uint64_t seed) {
  json doc = e.problem;
  const CompareMethod& m = e.methods.at(method);
  // K expressions are left as written here; resolved_document() evaluates them.
  doc["tracker"] = m.tracker;
  doc["schedule"] = m.schedule;
  doc["seed"] = seed;
  doc["iterations"] = K;
  const long every = std::max<long>(1, (K + e.report_points - 1) / e.report_points);
  doc["report"] = json{{"every", every}};
  doc["name"] = e.name + " / " + m.label;
  return doc;
}

}  // namespace

json run_document(const Registry& registry, const Experiment& e, size_t method, long K, std::uint64_t seed) {
  json doc = raw_document(e, method, K, seed);
  const std::string src = e.source.empty() ? std::string("<input>") : e.source;
  const std::string ptr = "/methods/" + std::to_string(method);
  for (Kind kind : {Kind::Tracker, Kind::Schedule}) {
    const std::string key = to_string(kind);
    const RegisteredComponent* c = &find_plugin(registry, kind, doc[key], src, ptr + "/" + key);
    doc[key] = with_k_evaluated(doc[key], c, K, src, ptr + "/" + key);
  }
  return doc;
}

namespace {

/// compose() names "/tracker" and "/schedule"; in an experiment they live under /methods/i.
[[noreturn]] void rethrow_in_method(const Experiment& e, size_t method) {
  const std::string src = e.source.empty() ? std::string("<input>") : e.source;
  try {
    throw;
  } catch (const InputError& err) {
    std::string msg = err.what();
    for (const char* key : {"/tracker", "/schedule"}) {
      const std::string head = src + ": " + key;
      if (msg.rfind(head, 0) == 0 && (msg.size() == head.size() || msg[head.size()] == '/' || msg[head.size()] == ':')) {
        msg = src + ": /methods/" + std::to_string(method) + key + msg.substr(head.size());
        throw InputError(msg);
      }
    }
    throw;
  }
}

Composition compose_run(const Registry& registry, const Experiment& e, size_t method, long K, std::uint64_t seed) {
  const json doc = run_document(registry, e, method, K, seed);
  try {
    Overrides overrides;
    overrides.memory = e.memory;
    overrides.arrays = e.arrays;
    return compose(registry, doc, e.source, e.base_dir, overrides);
  } catch (const InputError&) {
    rethrow_in_method(e, method);
  }
}

}  // namespace

Composition compose_fresh(const Registry& registry, const Experiment& e, size_t method, long K, std::uint64_t seed) {
  return compose_run(registry, e, method, K, seed);
}

Problem compose_experiment_problem(const Registry& registry, const Experiment& e) {
  Problem problem = compose_problem(registry, e.problem, e.source, e.base_dir, e.memory ? &*e.memory : nullptr,
                                    nullptr, e.arrays);
  problem.name = e.name;
  return problem;
}

Method compose_experiment_method(const Registry& registry, const Experiment& e, Problem& problem, size_t method,
                                 long K) {
  const std::string src = e.source.empty() ? std::string("<input>") : e.source;
  const std::string ptr = "/methods/" + std::to_string(method);
  const CompareMethod& m = e.methods.at(method);
  json blocks[2];
  const std::pair<Kind, const json*> roles[] = {{Kind::Tracker, &m.tracker}, {Kind::Schedule, &m.schedule}};
  for (size_t i = 0; i < 2; ++i) {
    const auto& [kind, block] = roles[i];
    const std::string at = ptr + "/" + to_string(kind);
    blocks[i] = with_k_evaluated(*block, &find_plugin(registry, kind, *block, src, at), K, src, at);
  }
  auto g = e.problem.find("glmo");
  return compose_method(registry, problem, MethodBlock{&blocks[0], ptr + "/tracker"},
                        MethodBlock{&blocks[1], ptr + "/schedule"},
                        MethodBlock{g == e.problem.end() ? nullptr : &*g, "/glmo"});
}

SolverOptions run_options(const Experiment& e, long K, std::uint64_t seed) {
  SolverOptions o;
  o.iterations = K;
  o.seed = seed;
  o.report_every = std::max<long>(1, (K + e.report_points - 1) / e.report_points);
  return o;
}

void compare_check(const Registry& registry, const Experiment& e) {
  Problem problem = compose_experiment_problem(registry, e);
  for (size_t m = 0; m < e.methods.size(); ++m) {
    if (m > 0) problem.renew_domain();
    const Method method = compose_experiment_method(registry, e, problem, m, e.budgets.front());
  }
}

}  // namespace scfw
