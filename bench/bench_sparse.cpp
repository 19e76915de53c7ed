// Sparse data costs in proportion to its non-zeros (docs/journal/performance-history.md, "2. Sparse data (a9a)"), on the real
// a9a data (LIBSVM, 32561 rows, 123 features) split into 10 label-stratified tasks.
//
//   build/bin/bench_sparse [--data FILE] [--tasks M] [--repeats R] [--seconds S]
//
// (a) A minibatch: time draw + evaluate (f~ and J~) of the least_squares_tasks oracle for
//     batch B in {1, 4, 16, 64}, i.e. m B rows per sample. Printed: us per sample, ns per row
//     drawn, ns per non-zero touched (the expected non-zeros of one sample, exact from the task
//     split), for the plugin object itself and through the host's checked wrapper (the path the
//     loop takes). A least-squares fit t = t0 + c nnz separates the fixed part (zeroing the n x d
//     Jacobian, the m draws) from the per-non-zero part.
// (b) One exact gap evaluation (Oracle::exact f and J over all rows, F(f(y)) and the gap GLMO:
//     scfw::generalized_gap, as the solver's reports run it) against one plain CSR mat-vec
//     y = A x over the same rows, measured alternately in the same rounds; the ratio of the
//     medians is printed (target <= 2: the exact pass reads every non-zero twice, a^T x and the
//     scatter into J, so 2 is its natural cost).
//
// Medians over R repeats; each repeat runs for about S seconds per measurement.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "../plugins/oracle/least_squares_tasks/libsvm.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"
#include "scfw/registrar.hpp"

using namespace scfw;
using namespace scfw::bench;

namespace {

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

std::string default_data() {
  if (const char* env = std::getenv("SCFW_DATA_DIR")) return std::string(env) + "/a9a";
  return SCFW_DEFAULT_DATA_DIR "/a9a";  // ../shared/data beside the repository
}

/// Times `reps` calls of fn, returns seconds per call.
template <class F>
double per_call(F&& fn, long reps) {
  const double t0 = now_s();
  for (long r = 0; r < reps; ++r) fn();
  return (now_s() - t0) / static_cast<double>(reps);
}

/// Calls needed for about `seconds` of fn (at least 1).
template <class F>
long calibrate(F&& fn, double seconds) {
  long reps = 1;
  while (true) {
    const double t = per_call(fn, reps) * static_cast<double>(reps);
    if (t >= 0.02 || reps >= (1L << 30)) return std::max(1L, static_cast<long>(seconds / (t / reps)));
    reps *= 4;
  }
}

volatile double g_sink = 0;  // keeps results alive

}  // namespace

