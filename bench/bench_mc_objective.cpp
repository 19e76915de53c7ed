// bench_mc_objective: at a solution of a Task 3 run (matrix_completion), the run's own objective
// F(f(X), X) and the paper's objective (1/|Omega|) sum_{(i,j) in Omega} |X_ij - M_ij|, with the
// same data (docs/formulations.md, Task 3; docs/results.md, the full MovieLens-100K).
//
//   bench_mc_objective PROBLEM.json SOLUTION [SOLUTION ...]
//
// SOLUTION `--baseline` stands for the baseline predictor X_ij = mu + b_i + c_j (the mean rating
// plus row and column offsets, see baseline() below): its nuclear norm is the radius of the full
// MovieLens experiment.
//
// PROBLEM.json is a problem or experiment file (only its "oracle", "outer" and "domain" blocks
// are read; data paths relative to its folder); SOLUTION a file written by `scfw run --solution`
// (CSV or JSON, docs/outputs.md). The paper's objective is computed by the same oracle block with
// one group per entry and "weighting": "share" (f_e = (X_e - M_e) / |Omega|, so ||f||_1 is the
// paper's objective exactly), so both read the data the same way. Prints one line per solution:
//   <solution> n=<groups> objective=<F(f(X), X)> paper=<(1/|Omega|) sum |X_e - M_e|>
//   share_bound=<(1/|Omega|) sum_g |sum_{e in G_g} r_e|> nuclear=<||X||_*> share_sample_jacobian_norm=<..>
// share_bound is the run's grouping in the "share" scale (a lower bound of paper), whatever the
// file's weighting. nuclear is computed only when min(rows, cols) <= 2000 (from the eigenvalues of
// X X^T). share_sample_jacobian_norm is the Frobenius norm of a batch-1 sample's Jacobian under
// "share", the same for every draw (the scale of the clipped tracker's threshold).
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include <nlohmann/json.hpp>

#include "bench_support.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/core/solution.hpp"
#include "scfw/error.hpp"

