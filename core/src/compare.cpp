// scfw core: `scfw compare` — methods x seeds x budgets on one problem (see compare.hpp).
#include "scfw/core/compare.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "scfw/core/problem.hpp"
#include "scfw/core/report.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace scfw {

namespace {

[[noreturn]] void fail(const std::string& source, const std::string& pointer, const std::string& what) {
  throw InputError((source.empty() ? std::string("<input>") : source) + ": " + pointer + ": " + what);
}

std::string show(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

const std::vector<std::string> kProblemKeys = {"oracle", "outer", "domain", "glmo"};
const std::vector<std::string> kExperimentKeys = {"name",    "note",  "oracle",     "outer",  "domain", "glmo",
                                                  "methods", "seeds", "iterations", "report", "out"};

std::string quoted(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", \"" : "\"") + names[i] + "\"";
  return s;
}

std::string closest_of(const std::string& key, const std::vector<std::string>& names) {
  std::string best;
  size_t bd = std::numeric_limits<size_t>::max();
  for (const auto& n : names) {
    const size_t d = edit_distance(key, n);
    if (d < bd) bd = d, best = n;
  }
  return bd <= 2 && bd < key.size() ? best : std::string();
}

bool positive_integer(const json& v, std::int64_t& out, std::int64_t min) {
  if (v.is_number_integer() || v.is_number_unsigned()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > 9000000000000000000ULL) return false;
    out = v.get<std::int64_t>();
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9e18) return false;
    out = static_cast<std::int64_t>(d);
  } else {
    return false;
  }
  return out >= min;
}

// ---------------------------------------------------------------------------------------------
// K expressions: expr := factor (('*' | '/') factor)*;  factor := number | 'K' ['^' exponent];
// exponent := signed-number | '(' signed-number ['/' number] ')'.

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
    if (!end || *end != '\0') bad("'" + tok + "' is not a number");
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
      if (op != '*' && op != '/') bad("unexpected '" + std::string(1, op) + "' at character " + std::to_string(i + 1));
      ++i;
      const double f = factor();
      v = op == '*' ? v * f : v / f;
    }
    return v;
  }
};

/// The block with every string given for a number parameter evaluated at K.
json resolve_block(const json& block, const RegisteredComponent* component, long K, const std::string& source,
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
      fail(source, pointer + "/" + spec.name,
           "expected a number or an expression in K such as \"K^-0.75\", got " + show(*it) + " (" + e.what() + ")");
    }
    if (!std::isfinite(v))
      fail(source, pointer + "/" + spec.name, show(*it) + " is not finite at K = " + std::to_string(K));
    *it = v;
  }
  return out;
}

const RegisteredComponent* resolve_plugin(const Registry& registry, Kind kind, const json& block,
                                          const std::string& source, const std::string& pointer) {
  const std::string k = to_string(kind);
  if (!block.is_object()) fail(source, pointer, "expected an object {\"plugin\": NAME, ...}");
  auto p = block.find("plugin");
  if (p == block.end()) fail(source, pointer + "/plugin", "missing; expected the name of a " + k + " plugin");
  if (!p->is_string()) fail(source, pointer + "/plugin", "expected the name of a " + k + " plugin, got " + show(*p));
  const std::string name = p->get<std::string>();
  const RegisteredComponent* c = registry.find(kind, name);
  if (!c) {
    std::string what = "unknown " + k + " plugin \"" + name + "\"";
    const auto closest = registry.closest(kind, name);
    if (closest.empty()) what += "; no " + k + " plugins are loaded (check --plugin-path or SCFW_PLUGIN_PATH)";
    else what += "; closest: " + quoted(closest);
    fail(source, pointer + "/plugin", what);
  }
  return c;
}

std::string safe_name(const std::string& label) {
  std::string s;
  for (char c : label) s += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return s.empty() ? std::string("method") : s;
}

std::string num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string short_num(double v, const char* fmt = "%.3g") {
  if (std::isnan(v)) return "n/a";
  char buf[40];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// A trace CSV: iteration and gap columns.
std::vector<std::pair<long, double>> read_trace_gaps(const fs::path& file) {
  std::vector<std::pair<long, double>> rows;
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string it, obj, gap;
    if (!std::getline(ss, it, ',') || !std::getline(ss, obj, ',') || !std::getline(ss, gap, ',')) continue;
    rows.emplace_back(std::atol(it.c_str()), std::strtod(gap.c_str(), nullptr));
  }
  return rows;
}