int main(int argc, char** argv) {
  std::string data = default_data();
  int tasks = 10, repeats = 7;
  double seconds = 0.15;
  Options opts;
  opts.add("--data", data).add("--tasks", tasks).add("--repeats", repeats).add("--seconds", seconds);
  if (!opts.parse(argc, argv)) return 2;
  if (!std::filesystem::exists(data)) {
    std::fprintf(stderr, "bench_sparse: %s not found (give --data FILE or set SCFW_DATA_DIR)\n", data.c_str());
    return 2;
  }
  try {
    Registry registry;
    registry.load_path(Registry::search_path());

    // The bench's own copy of the data: for the expected non-zeros of a sample and the mat-vec.
    const libsvm::Data A = libsvm::read(data);
    const int d = A.max_index;
    const auto split = libsvm::stratified_split(A.labels, tasks);
    double mean_nnz_per_task_row_sum = 0;  // sum over tasks of the mean non-zeros of a task row
    for (const auto& rows : split) {
      double nz = 0;
      for (std::size_t r : rows) nz += static_cast<double>(A.row_ptr[r + 1] - A.row_ptr[r]);
      mean_nnz_per_task_row_sum += nz / static_cast<double>(rows.size());
    }
    std::printf("bench_sparse: %s, %zu rows, d = %d, %zu non-zeros (%.2f per row), %d tasks\n", data.c_str(),
                A.rows(), d, A.nnz(), static_cast<double>(A.nnz()) / A.rows(), tasks);
    std::printf("  median of %d repeats, about %.2f s per measurement per repeat\n\n", repeats, seconds);

    // ---------------------------------------------------------------------------------------
    // (a) minibatch cost.
    const RegisteredComponent* oc = registry.find(Kind::Oracle, "least_squares_tasks");
    if (!oc) throw Error("plugin least_squares_tasks not found");
    std::printf("(a) draw + evaluate(f~, J~) of one sample = %d tasks x B rows\n", tasks);
    std::printf("    %5s %6s %8s | %8s %8s | %10s %8s %8s | %10s %8s\n", "B", "rows", "nnz", "draw us", "+f us",
                "+f,J us", "ns/row", "ns/nnz", "wrapped us", "ns/nnz");
    std::vector<double> fit_x, fit_y;
    for (int B : {1, 4, 16, 64}) {
      const nlohmann::json block = {{"file", data}, {"tasks", tasks}, {"batch", B}};
      std::unique_ptr<Oracle> raw = registry.make<Oracle>("least_squares_tasks", block, Context{}, "bench", "/oracle");
      // The host's wrapper around a second instance: the loop's path (checks, counters, timers).
      std::unique_ptr<Oracle> wrapped = wrap_oracle(
          registry.make<Oracle>("least_squares_tasks", block, Context{}, "bench", "/oracle"),
          "least_squares_tasks", std::make_shared<CallCounters>());
      const int n = raw->outputs();
      Vec x(d), f(n);
      Jacobian J(n, d);  // the oracle's dense Jacobian (no "jacobian": "sparse" in the block)
      std::mt19937_64 g(5);
      std::uniform_real_distribution<double> u(-1, 1);
      for (int j = 0; j < d; ++j) x[j] = u(g);
      x *= 5.0 / x.lpNorm<1>();  // a point on the l1 ball of radius 5
      Rng rng(11), rng_w(11);
      auto s = raw->make_sample();
      auto sw = wrapped->make_sample();
      auto step = [&] {
        raw->draw(rng, *s);
        raw->evaluate(*s, x, &f, &J);
        g_sink = g_sink + f[0];
      };
      auto step_w = [&] {
        wrapped->draw(rng_w, *sw);
        wrapped->evaluate(*sw, x, &f, &J);
        g_sink = g_sink + f[0];
      };
      auto draw_only = [&] {
        raw->draw(rng, *s);
        g_sink = g_sink + 1.0;
      };
      auto step_f = [&] {
        raw->draw(rng, *s);
        raw->evaluate(*s, x, &f, nullptr);
        g_sink = g_sink + f[0];
      };
      const long reps = calibrate(step, seconds);
      std::vector<double> t_raw, t_wrapped, t_draw, t_f;
      for (int r = 0; r < repeats; ++r) {
        t_raw.push_back(per_call(step, reps));
        t_wrapped.push_back(per_call(step_w, reps));
        t_draw.push_back(per_call(draw_only, reps));
        t_f.push_back(per_call(step_f, reps));
      }
      const double rows = static_cast<double>(tasks) * B;
      const double nnz = B * mean_nnz_per_task_row_sum;
      const double tr = median(t_raw), tw = median(t_wrapped);
      std::printf("    %5d %6.0f %8.1f | %8.3f %8.3f | %10.3f %8.1f %8.2f | %10.3f %8.2f\n", B, rows, nnz,
                  1e6 * median(t_draw), 1e6 * median(t_f), 1e6 * tr, 1e9 * tr / rows, 1e9 * tr / nnz, 1e6 * tw,
                  1e9 * tw / nnz);
      fit_x.push_back(nnz);
      fit_y.push_back(tr);
    }
    {
      // Least squares t = t0 + c * nnz over the four batch sizes.
      const double k = static_cast<double>(fit_x.size());
      double sx = 0, sy = 0, sxx = 0, sxy = 0;
      for (size_t i = 0; i < fit_x.size(); ++i) {
        sx += fit_x[i];
        sy += fit_y[i];
        sxx += fit_x[i] * fit_x[i];
        sxy += fit_x[i] * fit_y[i];
      }
      const double c = (k * sxy - sx * sy) / (k * sxx - sx * sx), t0 = (sy - c * sx) / k;
      double ss_res = 0, ss_tot = 0;
      for (size_t i = 0; i < fit_x.size(); ++i) {
        const double e = fit_y[i] - (t0 + c * fit_x[i]);
        ss_res += e * e;
        ss_tot += (fit_y[i] - sy / k) * (fit_y[i] - sy / k);
      }
      std::printf("    fit t = t0 + c nnz: t0 = %.3f us (fixed: zeroing the %d x %d Jacobian, %d draws), "
                  "c = %.2f ns per non-zero, R^2 = %.5f\n\n",
                  1e6 * t0, tasks, d, tasks, 1e9 * c, 1 - ss_res / ss_tot);
    }

    // ---------------------------------------------------------------------------------------
    // (b) exact gap evaluation vs one CSR mat-vec.
    const nlohmann::json doc = {
        {"iterations", 200},
        {"oracle", {{"plugin", "least_squares_tasks"}, {"file", data}, {"tasks", tasks}, {"batch", 1}}},
        {"outer", {{"plugin", "max"}}},
        {"domain", {{"plugin", "l1_ball"}, {"radius", 5}}},
        {"tracker", {{"plugin", "momentum"}, {"value", "taylor"}}},
        {"schedule", {{"plugin", "nonconvex"}, {"r", 2}}}};  // no glmo block: the automatic choice
    Composition p = compose(registry, doc, "bench", ".");
    // Evaluation points: iterates of a short run, so the gap GLMO sees points that move as they
    // do between reports (its warm start is not a repeat of the same LP).
    std::vector<Vec> points;
    {
      SolverOptions o;
      o.iterations = 200;
      o.seed = 3;
      o.final_report = false;
      Solver solver(p, o);
      solver.add_callback([&](const IterationState& st) {
        if (st.iteration % 10 == 0) points.push_back(*st.y);
        return true;
      });
      solver.run();
    }
    const int n = p.problem.oracle->outputs();
    Vec gf(n), gx(d);
    Jacobian gJ = make_jacobian(*p.problem.oracle);
    std::size_t ip = 0;
    auto gap_eval = [&] {
      const GapValue gv = generalized_gap(*p.problem.oracle, *p.problem.outer, *p.method.gap_glmo, points[ip], gf, gJ, gx);
      ip = (ip + 1) % points.size();
      g_sink = g_sink + gv.gap;
    };
    auto exact_only = [&] {
      p.problem.oracle->exact(points[ip], &gf, &gJ);
      ip = (ip + 1) % points.size();
      g_sink = g_sink + gf[0];
    };
    // y = A x, written plainly over the same CSR rows (file order).
    std::vector<double> Ax(A.rows());
    const std::int64_t* rp = A.row_ptr.data();
    const int* ci = A.cols.data();
    const double* va = A.vals.data();
    const std::size_t nrows = A.rows();
    auto matvec = [&] {
      const double* xv = points[ip].data();
      for (std::size_t r = 0; r < nrows; ++r) {
        double sum = 0.0;
        for (std::int64_t k = rp[r]; k < rp[r + 1]; ++k) sum += va[k] * xv[ci[k]];
        Ax[r] = sum;
      }
      ip = (ip + 1) % points.size();
      g_sink = g_sink + Ax[nrows / 2];
    };
    const long reps_gap = calibrate(gap_eval, seconds), reps_mv = calibrate(matvec, seconds),
               reps_ex = calibrate(exact_only, seconds);
    std::vector<double> t_gap, t_mv, t_ex, ratio;
    for (int r = 0; r < repeats; ++r) {
      const double a = per_call(matvec, reps_mv);
      const double b = per_call(gap_eval, reps_gap);
      const double c = per_call(exact_only, reps_ex);
      t_mv.push_back(a);
      t_gap.push_back(b);
      t_ex.push_back(c);
      ratio.push_back(b / a);
    }
    const double mv = median(t_mv), gp = median(t_gap), ex = median(t_ex);
    std::printf("(b) exact gap evaluation vs one CSR mat-vec over the same %zu rows (%zu non-zeros)\n", A.rows(),
                A.nnz());
    std::printf("    GLMO of the gap        %s\n", p.method.gap_glmo->describe().c_str());
    std::printf("    CSR mat-vec y = A x    %9.1f us  (%.2f ns per non-zero)\n", 1e6 * mv, 1e9 * mv / A.nnz());
    std::printf("    exact f and J          %9.1f us  (%.2f ns per non-zero)\n", 1e6 * ex, 1e9 * ex / A.nnz());
    std::printf("    exact gap (f, J, F, GLMO) %6.1f us  (%.2f ns per non-zero)\n", 1e6 * gp, 1e9 * gp / A.nnz());
    std::printf("    ratio gap / mat-vec    %9.2f  (median of medians; per-repeat median %.2f, range %.2f .. %.2f; target <= 2)\n",
                gp / mv, median(ratio), *std::min_element(ratio.begin(), ratio.end()),
                *std::max_element(ratio.begin(), ratio.end()));
    std::printf("    ratio exact / mat-vec  %9.2f\n", ex / mv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
