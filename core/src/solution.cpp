#include "scfw/core/solution.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "scfw/core/format.hpp"
#include "scfw/core/output_file.hpp"

#include "scfw/core/diagnostics.hpp"
#include "scfw/core/params_json.hpp"
#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace scfw {

namespace {

// 17 significant digits: a double printed this way reads back as the same double.
std::string exact_number(double v) { return format_number(v, 17); }

// A CSV cell: quoted when it holds a comma, a quote or a line break.
std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Splits one CSV line into cells (RFC 4180 quoting, no line breaks inside cells).
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

std::string name_or_empty(const Labelled& l, Eigen::Index i) {
  return l.names.empty() ? std::string() : l.names[static_cast<size_t>(i)];
}

// The length of the valid UTF-8 sequence at text[i] (1 to 4 bytes), 0 when none starts there.
size_t utf8_sequence(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
  const unsigned c = byte(0);
  const auto cont = [&](size_t k) { return (byte(k) & 0xC0u) == 0x80u; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;  // no overlongs, no surrogates
    return byte(1) >= lo && byte(1) <= hi && cont(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return byte(1) >= lo && byte(1) <= hi && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

// `name` as JSON can hold it: unchanged when it is valid UTF-8; else every byte outside a valid
// sequence is read as Latin-1 (0xE9 becomes U+00E9, "é"), which is what a name in a Latin-1 data
// file meant. --start compares names after the same mapping, so a solution reads back.
std::string json_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    const size_t n = utf8_sequence(name, i);
    if (n > 0) {
      out.append(name.substr(i, n));
      i += n;
    } else {
      const auto c = static_cast<unsigned char>(name[i++]);
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

json labelled_json(const Labelled& l) {
  json o = json::object();
  if (!l.names.empty()) {
    json names = json::array();
    for (const std::string& n : l.names) names.push_back(json_name(n));
    o["names"] = std::move(names);
  }
  json values = json::array();
  for (Eigen::Index i = 0; i < l.values.size(); ++i)
    values.push_back(std::isfinite(l.values[i]) ? json(l.values[i]) : json(nullptr));
  o["values"] = std::move(values);
  return o;
}

// A factored y is written as a grid too up to this many entries.
constexpr std::int64_t kFactorGridMax = 1000000;

json grid_json(const Vec& x, const std::vector<int>& shape) {
  json rows = json::array();
  for (int i = 0; i < shape[0]; ++i) {
    json row = json::array();
    for (int j = 0; j < shape[1]; ++j) row.push_back(x[static_cast<Eigen::Index>(i) * shape[1] + j]);
    rows.push_back(std::move(row));
  }
  return rows;
}

// One table, no comment lines, so that csv.DictReader, pandas.read_csv and a spreadsheet read it
// with no options: every row is (kind, name, number). The run's status and the problem's name are
// strings; they are in the JSON summary (and the JSON solution), not here.
void write_csv_table(std::ostream& out, const Solution& s) {
  out << "kind,name,value\n";
  if (s.has_objective) out << "objective,," << exact_number(s.objective) << '\n';
  if (s.shape.size() == 2) out << "shape,rows," << s.shape[0] << "\nshape,cols," << s.shape[1] << '\n';
  auto rows = [&](const char* kind, const Labelled& l) {
    for (Eigen::Index i = 0; i < l.values.size(); ++i)
      out << kind << ',' << csv_cell(name_or_empty(l, i)) << ',' << exact_number(l.values[i]) << '\n';
  };
  rows("x", s.x);
  if (s.factors.active()) {
    // y = sum_a coef_a u_a v_a^T: (factor, rows / cols / count), then each column's coefficient
    // and entries, named "a" and "a i" (0-based).
    const Factors& F = s.factors;
    out << "factor,rows," << F.rows() << "\nfactor,cols," << F.cols() << "\nfactor,count," << F.count() << '\n';
    for (int a = 0; a < F.count(); ++a) {
      out << "factor_coef," << a << ',' << exact_number(F.coef(a)) << '\n';
      for (int i = 0; i < F.rows(); ++i) out << "factor_u," << a << ' ' << i << ',' << exact_number(F.u(a)[i]) << '\n';
      for (int j = 0; j < F.cols(); ++j) out << "factor_v," << a << ' ' << j << ',' << exact_number(F.v(a)[j]) << '\n';
    }
  }
  if (s.has_f) rows("f", s.f);
  if (s.has_best) {
    out << "best,iteration," << s.best_iteration << "\nbest,gap," << exact_number(s.best_gap) << '\n';
    rows("best_x", s.best);
  }
}

json solution_json(const Solution& s) {
  json o;
  o["problem"] = s.problem;
  o["status"] = s.status;
  o["iterations"] = s.iterations;
  o["x"] = labelled_json(s.x);
  if (s.shape.size() == 2) {
    o["shape"] = s.shape;
    o["matrix"] = grid_json(s.x.values, s.shape);
  }
  if (s.factors.active()) {
    // y = sum_a coef[a] u[a] v[a]^T, and the whole matrix as a grid when it is small.
    const Factors& F = s.factors;
    json f;
    f["rows"] = F.rows();
    f["cols"] = F.cols();
    json coef = json::array(), u = json::array(), v = json::array();
    for (int a = 0; a < F.count(); ++a) {
      coef.push_back(F.coef(a));
      u.push_back(std::vector<double>(F.u(a).data(), F.u(a).data() + F.rows()));
      v.push_back(std::vector<double>(F.v(a).data(), F.v(a).data() + F.cols()));
    }
    f["coef"] = std::move(coef);
    f["u"] = std::move(u);
    f["v"] = std::move(v);
    o["factors"] = std::move(f);
    if (static_cast<std::int64_t>(F.rows()) * F.cols() <= kFactorGridMax) {
      o["shape"] = std::vector<int>{F.rows(), F.cols()};
      json rows = json::array();
      for (int i = 0; i < F.rows(); ++i) {
        json row = json::array();
        for (int j = 0; j < F.cols(); ++j) row.push_back(F.at(i, j));
        rows.push_back(std::move(row));
      }
      o["matrix"] = std::move(rows);
    }
  }
  o["f"] = s.has_f ? labelled_json(s.f) : json(nullptr);
  o["objective"] = s.has_objective ? json(s.objective) : json(nullptr);
  if (s.has_best) {
    json b;
    b["iteration"] = s.best_iteration;
    b["gap"] = s.best_gap;
    b["x"] = labelled_json(s.best);
    o["best"] = std::move(b);
  }
  return o;
}

bool ends_with_json(const fs::path& p) {
  std::string ext = p.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".json";
}

}  // namespace

OutputOptions read_output_options(const json& doc, const std::string& source, const fs::path& base_dir,
                                  const OutputOverrides& overrides) {
  const std::string src = source.empty() ? std::string("<input>") : source;
  OutputOptions o;
  if (auto it = doc.find("output"); it != doc.end()) {
    static const std::vector<ParamSpec> specs = {
        ParamSpec::string("solution", "solution file: JSON for *.json, else CSV (\"\": none)").def(""),
        ParamSpec::string("summary_json", "JSON summary file (\"-\": stdout, \"\": none)").def(""),
        ParamSpec::boolean("best_iterate", "also write the iterate of the best reported gap").def(false),
        ParamSpec::number("progress", "plain progress lines on stderr every this many seconds (0: off)")
            .nonnegative()
            .def(0.0),
    };
    const Params p = validate_object(specs, *it, src, "/output", "output");
    o.solution = p.string("solution");
    o.summary_json = p.string("summary_json");
    diagnostics::check_file_name(src, "/output/solution", o.solution);
    diagnostics::check_file_name(src, "/output/summary_json", o.summary_json);
    o.best_iterate = p.boolean("best_iterate");
    o.progress = p.number("progress");
  }
  if (auto it = doc.find("start"); it != doc.end()) {
    if (!it->is_string() || it->get<std::string>().empty())
      diagnostics::expected(src, "/start", "a solution file name", *it);
    diagnostics::check_file_name(src, "/start", it->get<std::string>());
    fs::path p(it->get<std::string>());
    if (p.is_relative() && !base_dir.empty()) p = base_dir / p;
    o.start = p.string();
  }
  if (overrides.solution) o.solution = *overrides.solution;
  if (overrides.summary_json) o.summary_json = *overrides.summary_json;
  if (overrides.start) o.start = *overrides.start;
  if (overrides.best_iterate) o.best_iterate = *overrides.best_iterate;
  if (overrides.progress) o.progress = *overrides.progress;
  return o;
}

CallbackResult BestIterate::on_iteration(const IterationState& s) {
  if (s.has_gap && s.y && (!has_ || s.gap < gap_)) {
    has_ = true;
    gap_ = s.gap;
    iteration_ = s.iteration;
    y_ = *s.y;
  }
  return CallbackResult::Continue;
}

void BestIterate::on_end(const Summary& s) {
  // The report at the last iterate of a run stopped early is made after the callbacks ran.
  if (s.has_gap && (!has_ || s.best_gap < gap_)) {
    has_ = true;
    gap_ = s.best_gap;
    iteration_ = s.iterations;
    y_ = s.y;
  }
}

Solution make_solution(const Problem& problem, const Summary& summary, const BestIterate* best) {
  Solution s;
  s.problem = problem.name;
  s.status = summary.message;
  s.iterations = summary.iterations;
  s.x.values = summary.y;
  s.x.names = problem.oracle->variable_names();
  s.shape = problem.domain->shape();
  s.factors = summary.factors;
  if (problem.oracle->capabilities().has(Capability::Exact)) {
    s.has_f = true;
    s.f.values = Vec::Zero(problem.outputs());
    problem.oracle->exact(summary.y, &s.f.values, nullptr);
    s.f.names = problem.oracle->output_names();
    s.has_objective = true;
    s.objective = problem.outer->value(s.f.values, summary.y);
  }
  if (best && best->has()) {
    s.has_best = true;
    s.best_iteration = best->iteration();
    s.best_gap = best->gap();
    s.best.values = best->y();
    s.best.names = s.x.names;
  }
  return s;
}

void write_solution(const fs::path& path, const Solution& solution) {
  write_output_file(path, "solution file", [&](std::ostream& out) {
    if (ends_with_json(path))
      out << solution_json(solution).dump(1, ' ', false, json::error_handler_t::replace) << '\n';
    else
      write_csv_table(out, solution);
  });
}

void write_solution_csv(std::ostream& out, const Solution& solution) { write_csv_table(out, solution); }

Labelled read_solution_x(const fs::path& path) {
  const std::string src = path.string();
  Labelled x;
  // A start holds one value per variable: 64 MiB, as a problem file.
  check_data_path(src);
  check_file_size(src, std::uintmax_t{64} << 20, "start files are");
  if (ends_with_json(path)) {
    const json doc = read_json_file(path);
    if (!doc.is_object() || !doc.contains("x")) diagnostics::input_error(src, "/x", "missing; a solution file has \"x\": {\"values\": [...]}");
    const json& xs = doc["x"];
    if (!xs.is_object() || !xs.contains("values") || !xs["values"].is_array())
      diagnostics::input_error(src, "/x/values", "expected an array of numbers");
    const json& values = xs["values"];
    x.values = Vec::Zero(static_cast<Eigen::Index>(values.size()));
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i].is_number())
        diagnostics::expected(src, "/x/values/" + std::to_string(i), "a finite number", values[i]);
      x.values[static_cast<Eigen::Index>(i)] = values[i].get<double>();
    }
    if (auto it = xs.find("names"); it != xs.end()) {
      if (!it->is_array() || it->size() != values.size())
        diagnostics::input_error(src, "/x/names", "expected an array of " + std::to_string(values.size()) + " names, one per value");
      for (size_t i = 0; i < it->size(); ++i) {
        if (!(*it)[i].is_string()) diagnostics::expected(src, "/x/names/" + std::to_string(i), "a string", (*it)[i]);
        x.names.push_back((*it)[i].get<std::string>());
      }
    }
    return x;
  }
  std::ifstream in;
  open_data_file(in, src);
  std::string line;
  long number = 0;
  bool header = false, named = false;
  std::vector<double> values;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = src + ":" + std::to_string(number) + ": ";
    const std::vector<std::string> cells = csv_cells(line);
    if (!header) {
      if (line != "kind,name,value")
        throw InputError(where + "expected the header kind,name,value, got \"" + excerpt(line) + "\"");
      header = true;
      continue;
    }
    if (cells.size() != 3) throw InputError(where + "expected 3 cells kind,name,value, got " + std::to_string(cells.size()));
    if (cells[0] != "x") continue;  // f and best_x rows are not part of a start
    const char* begin = cells[2].c_str();
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (cells[2].empty() || *end != '\0') throw InputError(where + "not a number: \"" + excerpt(cells[2]) + "\"");
    if (values.empty()) named = !cells[1].empty();
    else if (named != !cells[1].empty()) throw InputError(where + "either every x row has a name or none has");
    values.push_back(v);
    if (named) x.names.push_back(cells[1]);
  }
  if (!header) throw InputError(src + ": no header kind,name,value (not a solution file)");
  if (values.empty()) throw InputError(src + ": no x rows");
  x.values = Eigen::Map<const Vec>(values.data(), static_cast<Eigen::Index>(values.size()));
  return x;
}