std::string gp_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A title or key label for gnuplot's enhanced-text terminals: quoted as gp_quote does, and each
// character that enhanced text treats as markup (& ^ _ @ ~ { }) preceded by an escaped backslash,
// so "S&P 500" or "x_1" print as written (a bare & swallowed the next letter).
std::string gp_text(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    else if (std::string_view("&^_@~{}").find(c) != std::string_view::npos) out += "\\\\";
    out += c;
  }
  return out + "\"";
}

const char* kColours[] = {"#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd",
                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

bool have_gnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

/// Writes `script` beside the data and runs gnuplot twice (SVG, PNG). Returns "" or a warning.
std::string render(const fs::path& out, const std::string& stem, const std::string& body) {
  std::string warning;
  for (const char* fmt : {"svg", "png"}) {
    const fs::path script = out / "plot" / (stem + "." + fmt + ".gp");
    std::ofstream f(script);
    if (std::string(fmt) == "svg") f << "set terminal svg size 720,480 dynamic font 'Helvetica,12'\n";
    else f << "set terminal pngcairo size 900,600 font 'Helvetica,11'\n";
    f << "set output " << gp_quote((out / (stem + "." + fmt)).string()) << "\n" << body;
    f.close();
    const std::string cmd = "gnuplot " + gp_quote(script.string()) + " >/dev/null 2>" +
                            gp_quote((out / "plot" / (stem + "." + fmt + ".log")).string());
    if (std::system(cmd.c_str()) != 0)
      warning = "gnuplot failed on " + script.string() + " (see the .log beside it)";
  }
  return warning;
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
      fail(src, "/" + key, "unknown key; an experiment gives the tracker and schedule of each method in \"methods\"");
    const std::string guess = closest_of(key, kExperimentKeys);
    fail(src, "/" + key,
         guess.empty() ? "unknown key; expected one of " + quoted(kExperimentKeys)
                       : "unknown key; did you mean \"" + guess + "\"?");
  }
  Experiment e;
  e.source = source;
  e.base_dir = base_dir;
  e.name = fs::path(source).stem().string();
  if (auto it = doc.find("name"); it != doc.end()) {
    if (!it->is_string()) fail(src, "/name", "expected a string, got " + show(*it));
    e.name = it->get<std::string>();
  }
  if (auto it = doc.find("note"); it != doc.end()) {
    if (!it->is_string()) fail(src, "/note", "expected a string, got " + show(*it));
    e.note = it->get<std::string>();
  }
  if (auto it = doc.find("out"); it != doc.end()) {
    if (!it->is_string() || it->get<std::string>().empty())
      fail(src, "/out", "expected a folder name, got " + show(*it));
    e.out = it->get<std::string>();
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
      if (it->empty()) fail(src, "/seeds", "expected a non-empty list of seeds");
      std::set<std::uint64_t> seen;
      for (size_t i = 0; i < it->size(); ++i) {
        std::int64_t s = 0;
        if (!positive_integer((*it)[i], s, 0))
          fail(src, "/seeds/" + std::to_string(i), "expected an integer >= 0, got " + show((*it)[i]));
        if (!seen.insert(static_cast<std::uint64_t>(s)).second)
          fail(src, "/seeds/" + std::to_string(i), "seed " + std::to_string(s) + " is listed twice");
        e.seeds.push_back(static_cast<std::uint64_t>(s));
      }
    } else {
      std::int64_t n = 0;
      if (!positive_integer(*it, n, 1) || n > 100000)
        fail(src, "/seeds", "expected a number of seeds >= 1 or a list of seeds, got " + show(*it));
      for (std::int64_t s = 1; s <= n; ++s) e.seeds.push_back(static_cast<std::uint64_t>(s));
    }
  }
  // iterations: K or [K1, K2, ...]
  {
    auto it = doc.find("iterations");
    if (it == doc.end()) fail(src, "/iterations", "missing; expected the budgets K, e.g. [1000, 3000, 10000]");
    std::vector<std::pair<json, std::string>> items;
    if (it->is_array()) {
      if (it->empty()) fail(src, "/iterations", "expected a non-empty list of budgets K");
      for (size_t i = 0; i < it->size(); ++i) items.emplace_back((*it)[i], "/iterations/" + std::to_string(i));
    } else {
      items.emplace_back(*it, "/iterations");
    }
    for (const auto& [v, ptr] : items) {
      std::int64_t k = 0;
      if (!positive_integer(v, k, 1)) fail(src, ptr, "expected an integer >= 1, got " + show(v));
      if (std::find(e.budgets.begin(), e.budgets.end(), k) != e.budgets.end())
        fail(src, ptr, "K = " + std::to_string(k) + " is listed twice");
      e.budgets.push_back(static_cast<long>(k));
    }
    std::sort(e.budgets.begin(), e.budgets.end());
  }
  if (auto it = doc.find("report"); it != doc.end()) {
    if (!it->is_object()) fail(src, "/report", "expected an object {\"points\": N}, got " + show(*it));
    for (const auto& [key, v] : it->items()) {
      if (key != "points") fail(src, "/report/" + key, "unknown parameter of report; its parameters are \"points\"");
      std::int64_t p = 0;
      if (!positive_integer(v, p, 1)) fail(src, "/report/points", "expected an integer >= 1, got " + show(v));
      e.report_points = static_cast<long>(p);
    }
  }
  // methods
  auto mit = doc.find("methods");
  if (mit == doc.end())
    fail(src, "/methods", "missing; expected a list of {\"label\": ..., \"tracker\": {...}, \"schedule\": {...}}");
  if (!mit->is_array() || mit->empty())
    fail(src, "/methods", "expected a non-empty list of {\"label\", \"tracker\", \"schedule\"}, got " + show(*mit));
  std::set<std::string> labels;
  for (size_t i = 0; i < mit->size(); ++i) {
    const json& m = (*mit)[i];
    const std::string ptr = "/methods/" + std::to_string(i);
    if (!m.is_object()) fail(src, ptr, "expected an object {\"label\", \"tracker\", \"schedule\"}, got " + show(m));
    for (const auto& [key, v] : m.items()) {
      if (key == "label" || key == "tracker" || key == "schedule") continue;
      const std::string guess = closest_of(key, {"label", "tracker", "schedule"});
      fail(src, ptr + "/" + key,
           guess.empty() ? "unknown key; a method has \"label\", \"tracker\" and \"schedule\""
                         : "unknown key; did you mean \"" + guess + "\"?");
    }
    CompareMethod cm;
    auto l = m.find("label");
    if (l == m.end()) fail(src, ptr + "/label", "missing; expected the method's name in plots and tables");
    if (!l->is_string() || l->get<std::string>().empty())
      fail(src, ptr + "/label", "expected a non-empty string, got " + show(*l));
    cm.label = l->get<std::string>();
    if (!labels.insert(cm.label).second) fail(src, ptr + "/label", "label \"" + cm.label + "\" is used twice");
    auto t = m.find("tracker");
    if (t == m.end()) fail(src, ptr + "/tracker", "missing block; add {\"plugin\": NAME}");
    auto s = m.find("schedule");
    if (s == m.end()) fail(src, ptr + "/schedule", "missing block; add {\"plugin\": NAME}");
    cm.tracker = *t;
    cm.schedule = *s;
    const std::pair<Kind, const json*> blocks[] = {{Kind::Tracker, t.operator->()}, {Kind::Schedule, s.operator->()}};
    for (const auto& [kind, block] : blocks) {
      const std::string bptr = ptr + "/" + to_string(kind);
      const RegisteredComponent* c = resolve_plugin(registry, kind, *block, src, bptr);
      for (long K : e.budgets) {
        const json resolved = resolve_block(*block, c, K, src, bptr);
        validate_params(c->info.params, resolved, src, bptr, c->info.name);
      }
    }
    e.methods.push_back(std::move(cm));
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
    const RegisteredComponent* c = resolve_plugin(registry, kind, doc[key], src, ptr + "/" + key);
    doc[key] = resolve_block(doc[key], c, K, src, ptr + "/" + key);
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

Problem compose_run(const Registry& registry, const Experiment& e, size_t method, long K, std::uint64_t seed) {
  const json doc = run_document(registry, e, method, K, seed);
  try {
    return compose(registry, doc, e.source, e.base_dir);
  } catch (const InputError&) {
    rethrow_in_method(e, method);
  }
}

}  // namespace