namespace {

// The baseline predictor X_ij = mu + b_i + c_j: mu the mean observed value, b_i the mean of
// M_ij - mu over row i's observed entries, c_j the mean of M_ij - mu - b_i over column j's (0 for
// a row or column without observations). The entries come from the per-entry oracle (one group
// per entry, "share", sparse): row e of its pattern holds entry e's position, and at X = 0
// f_e = -M_e / |Omega|.
scfw::Vec baseline(const scfw::Oracle& per_entry, const std::vector<int>& shape) {
  const auto pattern = per_entry.jacobian_pattern();
  if (!pattern || shape.size() != 2) throw scfw::Error("bench_mc_objective: --baseline needs the oracle's sparse pattern and a matrix domain");
  const int m = per_entry.outputs(), rows = shape[0], cols = shape[1];
  scfw::Vec f(m);
  per_entry.exact(scfw::Vec::Zero(per_entry.dim()), &f, nullptr);
  std::vector<int> row(static_cast<size_t>(m)), col(static_cast<size_t>(m));
  std::vector<double> value(static_cast<size_t>(m));
  double mu = 0.0;
  for (int e = 0; e < m; ++e) {
    const int p = pattern->col()[static_cast<size_t>(pattern->row_start()[static_cast<size_t>(e)])];
    row[static_cast<size_t>(e)] = p / cols;
    col[static_cast<size_t>(e)] = p % cols;
    value[static_cast<size_t>(e)] = -f[e] * m;
    mu += value[static_cast<size_t>(e)];
  }
  mu /= m;
  std::vector<double> b(static_cast<size_t>(rows), 0.0), c(static_cast<size_t>(cols), 0.0), count_r(b.size(), 0.0), count_c(c.size(), 0.0);
  for (int e = 0; e < m; ++e) {
    b[static_cast<size_t>(row[static_cast<size_t>(e)])] += value[static_cast<size_t>(e)] - mu;
    count_r[static_cast<size_t>(row[static_cast<size_t>(e)])] += 1.0;
  }
  for (size_t i = 0; i < b.size(); ++i) b[i] = count_r[i] > 0 ? b[i] / count_r[i] : 0.0;
  for (int e = 0; e < m; ++e) {
    c[static_cast<size_t>(col[static_cast<size_t>(e)])] += value[static_cast<size_t>(e)] - mu - b[static_cast<size_t>(row[static_cast<size_t>(e)])];
    count_c[static_cast<size_t>(col[static_cast<size_t>(e)])] += 1.0;
  }
  for (size_t j = 0; j < c.size(); ++j) c[j] = count_c[j] > 0 ? c[j] / count_c[j] : 0.0;
  scfw::Vec x(static_cast<Eigen::Index>(rows) * cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) x[static_cast<Eigen::Index>(i) * cols + j] = mu + b[static_cast<size_t>(i)] + c[static_cast<size_t>(j)];
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_mc_objective PROBLEM.json SOLUTION [SOLUTION ...]\n");
    return 2;
  }
  return scfw::bench::with_plugins([&](scfw::Registry& registry) {
    const std::filesystem::path file = argv[1];
    const nlohmann::json doc = scfw::read_json_file(file);
    const std::filesystem::path base = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    if (!doc.contains("oracle") || doc["oracle"].value("plugin", "") != "matrix_completion") {
      std::fprintf(stderr, "%s: /oracle: expected a matrix_completion oracle\n", argv[1]);
      return 2;
    }
    scfw::Problem run = scfw::compose_problem(registry, doc, file.string(), base);
    // The paper's objective: one group per entry, each f_e = r_e / |Omega|.
    nlohmann::json per_entry = doc;
    auto& o = per_entry["oracle"];
    for (const char* k : {"row_bins", "col_bins", "by_value", "groups", "partition_seed"}) o.erase(k);
    o["grouping"] = "random";
    o["groups"] = 0;
    o["weighting"] = "share";
    o["jacobian"] = "sparse";  // its pattern names each entry's position
    scfw::Problem paper = scfw::compose_problem(registry, per_entry, file.string(), base);
    // The run's grouping in the "share" scale.
    nlohmann::json shared = doc;
    shared["oracle"]["weighting"] = "share";
    scfw::Problem share = scfw::compose_problem(registry, shared, file.string(), base);
    const int n = run.oracle->outputs(), m = paper.oracle->outputs(), d = run.oracle->dim();
    for (int a = 2; a < argc; ++a) {
      scfw::Vec x;
      if (std::string(argv[a]) == "--baseline") {
        x = baseline(*paper.oracle, run.domain->shape());
      } else {
        const scfw::Labelled sol = scfw::read_solution_x(argv[a]);
        if (sol.values.size() != d) {
          std::fprintf(stderr, "%s: the solution has %lld coordinates, the problem has d = %d\n", argv[a],
                       static_cast<long long>(sol.values.size()), d);
          return 2;
        }
        x = sol.values;
      }
      scfw::Vec f(n), r(m), s(n);
      run.oracle->exact(x, &f, nullptr);
      paper.oracle->exact(x, &r, nullptr);
      share.oracle->exact(x, &s, nullptr);
      const double objective = run.outer->value(f, x);
      const double paper_objective = r.lpNorm<1>();
      const double bound = s.lpNorm<1>();
      double nuclear = std::nan("");
      if (const std::vector<int> shape = run.domain->shape(); shape.size() == 2 && std::min(shape[0], shape[1]) <= 2000) {
        const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> X(x.data(), shape[0], shape[1]);
        const Eigen::MatrixXd G = shape[0] <= shape[1] ? Eigen::MatrixXd(X * X.transpose()) : Eigen::MatrixXd(X.transpose() * X);
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(G, Eigen::EigenvaluesOnly);
        nuclear = 0.0;
        for (Eigen::Index k = 0; k < eig.eigenvalues().size(); ++k) nuclear += std::sqrt(std::max(0.0, eig.eigenvalues()[k]));
      }
      // Under "share" f_g(X + 1) - f_g(X) = |G_g| / |Omega|: a batch-1 sample's Jacobian row g holds
      // that one value, so its Frobenius norm is the same for every draw.
      scfw::Vec s1(n);
      share.oracle->exact(x + scfw::Vec::Ones(d), &s1, nullptr);
      const double sample_norm = (s1 - s).norm();
      std::printf("%s n=%d objective=%.10g paper=%.10g share_bound=%.10g nuclear=%.6g share_sample_jacobian_norm=%.6g\n", argv[a], n,
                  objective, paper_objective, bound, nuclear, sample_norm);
    }
    return 0;
  });
}