double distance_upper_bound(const Domain& domain, const Vec& point, int steps) {
  // min 0.5 ||x - point||^2 over X by Frank-Wolfe: each iterate is in X, so ||x - point|| bounds
  // the distance from above.
  Vec x = domain.initial_point();
  Vec g(x.size()), v(x.size());
  Atom s;
  for (int k = 0; k < steps; ++k) {
    g = x - point;
    domain.lmo(g, s);
    s.to_dense(v);
    const Vec dir = v - x;
    const double dd = dir.squaredNorm();
    if (!(dd > 0)) break;
    const double gamma = std::clamp(-g.dot(dir) / dd, 0.0, 1.0);
    if (gamma == 0) break;
    x += gamma * dir;
  }
  return (x - point).norm();
}

Vec check_start(const Problem& problem, const Labelled& start, const std::string& source) {
  const int d = problem.dim();
  if (start.values.size() != d)
    throw InputError(source + ": the start has " + std::to_string(start.values.size()) +
                     " coordinates, the problem has d = " + std::to_string(d));
  const std::vector<std::string> names = problem.oracle->variable_names();
  if (!names.empty() && !start.names.empty())
    for (size_t i = 0; i < names.size(); ++i)
      if (json_name(names[i]) != json_name(start.names[i]))
        throw InputError(source + ": coordinate " + std::to_string(i + 1) + " is \"" + start.names[i] +
                         "\" in the start but \"" + names[i] + "\" in the problem");
  for (Eigen::Index i = 0; i < start.values.size(); ++i)
    if (!std::isfinite(start.values[i]))
      throw InputError(source + ": coordinate " + std::to_string(i + 1) +
                       (start.names.empty() ? std::string() : " (" + start.names[static_cast<size_t>(i)] + ")") +
                       " is not a finite number");
  if (!problem.domain->contains(start.values, 1e-8)) {
    std::string domain_name = "the domain";
    for (const auto& [role, name] : problem.plugins)
      if (role == "domain") domain_name = name;
    const int steps = 500;
    throw InputError(source + ": the start is outside the domain (" + domain_name + "): at most " +
                     format_number(distance_upper_bound(*problem.domain, start.values, steps), 3) +
                     " away from it (an upper bound from " + std::to_string(steps) +
                     " Frank-Wolfe projection steps)");
  }
  return start.values;
}

}  // namespace scfw