void compare_check(const Registry& registry, const Experiment& e) {
  for (size_t m = 0; m < e.methods.size(); ++m) {
    Problem p = compose_run(registry, e, m, e.budgets.front(), e.seeds.front());
    (void)p;
  }
}

double loglog_slope(const std::vector<double>& x, const std::vector<double>& y) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  size_t n = 0;
  std::set<double> distinct;
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    if (!(x[i] > 0) || !(y[i] > 0) || !std::isfinite(x[i]) || !std::isfinite(y[i])) continue;
    const double lx = std::log10(x[i]), ly = std::log10(y[i]);
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    ++n;
    distinct.insert(x[i]);
  }
  if (distinct.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  const double dn = static_cast<double>(n);
  return (dn * sxy - sx * sy) / (dn * sxx - sx * sx);
}

double loglog_intercept(const std::vector<double>& x, const std::vector<double>& y) {
  const double b = loglog_slope(x, y);
  if (std::isnan(b)) return b;
  double sx = 0, sy = 0;
  size_t n = 0;
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    if (!(x[i] > 0) || !(y[i] > 0) || !std::isfinite(x[i]) || !std::isfinite(y[i])) continue;
    sx += std::log10(x[i]), sy += std::log10(y[i]);
    ++n;
  }
  return (sy - b * sx) / static_cast<double>(n);
}

