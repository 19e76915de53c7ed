// The engine against the paper: Corollary 1 (deterministic interpolation) step by step, its
// convex O(1/K) bound on an instance with a known minimizer, and the determinism guarantees
// (same seed, same trace; gap reports never change the iterates).
#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>

#include "engine_support.hpp"

using namespace scfw;
using scfw::test::make;
using scfw::test::run;
using scfw::test::task1;

TEST_CASE("Corollary 1: exact oracle with beta = rho = 1 reproduces the deterministic Basic Method") {
  // batch 0 = every sample is the whole data set: sigma_f = sigma_g = 0.
  const long K = 60;
  for (const char* variant : {"polyak", "taylor"}) {
    CAPTURE(variant);
    const auto doc = task1(K, 0, variant, {{"plugin", "deterministic"}, {"step", "convex"}}, 5, 20, 40, 0.5, 2.0);
    Problem engine = make(doc);
    const auto traj = run(engine, 7, K, 0, /*keep_y=*/true, /*final_report=*/false);
    REQUIRE(traj.y.size() == static_cast<size_t>(K));

    // A direct transcription of the Basic Method of Vladarean et al.: exact f and J at y_k,
    // x_{k+1} = GLMO(f(y_k), J(y_k), y_k), y_{k+1} = (1 - 2/(k+2)) y_k + 2/(k+2) x_{k+1},
    // with its own GLMO instance and its own copy of the problem.
    Problem direct = make(doc);
    const int d = direct.oracle->dim(), n = direct.oracle->outputs();
    Vec y = direct.domain->initial_point(), f(n), x(d);
    Mat J(n, d);
    double worst = 0;
    for (long k = 0; k < K; ++k) {
      direct.oracle->exact(y, &f, &J);
      direct.gap_glmo->solve(f, J, y, x);
      const double gamma = 2.0 / (k + 2.0);
      y = (1.0 - gamma) * y + gamma * x;
      worst = std::max(worst, (y - traj.y[static_cast<size_t>(k)]).cwiseAbs().maxCoeff());
    }
    CHECK(worst <= 1e-10);
  }
}

TEST_CASE("Corollary 1, convex case: phi(y_K) - phi* <= 2 S / (K + 1) on an instance with a known minimizer") {
  // Noise-free synthetic data: b = A x*, ||x*||_1 = 4 < radius 5, so phi* = max_i f_i(x*) = 0.
  const int tasks = 4, dim = 12;
  auto base = task1(10, 0, "taylor", {{"plugin", "deterministic"}, {"step", "convex"}}, tasks, dim, 30, 0.0, 5.0);
  Problem probe = make(base);
  // S <= L_F * L * D^2 * sqrt(n) (Proposition "Bounded composite curvature"): L_F = 1 for max,
  // D = 2 * radius, and L = sqrt(sum_i ||H_i||_2^2) bounds the Lipschitz constant of the
  // Jacobian, where H_i is the (constant) Hessian of f_i, read off the exact Jacobian.
  const int n = probe.oracle->outputs(), d = probe.oracle->dim();
  Vec f(n);
  Mat J0(n, d), Jj(n, d);
  probe.oracle->exact(Vec::Zero(d), &f, &J0);
  std::vector<Eigen::MatrixXd> H(static_cast<size_t>(n), Eigen::MatrixXd(d, d));
  for (int j = 0; j < d; ++j) {
    probe.oracle->exact(Vec::Unit(d, j), &f, &Jj);
    for (int i = 0; i < n; ++i) H[static_cast<size_t>(i)].col(j) = (Jj.row(i) - J0.row(i)).transpose();
  }
  double L2 = 0;
  for (const auto& h : H) {
    const double lmax = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(0.5 * (h + h.transpose())).eigenvalues().maxCoeff();
    L2 += lmax * lmax;
  }
  const double S = 1.0 * std::sqrt(L2) * 10.0 * 10.0 * std::sqrt(static_cast<double>(n));

  for (long K : {5L, 20L, 80L, 320L}) {
    CAPTURE(K);
    base["iterations"] = K;
    Problem p = make(base);
    const auto t = run(p, 1, K, 0);
    REQUIRE(t.summary.has_gap);
    // Generalized gap upper-bounds the primal gap in the convex case (Lemma "primal gap").
    CHECK(t.summary.final_objective >= -1e-12);
    CHECK(t.summary.final_objective <= 2.0 * S / (K + 1.0));
    CHECK(t.summary.final_gap >= t.summary.final_objective - 1e-9);
  }
}

TEST_CASE("same file and seed give a bitwise identical trace; reports on or off give identical iterates") {
  const long K = 400;
  const auto doc = task1(K, 1, "taylor", {{"plugin", "nonconvex"}, {"r", 2}});
  Problem a = make(doc), b = make(doc), c = make(doc), e = make(doc);
  const auto ta = run(a, 11, K, 25, true);
  const auto tb = run(b, 11, K, 25, true);
  REQUIRE(ta.gaps.size() == 16);
  CHECK(ta.gaps == tb.gaps);  // bitwise
  CHECK(ta.summary.y == tb.summary.y);

  const auto tc = run(c, 11, K, 0, true, /*final_report=*/false);
  REQUIRE(tc.gaps.empty());
  bool identical = true;
  for (size_t k = 0; k < ta.y.size(); ++k) identical = identical && (ta.y[k] == tc.y[k]);
  CHECK(identical);

  const auto te = run(e, 12, K, 0, false, false);
  CHECK_FALSE(te.summary.y == ta.summary.y);  // the seed matters
}

TEST_CASE("K iterations are K oracle draws and K GLMO calls") {
  const long K = 37;
  Problem p = make(task1(K, 2, "polyak", {{"plugin", "nonconvex"}, {"r", 2}}));
  const auto t = run(p, 3, K, 0, false, false);
  CHECK(t.summary.iterations == K);
  CHECK(t.summary.calls.draws == K);
  CHECK(t.summary.calls.glmo_solves == K);
  CHECK(t.summary.calls.exact == 0);
}
