// `scfw plot`: trace CSVs read by column name, the two-panel gnuplot script, and the drawing put
// in place whole (trace_plot.hpp).
#include "scfw/compare/trace_plot.hpp"

#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "internal.hpp"
#include "scfw/compare/compare.hpp"
#include "scfw/core/format.hpp"
#include "scfw/core/output_file.hpp"
#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;

namespace scfw {

namespace {

using compare_detail::gp_quote;
using compare_detail::gp_text;
using compare_detail::kColours;

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    const size_t comma = line.find(',', start);
    fields.push_back(trim_field(std::string_view(line).substr(start, comma == std::string::npos ? std::string::npos
                                                                                                 : comma - start)));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

std::string plural(size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// The shortest text that reads back as the same double; NaN for a missing or non-finite value.
std::string datum(double v) {
  if (!std::isfinite(v)) return "NaN";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

bool any_finite(const std::vector<double>& v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

/// The last line of gnuplot's messages that is not blank (its error names the script's line).
std::string last_message(const fs::path& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r^") != std::string::npos) last = line;
  return excerpt(last, 200);
}

/// A folder of its own under the system's temporary folder, removed with this object.
class TempFolder {
 public:
  TempFolder() {
    std::string pattern = (fs::temp_directory_path() / "scfw-plot-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw Error(pattern + ": cannot create a temporary folder for gnuplot (" + std::strerror(errno) + ")");
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

namespace compare_detail {

std::string gp_y_axis(const std::vector<double>& values, double log_ratio) {
  if (!log_scale_helps(values, log_ratio))
    return "unset logscale y\nset autoscale y\nset ytics autofreq\nset format y '%g'\n";
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (double v : values)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  // 4 % of the decades spanned on each side, so that no point sits on the frame.
  const double pad = std::pow(hi / lo, 0.04);
  const double from = lo / pad, to = hi * pad;
  std::ostringstream s;
  s << "set logscale y\nset yrange [" << datum(from) << ":" << datum(to) << "]\n" << gp_log_tics('y', from, to);
  return s.str();
}

std::string gp_log_tics(char axis, double from, double to) {
  std::ostringstream s;
  if (to >= 1000 * from) {
    s << "set " << axis << "tics autofreq\nset format " << axis << " '10^{%L}'\n";  // a label at each power of ten
    return s.str();
  }
  // Under three decades the powers of ten alone leave three labels or fewer: 1-2-5 steps, or finer.
  s << "set format " << axis << " '%g'\n";
  for (const std::vector<double>& steps : {std::vector<double>{1, 2, 5}, std::vector<double>{1, 1.5, 2, 3, 4, 5, 6, 8}}) {
    std::vector<double> tics;
    for (int e = static_cast<int>(std::floor(std::log10(from))); e <= static_cast<int>(std::ceil(std::log10(to))); ++e)
      for (double m : steps)
        if (const double t = m * std::pow(10.0, e); t >= from * (1 - 1e-9) && t <= to * (1 + 1e-9)) tics.push_back(t);
    if (tics.size() < 4 && steps.size() == 3) continue;
    if (tics.size() < 2) {  // a narrow range: gnuplot's own tics
      s << "set " << axis << "tics autofreq\n";
      break;
    }
    s << "set " << axis << "tics (";
    for (size_t i = 0; i < tics.size(); ++i) s << (i ? ", " : "") << format_number(tics[i], 6);
    s << ")\n";
    break;
  }
  return s.str();
}

}  // namespace compare_detail

TraceSeries read_trace(const fs::path& file) {
  const std::string name = file.string();
  check_data_path(name);
  errno = 0;
  std::ifstream in(file);
  if (!in) throw InputError(name + ": cannot open file" + open_failure(errno));
  const auto at = [&](long line, const std::string& what) {
    return InputError(name + ": line " + std::to_string(line) + ": " + what);
  };
  std::string line;
  if (!std::getline(in, line)) throw InputError(name + ": the file is empty, not a trace CSV");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::vector<std::string> header = split_fields(line);
  size_t column[3] = {};
  const char* wanted[3] = {"iteration", "objective", "gap"};
  for (int c = 0; c < 3; ++c) {
    const auto it = std::find(header.begin(), header.end(), wanted[c]);
    if (it == header.end())
      throw at(1, std::string("not a trace CSV: the header has no column \"") + wanted[c] +
                      "\" (a trace has the columns iteration, objective and gap; this header is \"" +
                      excerpt(line, 80) + "\")");
    column[c] = static_cast<size_t>(it - header.begin());
  }

  TraceSeries t;
  t.file = name;
  t.label = file.stem().string();
  long number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // a blank line
    const std::vector<std::string> fields = split_fields(line);
    if (fields.size() != header.size())
      throw at(number, plural(fields.size(), "field", "fields") + ", the header has " + std::to_string(header.size()));
    const std::string& it = fields[column[0]];
    long k = 0;
    const auto [end, ec] = std::from_chars(it.data(), it.data() + it.size(), k);
    if (it.empty() || ec != std::errc() || end != it.data() + it.size() || k < 0)
      throw at(number, "column \"iteration\": expected an integer >= 0, got \"" + excerpt(it) + "\"");
    double value[2] = {};
    for (int c = 1; c < 3; ++c) {
      const std::string& f = fields[column[c]];
      if (f.empty()) {
        value[c - 1] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      char* stop = nullptr;
      value[c - 1] = std::strtod(f.c_str(), &stop);
      if (stop != f.c_str() + f.size())
        throw at(number, std::string("column \"") + wanted[c] + "\": expected a number, got \"" + excerpt(f) + "\"");
    }
    t.iteration.push_back(k);
    t.objective.push_back(value[0]);
    t.gap.push_back(value[1]);
  }
  if (in.bad()) throw InputError(name + ": cannot read file");
  if (t.iteration.empty()) throw InputError(name + ": the trace is empty: a header and no rows");
  const char* why = " (objective and gap come from the exact evaluation, which this run's oracle does not have)";
  if (!any_finite(t.objective)) throw InputError(name + ": no row has a finite objective" + why);
  if (!any_finite(t.gap)) throw InputError(name + ": no row has a finite gap" + why);
  return t;
}

std::vector<TraceSeries> read_traces(const std::vector<fs::path>& files) {
  std::vector<TraceSeries> traces;
  std::map<std::string, int> stems;
  for (const auto& f : files) {
    traces.push_back(read_trace(f));
    ++stems[traces.back().label];
  }
  for (auto& t : traces)
    if (stems[t.label] > 1) t.label = t.file;
  return traces;
}

PlotFormat plot_format(const fs::path& output) {
  std::string ext = output.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".png") return PlotFormat::png;
  if (ext == ".svg") return PlotFormat::svg;
  throw std::invalid_argument("expected a file name ending in .png or .svg, got '" + excerpt(output.string()) + "'");
}

PlotSize plot_size(PlotFormat format) { return format == PlotFormat::png ? PlotSize{900, 760} : PlotSize{720, 608}; }

bool log_scale_helps(const std::vector<double>& values, double ratio) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  bool any = false;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    if (!(v > 0)) return false;
    lo = std::min(lo, v), hi = std::max(hi, v), any = true;
  }
  return any && hi >= ratio * lo;
}

std::string trace_plot_script(const std::vector<TraceSeries>& traces, PlotFormat format, const fs::path& output) {
  const PlotSize size = plot_size(format);
  std::vector<double> iterations, objectives, gaps;
  for (const auto& t : traces) {
    for (long k : t.iteration) iterations.push_back(static_cast<double>(k));
    objectives.insert(objectives.end(), t.objective.begin(), t.objective.end());
    gaps.insert(gaps.end(), t.gap.begin(), t.gap.end());
  }
  // The key under the lower panel: up to three runs a row.
  const size_t n = traces.size(), columns = std::min<size_t>(n, 3), rows = (n + columns - 1) / columns;
  const double line_px = format == PlotFormat::png ? 17.0 : 18.0;  // a key row at the font's size
  const double key_chars = 1.3 * static_cast<double>(rows) + 1.0;    // the key's rows and the space below
  const double split = 0.5 + 0.5 * (key_chars * line_px) / size.height;

  std::ostringstream s;
  s << "# scfw plot: the objective and the generalized Frank-Wolfe gap against the iteration\n";
  for (size_t i = 0; i < n; ++i)
    s << "# $run" << i + 1 << ": " << traces[i].file << " (iteration, objective, gap)\n";
  if (format == PlotFormat::png)
    s << "set terminal pngcairo size " << size.width << "," << size.height << " font 'Helvetica,11'\n";
  else
    s << "set terminal svg size " << size.width << "," << size.height << " dynamic font 'Helvetica,12'\n";
  s << "set output " << gp_quote(output.string()) << "\n";
  for (size_t i = 0; i < n; ++i) {
    const TraceSeries& t = traces[i];
    s << "$run" << i + 1 << " << EOD\n";
    for (size_t r = 0; r < t.iteration.size(); ++r)
      s << t.iteration[r] << ' ' << datum(t.objective[r]) << ' ' << datum(t.gap[r]) << '\n';
    s << "EOD\n";
  }
  s << "set multiplot\n"
    << "set grid\nset lmargin 12\nset rmargin 4\nset autoscale xfix\nset key off\n";
  if (log_scale_helps(iterations, 100)) s << "set logscale x\n";
  const auto series = [&](int column, bool titled) {
    std::string p = "plot ";
    for (size_t i = 0; i < n; ++i) {
      // points on a run's line while they can be told apart
      const char* style = traces[i].iteration.size() <= 60 ? "linespoints pt 7 ps 0.6 lw 2" : "lines lw 2";
      p += std::string(i ? ", \\\n     " : "") + "$run" + std::to_string(i + 1) + " using 1:" + std::to_string(column) +
           " with " + style + " lc rgb '" + kColours[i % 10] + "' " +
           (titled ? "title " + gp_text(traces[i].label) : std::string("notitle"));
    }
    return p + "\n";
  };
  s << "# the objective, upper panel\n"
    << "set origin 0," << split << "\nset size 1," << 1 - split << "\n"
    << "set tmargin 1.5\nset bmargin 1.5\nunset xlabel\n"
    << "set ylabel 'objective F(f(y), y)'\n"
    << compare_detail::gp_y_axis(objectives, 10) << series(2, false);
  s << "# the gap, lower panel, with the key under it\n"
    << "set origin 0,0\nset size 1," << split << "\n"
    << "set tmargin 1.5\nset bmargin " << 3.0 + key_chars << "\n"
    << "set xlabel 'iteration k'\nset ylabel 'generalized FW gap'\n"
    << compare_detail::gp_y_axis(gaps, 10)
    << "set key at screen 0.5, screen 0.01 center bottom horizontal maxcols " << columns << " spacing 1.3\n"
    << series(3, true) << "unset multiplot\n";
  return s.str();
}

void draw_trace_plot(const std::vector<TraceSeries>& traces, const fs::path& output, const fs::path& script) {
  const PlotFormat format = plot_format(output);
  std::error_code ec;
  const fs::path absolute = fs::absolute(output, ec).lexically_normal();
  write_output_file(script, "plot script",
                    [&](std::ostream& o) { o << trace_plot_script(traces, format, ec ? output : absolute); });
  const fs::path gnuplot = find_program("gnuplot");
  if (gnuplot.empty())
    throw Error("gnuplot not found on PATH (Debian package gnuplot-nox); the script is in " + script.string() +
                ": run gnuplot on it once gnuplot is installed");
  // gnuplot draws into a folder of its own; the drawing is then copied into place whole.
  const TempFolder temp;
  const fs::path drawing = temp.path() / (format == PlotFormat::png ? "plot.png" : "plot.svg");
  const fs::path temp_script = temp.path() / "plot.gp";
  write_output_file(temp_script, "plot script", [&](std::ostream& o) { o << trace_plot_script(traces, format, drawing); });
  std::string error;
  const fs::path log = temp.path() / "gnuplot.log";
  const int status = run_program({gnuplot.string(), temp_script.string()}, "/dev/null", log, &error);
  if (status < 0) throw Error("cannot run gnuplot: " + error);
  if (status != 0 || !fs::exists(drawing, ec) || fs::file_size(drawing, ec) == 0)
    throw Error("gnuplot failed on " + script.string() + " (exit status " + std::to_string(status) + "): " +
                last_message(log));
  std::ifstream in(drawing, std::ios::binary);
  write_output_file(output, "plot", [&](std::ostream& o) { o << in.rdbuf(); });
}

}  // namespace scfw