void mean_std(const std::vector<double>& v, double& mean, double& stdev) {
  mean = 0, stdev = 0;
  if (v.empty()) return;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  if (v.size() < 2) return;
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  stdev = std::sqrt(ss / static_cast<double>(v.size() - 1));
}

CompareResult run_compare(const Registry& registry, const Experiment& e, const CompareOptions& options) {
  const fs::path out_arg = options.out.empty() ? fs::path(e.out.empty() ? "compare-" + e.name : e.out) : options.out;
  std::error_code ec;
  fs::create_directories(out_arg / "traces", ec);
  if (ec) throw InputError(out_arg.string() + ": cannot create the output folder (" + ec.message() + ")");
  // Absolute, so that the gnuplot scripts work from any folder.
  const fs::path out = fs::absolute(out_arg, ec).lexically_normal();
  fs::create_directories(out / "plot", ec);

  CompareResult result;
  for (size_t m = 0; m < e.methods.size(); ++m)
    for (long K : e.budgets)
      for (std::uint64_t s : e.seeds) {
        CompareRun r;
        r.method = m, r.K = K, r.seed = s;
        r.trace = "traces/" + safe_name(e.methods[m].label) + "-K" + std::to_string(K) + "-seed" + std::to_string(s) + ".csv";
        result.runs.push_back(std::move(r));
      }
  // Longest runs first so that the workers finish together; results stay in (method, K, seed) order.
  std::vector<size_t> order(result.runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return result.runs[a].K > result.runs[b].K; });

  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(1, order.size())));
  std::atomic<size_t> next{0};
  std::atomic<bool> abort{false};
  std::mutex mu;
  size_t done = 0;
  std::exception_ptr input_error;

  auto worker = [&] {
    for (;;) {
      if (abort.load()) return;
      if (options.stop_requested && options.stop_requested()) {
        std::lock_guard<std::mutex> lock(mu);
        result.interrupted = true;
        return;
      }
      const size_t slot = next.fetch_add(1);
      if (slot >= order.size()) return;
      CompareRun& r = result.runs[order[slot]];
      try {
        Problem problem = compose_run(registry, e, r.method, r.K, r.seed);
        SolverOptions so;
        so.iterations = problem.iterations;
        so.seed = problem.seed;
        so.report_every = problem.report.every;
        Solver solver(problem, so);
        auto file = open_trace_file(out / r.trace);
        solver.add_callback(trace_csv(*file));
        if (options.stop_requested) {
          auto stop = options.stop_requested;
          solver.add_callback([stop](const IterationState&) { return !stop(); });
        }
        const Summary s = solver.run();
        r.ok = s.status == Status::IterationLimit && s.has_gap;
        if (!r.ok) r.error = s.message.empty() ? std::string(to_string(s.status)) : s.message;
        r.final_gap = s.final_gap, r.best_gap = s.best_gap, r.final_objective = s.final_objective;
        r.seconds = s.seconds, r.iterations = s.iterations, r.times = s.times;
      } catch (const InputError& err) {
        std::lock_guard<std::mutex> lock(mu);
        if (!input_error) input_error = std::current_exception();
        abort = true;
        return;
      } catch (const std::exception& err) {
        r.ok = false;
        r.error = err.what();
      }
      std::lock_guard<std::mutex> lock(mu);
      ++done;
      if (!r.ok) ++result.failed;
      if (options.on_progress) options.on_progress(done, order.size());
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (input_error) std::rethrow_exception(input_error);
  if (done < order.size()) result.interrupted = true;

  // Rows and slopes.
  for (size_t m = 0; m < e.methods.size(); ++m) {
    std::vector<double> ks, finals, bests;
    for (long K : e.budgets) {
      CompareRow row;
      row.label = e.methods[m].label;
      row.K = K;
      std::vector<double> f, b, o;
      PhaseTimes t;
      for (const auto& r : result.runs) {
        if (r.method != m || r.K != K || !r.ok) continue;
        f.push_back(r.final_gap), b.push_back(r.best_gap), o.push_back(r.final_objective);
        const double it = static_cast<double>(std::max<long>(1, r.iterations));
        t.oracle += r.times.oracle / it, t.tracker += r.times.tracker / it, t.glmo += r.times.glmo / it;
        t.update += r.times.update / it, t.gap += r.times.gap / it;
      }
      row.runs = f.size();
      if (row.runs == 0) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        row.final_gap_mean = row.final_gap_std = row.final_gap_min = row.final_gap_max = nan;
        row.best_gap_mean = row.best_gap_std = row.objective_mean = nan;
      } else {
        double dummy = 0;
        mean_std(f, row.final_gap_mean, row.final_gap_std);
        mean_std(b, row.best_gap_mean, row.best_gap_std);
        mean_std(o, row.objective_mean, dummy);
        row.final_gap_min = *std::min_element(f.begin(), f.end());
        row.final_gap_max = *std::max_element(f.begin(), f.end());
        const double n = static_cast<double>(row.runs);
        t.oracle /= n, t.tracker /= n, t.glmo /= n, t.update /= n, t.gap /= n;
      }
      row.per_iteration = t;
      ks.push_back(static_cast<double>(K));
      finals.push_back(row.final_gap_mean);
      bests.push_back(row.best_gap_mean);
      result.rows.push_back(row);
    }
    CompareSlope sl;
    sl.label = e.methods[m].label;
    sl.final_slope = loglog_slope(ks, finals);
    sl.best_slope = loglog_slope(ks, bests);
    sl.final_intercept = loglog_intercept(ks, finals);
    sl.best_intercept = loglog_intercept(ks, bests);
    for (auto& row : result.rows)
      if (row.label == sl.label) row.final_slope = sl.final_slope, row.best_slope = sl.best_slope;
    result.slopes.push_back(sl);
  }

  // summary.csv, slopes.csv, runs.csv
  {
    std::ofstream f(out / "summary.csv");
    f << "method,K,runs,final_gap_mean,final_gap_std,final_gap_min,final_gap_max,best_gap_mean,best_gap_std,"
         "objective_mean,sec_per_iter_oracle,sec_per_iter_tracker,sec_per_iter_glmo,sec_per_iter_update,"
         "sec_per_iter_gap,sec_per_iter_total,final_gap_slope,best_gap_slope\n";
    for (const auto& r : result.rows) {
      f << '"' << r.label << "\"," << r.K << ',' << r.runs << ',' << num(r.final_gap_mean) << ','
        << num(r.final_gap_std) << ',' << num(r.final_gap_min) << ',' << num(r.final_gap_max) << ','
        << num(r.best_gap_mean) << ',' << num(r.best_gap_std) << ',' << num(r.objective_mean) << ','
        << num(r.per_iteration.oracle) << ',' << num(r.per_iteration.tracker) << ',' << num(r.per_iteration.glmo)
        << ',' << num(r.per_iteration.update) << ',' << num(r.per_iteration.gap) << ','
        << num(r.per_iteration.total()) << ',' << num(r.final_slope) << ',' << num(r.best_slope) << '\n';
    }
    result.files.push_back(out / "summary.csv");
    std::ofstream s(out / "slopes.csv");
    s << "method,final_gap_slope,best_gap_slope,final_gap_intercept_log10,best_gap_intercept_log10\n";
    for (const auto& sl : result.slopes)
      s << '"' << sl.label << "\"," << num(sl.final_slope) << ',' << num(sl.best_slope) << ','
        << num(sl.final_intercept) << ',' << num(sl.best_intercept) << '\n';
    result.files.push_back(out / "slopes.csv");
    std::ofstream rr(out / "runs.csv");
    rr << "method,K,seed,ok,final_gap,best_gap,final_objective,seconds,trace,error\n";
    for (const auto& r : result.runs) {
      std::string err = r.error;
      std::replace(err.begin(), err.end(), '"', '\'');
      std::replace(err.begin(), err.end(), '\n', ' ');
      rr << '"' << e.methods[r.method].label << "\"," << r.K << ',' << r.seed << ',' << (r.ok ? 1 : 0) << ','
         << num(r.final_gap) << ',' << num(r.best_gap) << ',' << num(r.final_objective) << ',' << num(r.seconds)
         << ',' << r.trace << ",\"" << err << "\"\n";
    }
    result.files.push_back(out / "runs.csv");
  }

  // Plot data: per K, per method: iteration, mean, min, max of the gap over the seeds.
  for (long K : e.budgets) {
    std::ofstream dat(out / "plot" / ("gap_K" + std::to_string(K) + ".dat"));
    for (size_t m = 0; m < e.methods.size(); ++m) {
      std::map<long, std::vector<double>> at;
      for (const auto& r : result.runs) {
        if (r.method != m || r.K != K || !r.ok) continue;
        for (const auto& [it, g] : read_trace_gaps(out / r.trace)) at[it].push_back(g);
      }
      dat << "# " << e.methods[m].label << "\n";
      bool any = false;
      for (const auto& [it, gs] : at) {
        double mean = 0, sd = 0;
        mean_std(gs, mean, sd);
        const double lo = *std::min_element(gs.begin(), gs.end()), hi = *std::max_element(gs.begin(), gs.end());
        if (!(mean > 0)) continue;
        dat << it << ' ' << num(mean) << ' ' << num(std::max(lo, 1e-300)) << ' ' << num(hi) << '\n';
        any = true;
      }
      if (!any) dat << "1 nan nan nan\n";
      dat << "\n\n";
    }
  }
  {
    std::ofstream dat(out / "plot" / "rate.dat");
    for (size_t m = 0; m < e.methods.size(); ++m) {
      dat << "# " << e.methods[m].label << "\n";
      for (const auto& r : result.rows)
        if (r.label == e.methods[m].label)
          dat << r.K << ' ' << num(r.final_gap_mean) << ' ' << num(r.best_gap_mean) << '\n';
      dat << "\n\n";
    }
  }

  if (!options.plots) {
    result.plot_warning = "plots disabled";
    return result;
  }
  if (!have_gnuplot()) {
    result.plot_warning = "gnuplot not found on PATH (Debian package gnuplot-nox); data and scripts are in " +
                          (out / "plot").string();
    return result;
  }
  const std::string title = e.name;
  for (long K : e.budgets) {
    std::ostringstream b;
    b << "set logscale xy\nset format y '10^{%L}'\nset grid\nset key top right\n"
      << "set xlabel 'iteration k'\nset ylabel 'generalized FW gap'\n"
      // Two title lines: long experiment names no longer run off the plot's right edge.
      << "set title font ',10'\nset title " << gp_text(title) << " . \"\\n\" . "
      << gp_text("K = " + std::to_string(K) + " (mean over " + std::to_string(e.seeds.size()) + " seeds, band: min-max)") << "\n"
      << "set style fill transparent solid 0.18 noborder\n";
    const std::string dat = gp_quote((out / "plot" / ("gap_K" + std::to_string(K) + ".dat")).string());
    b << "plot ";
    for (size_t m = 0; m < e.methods.size(); ++m) {
      const char* c = kColours[m % 10];
      b << (m ? ", \\\n     " : "") << dat << " index " << m << " using 1:3:4 with filledcurves lc rgb '" << c
        << "' notitle, \\\n     " << dat << " index " << m << " using 1:2 with lines lw 2 lc rgb '" << c
        << "' title " << gp_text(e.methods[m].label);
    }
    b << "\n";
    const std::string stem = "gap_K" + std::to_string(K);
    const std::string w = render(out, stem, b.str());
    if (!w.empty()) result.plot_warning = w;
    result.files.push_back(out / (stem + ".svg"));
    result.files.push_back(out / (stem + ".png"));
  }
  {
    // Reference lines anchored at the geometric mean of the methods' final gaps at the smallest K.
    double lsum = 0;
    int cnt = 0;
    for (const auto& r : result.rows)
      if (r.K == e.budgets.front() && r.final_gap_mean > 0 && std::isfinite(r.final_gap_mean))
        lsum += std::log10(r.final_gap_mean), ++cnt;
    const double anchor = cnt ? std::pow(10.0, lsum / cnt) : 1.0;
    const double k0 = static_cast<double>(e.budgets.front());
    std::ostringstream b;
    b << "set logscale xy\nset format y '10^{%L}'\nset grid\nset key below\n"
      << "set xlabel 'iteration budget K'\nset ylabel 'gap at K (solid: final, open: best)'\n"
      << "set title font ',10'\nset title " << gp_text(title) << " . \"\\n\" . " << gp_text("gap against K (mean over seeds)") << "\n"
      << "set xrange [" << k0 / 1.3 << ":" << e.budgets.back() * 1.3 << "]\n";
    const std::string dat = gp_quote((out / "plot" / "rate.dat").string());
    b << "plot ";
    for (size_t m = 0; m < e.methods.size(); ++m) {
      const char* c = kColours[m % 10];
      const auto& sl = result.slopes[m];
      b << (m ? ", \\\n     " : "") << dat << " index " << m << " using 1:2 with points pt 7 ps 1.2 lc rgb '" << c
        << "' title " << gp_text(e.methods[m].label + " (final slope " + short_num(sl.final_slope, "%.2f") + ", best " + short_num(sl.best_slope, "%.2f") + ")")
        << ", \\\n     " << dat << " index " << m << " using 1:3 with points pt 6 ps 1.2 lc rgb '" << c << "' notitle";
      if (std::isfinite(sl.final_slope))
        b << ", \\\n     10**(" << num(sl.final_intercept) << ")*x**(" << num(sl.final_slope) << ") with lines lw 1.5 lc rgb '"
          << c << "' notitle";
    }
    b << ", \\\n     " << num(anchor) << "*(x/" << k0 << ")**(-0.25) with lines dt 2 lw 1.5 lc rgb 'black' title 'K^{-1/4}'"
      << ", \\\n     " << num(anchor) << "*(x/" << k0 << ")**(-1.0/3) with lines dt 4 lw 1.5 lc rgb 'gray40' title 'K^{-1/3}'\n";
    const std::string w = render(out, "rate", b.str());
    if (!w.empty()) result.plot_warning = w;
    result.files.push_back(out / "rate.svg");
    result.files.push_back(out / "rate.png");
  }
  return result;
}

