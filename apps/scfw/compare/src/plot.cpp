// scfw compare: the plot stage — gnuplot scripts and, when gnuplot is on PATH, SVG and PNG files
// (compare.hpp). gnuplot runs without a shell: an argument vector, its output to files beside
// the script, its exit status checked.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

#include "internal.hpp"
#include "scfw/compare/compare.hpp"

extern char** environ;

namespace fs = std::filesystem;

namespace scfw {

using compare_detail::gp_quote;
using compare_detail::gp_text;
using compare_detail::gp_log_tics;
using compare_detail::gp_y_axis;
using compare_detail::kColours;
using compare_detail::num;
using compare_detail::short_num;

namespace compare_detail {

std::string gp_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string gp_text(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    else if (std::string_view("&^_@~{}").find(c) != std::string_view::npos) out += "\\\\";
    out += c;
  }
  return out + "\"";
}

const char* const kColours[10] = {"#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd",
                                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

}  // namespace compare_detail

namespace {

/// The key under the plot, clear of the tic labels and the x label: a bottom margin for them and
/// `rows` rows of entries, laid out as `layout` says.
std::string key_below(size_t rows, const std::string& layout) {
  std::ostringstream s;
  s << "set bmargin " << 4 + 1.3 * static_cast<double>(rows) << "\n"
    << "set key at screen 0.5, screen 0.01 center bottom " << layout << " spacing 1.3\n";
  return s.str();
}

/// The numbers of a plot data file's value columns (all but the first), for its axis.
std::vector<double> dat_values(const fs::path& data) {
  std::vector<double> values;
  std::ifstream in(data);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string field;
    fields >> field;  // the iteration
    // (1e-300 stands for a band's lower end at a gap of 0, which a logarithmic axis cannot show)
    while (fields >> field)
      if (const double v = std::strtod(field.c_str(), nullptr); v != 1e-300) values.push_back(v);
  }
  return values;
}

/// Writes the script for each terminal beside the data and runs `gnuplot <script>` (SVG, then
/// PNG), its output and messages in <script>.log. Returns "" or a warning.
std::string render(const fs::path& gnuplot, const fs::path& out, const std::string& stem, const std::string& body) {
  std::string warning;
  for (const char* fmt : {"svg", "png"}) {
    const fs::path script = out / "plot" / (stem + "." + fmt + ".gp");
    OutputFile f(script, "plot script");
    if (std::string(fmt) == "svg") f << "set terminal svg size 720,480 dynamic font 'Helvetica,12'\n";
    else f << "set terminal pngcairo size 900,600 font 'Helvetica,11'\n";
    f << "set output " << gp_quote((out / (stem + "." + fmt)).string()) << "\n" << body;
    compare_detail::finish(f);
    if (gnuplot.empty()) continue;
    const fs::path log = out / "plot" / (stem + "." + fmt + ".log");
    std::string error;
    const int status = run_program({gnuplot.string(), script.string()}, "/dev/null", log, &error);
    if (status != 0)
      warning = status < 0 ? "cannot run gnuplot: " + error
                           : "gnuplot failed on " + script.string() + " (exit status " + std::to_string(status) +
                                 "; see the .log beside it)";
  }
  return warning;
}

}  // namespace

fs::path find_program(const std::string& program) {
  auto executable = [](const fs::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.empty()) return {};
  if (program.find('/') != std::string::npos) return executable(program) ? fs::path(program) : fs::path();
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  for (;;) {
    const size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty()) dir.push_back('.');  // an empty entry is the current directory
    const fs::path candidate = fs::path(dir) / program;
    if (executable(candidate)) return candidate;
    if (colon == std::string::npos) return {};
    start = colon + 1;
  }
}

int run_program(const std::vector<std::string>& argv, const fs::path& stdout_file, const fs::path& stderr_file,
                std::string* error) {
  auto fail = [&](const std::string& what, int err) {
    if (error) *error = what + ": " + std::strerror(err);
    return -1;
  };
  if (argv.empty()) return fail("no program", EINVAL);
  const fs::path program = find_program(argv[0]);
  if (program.empty()) return fail(argv[0], ENOENT);

  posix_spawn_file_actions_t actions;
  if (int rc = posix_spawn_file_actions_init(&actions); rc != 0) return fail("posix_spawn_file_actions_init", rc);
  struct Cleanup {
    posix_spawn_file_actions_t* a;
    ~Cleanup() { posix_spawn_file_actions_destroy(a); }
  } cleanup{&actions};
  const int flags = O_WRONLY | O_CREAT | O_TRUNC;
  int rc = posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (rc == 0) rc = posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_file.c_str(), flags, 0644);
  if (rc == 0) rc = posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_file.c_str(), flags, 0644);
  if (rc != 0) return fail("posix_spawn_file_actions_addopen", rc);

  std::vector<char*> args;
  std::vector<std::string> copy = argv;
  for (auto& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, args.data(), environ);
  if (rc != 0) return fail(program.string(), rc);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return fail("waitpid", errno);
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return fail("waitpid", ECHILD);
}

