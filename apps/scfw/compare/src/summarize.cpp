// scfw compare: the summarize stage — statistics over the seeds, slopes across K (compare.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "scfw/compare/compare.hpp"

namespace scfw {

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

void summarize(const Experiment& e, CompareResult& result) {
  result.rows.clear();
  result.slopes.clear();
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

}

}  // namespace scfw