std::string format_compare_table(const CompareResult& r) {
  std::vector<std::vector<std::string>> rows{{"METHOD", "K", "RUNS", "FINAL GAP (mean +- std)", "BEST GAP", "US/ITER",
                                              "GLMO US/ITER"}};
  for (const auto& row : r.rows)
    rows.push_back({row.label, std::to_string(row.K), std::to_string(row.runs),
                    short_num(row.final_gap_mean, "%.4g") + " +- " + short_num(row.final_gap_std, "%.2g"),
                    short_num(row.best_gap_mean, "%.4g"), short_num(row.per_iteration.total() * 1e6, "%.1f"),
                    short_num(row.per_iteration.glmo * 1e6, "%.1f")});
  std::vector<size_t> w;
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      if (w.size() <= i) w.push_back(0);
      w[i] = std::max(w[i], row[i].size());
    }
  std::ostringstream o;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(w[i] - row[i].size() + 2, ' ');
    }
    o << line << '\n';
  }
  o << "\nacross-K slope of log(gap) on log(K) (K^-1/4 = -0.25, K^-1/3 = -0.33):\n";
  for (const auto& s : r.slopes)
    o << "  " << s.label << ": final " << short_num(s.final_slope, "%.3f") << ", best " << short_num(s.best_slope, "%.3f")
      << '\n';
  return o.str();
}

}  // namespace scfw
