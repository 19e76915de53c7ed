// scfw compare: the write stage — summary.csv, slopes.csv, runs.csv, the plot data and the
// printed table (compare.hpp).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "internal.hpp"
#include "scfw/compare/compare.hpp"

namespace fs = std::filesystem;

namespace scfw {

using compare_detail::finish;
using compare_detail::num;
using compare_detail::short_num;

void write_tables(const Experiment& e, const fs::path& out, CompareResult& result) {
  // summary.csv, slopes.csv, runs.csv
  {
    OutputFile f(out / "summary.csv", "summary table");
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
    finish(f);
    result.files.push_back(out / "summary.csv");
    OutputFile s(out / "slopes.csv", "slopes table");
    s << "method,final_gap_slope,best_gap_slope,final_gap_intercept_log10,best_gap_intercept_log10\n";
    for (const auto& sl : result.slopes)
      s << '"' << sl.label << "\"," << num(sl.final_slope) << ',' << num(sl.best_slope) << ','
        << num(sl.final_intercept) << ',' << num(sl.best_intercept) << '\n';
    finish(s);
    result.files.push_back(out / "slopes.csv");
    OutputFile rr(out / "runs.csv", "runs table");
    rr << "method,K,seed,ok,final_gap,best_gap,final_objective,seconds,trace,error\n";
    for (const auto& r : result.runs) {
      std::string err = r.error;
      std::replace(err.begin(), err.end(), '"', '\'');
      std::replace(err.begin(), err.end(), '\n', ' ');
      rr << '"' << e.methods[r.method].label << "\"," << r.K << ',' << r.seed << ',' << (r.ok ? 1 : 0) << ','
         << num(r.final_gap) << ',' << num(r.best_gap) << ',' << num(r.final_objective) << ',' << num(r.seconds)
         << ',' << r.trace << ",\"" << err << "\"\n";
    }
    finish(rr);
    result.files.push_back(out / "runs.csv");
  }

  // Plot data: per K, per method: iteration, mean, min, max over the seeds of the gap (positive
  // means only: its axis is logarithmic) and of the objective (any finite value).
  for (long K : e.budgets) {
    for (const bool gap : {true, false}) {
      const std::string stem = (gap ? "gap_K" : "objective_K") + std::to_string(K);
      OutputFile dat(out / "plot" / (stem + ".dat"), "plot data");
      for (size_t m = 0; m < e.methods.size(); ++m) {
        std::map<long, std::vector<double>> at;
        for (const auto& r : result.runs) {
          if (r.method != m || r.K != K || !r.ok) continue;
          for (const auto& [it, v] : compare_detail::read_trace_column(out / r.trace, gap ? 2 : 1)) at[it].push_back(v);
        }
        dat << "# " << e.methods[m].label << "\n";
        bool any = false;
        for (const auto& [it, vs] : at) {
          double mean = 0, sd = 0;
          mean_std(vs, mean, sd);
          const double lo = *std::min_element(vs.begin(), vs.end()), hi = *std::max_element(vs.begin(), vs.end());
          if (gap ? !(mean > 0) : !std::isfinite(mean)) continue;
          dat << it << ' ' << num(mean) << ' ' << num(gap ? std::max(lo, 1e-300) : lo) << ' ' << num(hi) << '\n';
          any = true;
        }
        if (!any) dat << "1 nan nan nan\n";
        dat << "\n\n";
      }
      finish(dat);
    }
  }
  // The rate plot needs two budgets at least (plot.cpp).
  if (e.budgets.size() >= 2) {
    OutputFile dat(out / "plot" / "rate.dat", "plot data");
    for (size_t m = 0; m < e.methods.size(); ++m) {
      dat << "# " << e.methods[m].label << "\n";
      for (const auto& r : result.rows)
        if (r.label == e.methods[m].label)
          dat << r.K << ' ' << num(r.final_gap_mean) << ' ' << num(r.best_gap_mean) << '\n';
      dat << "\n\n";
    }
    finish(dat);
  }
}

std::string format_compare_table(const CompareResult& r) {
  std::vector<std::vector<std::string>> rows{{"METHOD", "K", "RUNS", "OBJECTIVE (mean)", "FINAL GAP (mean +- std)",
                                              "BEST GAP", "US/ITER", "GLMO US/ITER"}};
  for (const auto& row : r.rows)
    rows.push_back({row.label, std::to_string(row.K), std::to_string(row.runs), short_num(row.objective_mean, "%.6g"),
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