void plot(const Experiment& e, const fs::path& out, const CompareOptions& options, CompareResult& result) {
  // The scripts are written in every case (to be run by hand); gnuplot runs when asked and found.
  fs::path gnuplot;
  if (!options.plots) {
    result.plot_warning = "plots disabled";
  } else {
    gnuplot = find_program("gnuplot");
    if (gnuplot.empty())
      result.plot_warning = "gnuplot not found on PATH (Debian package gnuplot-nox); data and scripts are in " +
                            (out / "plot").string();
  }
  const bool drawn = !gnuplot.empty();
  const std::string title = e.name;
  const auto add = [&](const std::string& stem, const std::string& body) {
    const std::string w = render(gnuplot, out, stem, body);
    if (!w.empty()) result.plot_warning = w;
    if (drawn) {
      result.files.push_back(out / (stem + ".svg"));
      result.files.push_back(out / (stem + ".png"));
    }
  };
  // Per K, the gap and the objective against the iteration: a line per method (the mean over the
  // seeds) in a band (min to max), the x axis from the first report to K.
  for (long K : e.budgets) {
    for (const bool gap : {true, false}) {
      const std::string stem = (gap ? "gap_K" : "objective_K") + std::to_string(K);
      const fs::path data = out / "plot" / (stem + ".dat");
      std::ostringstream b;
      const long first = std::max<long>(1, (K + e.report_points - 1) / e.report_points);  // run_options()
      b << "set logscale x\nset xrange [" << first << ":" << K << "]\n"
        << gp_log_tics('x', static_cast<double>(first), static_cast<double>(K)) << "set grid\n"
        // the gap on a logarithmic axis always (as on the rate plot), the objective where that helps
        << gp_y_axis(dat_values(data), gap ? 1 : 10)
        << "set xlabel 'iteration k'\nset ylabel " << (gap ? "'generalized FW gap'" : "'objective F(f(y), y)'") << "\n"
        // Two title lines: long experiment names no longer run off the plot's right edge.
        << "set title font ',10'\nset title " << gp_text(title) << " . \"\\n\" . "
        << gp_text("K = " + std::to_string(K) + " (mean over " + std::to_string(e.seeds.size()) + " seeds, band: min-max)") << "\n"
        << "set style fill transparent solid 0.18 noborder\n"
        << key_below((e.methods.size() + 2) / 3, "horizontal maxcols 3");
      const std::string dat = gp_quote(data.string());
      b << "plot ";
      for (size_t m = 0; m < e.methods.size(); ++m) {
        const char* c = kColours[m % 10];
        b << (m ? ", \\\n     " : "") << dat << " index " << m << " using 1:3:4 with filledcurves lc rgb '" << c
          << "' notitle, \\\n     " << dat << " index " << m << " using 1:2 with lines lw 2 lc rgb '" << c
          << "' title " << gp_text(e.methods[m].label);
      }
      b << "\n";
      add(stem, b.str());
    }
  }
  if (e.budgets.size() < 2) {
    // One budget has no rate to show: no rate plot, and none left from an earlier run here.
    std::error_code ec;
    for (const char* f : {"rate.svg", "rate.png"}) fs::remove(out / f, ec);
    for (const char* f : {"rate.dat", "rate.svg.gp", "rate.png.gp", "rate.svg.log", "rate.png.log"})
      fs::remove(out / "plot" / f, ec);
    return;
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
    // The x axis spans the budgets and labels each of them; the key (a column of methods beside
    // the reference lines) sits under the x label.
    b << "set logscale x\n" << gp_y_axis(dat_values(out / "plot" / "rate.dat"), 1) << "set grid\n"
      << "set xlabel 'iteration budget K'\nset ylabel 'gap at K (solid: final, open: best)'\n"
      << "set title font ',10'\nset title " << gp_text(title) << " . \"\\n\" . " << gp_text("gap against K (mean over seeds)") << "\n"
      << "set xrange [" << e.budgets.front() << ":" << e.budgets.back() << "]\n"
      << "set xtics (";
    for (size_t i = 0; i < e.budgets.size(); ++i)
      b << (i ? ", " : "") << '"' << e.budgets[i] << "\" " << e.budgets[i];
    const size_t rows = std::max<size_t>(e.methods.size(), 2);
    b << ")\n" << key_below(rows, "vertical maxrows " + std::to_string(rows));
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
    add("rate", b.str());
  }
}

}  // namespace scfw
