// The accelerated trackers (`storm`, `hessian`), the paper's two baselines (`vanilla`, `clipped`)
// and the `storm` schedule, checked against the paper's formulas through the public SDK API.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine_support.hpp"

using namespace scfw;
using scfw::test::make;
using scfw::test::registry;
using scfw::test::task1;

namespace {

/// A small Task 1 instance (m = 3 tasks, d = 10) with the given tracker and schedule blocks.
nlohmann::json small(nlohmann::json tracker, nlohmann::json schedule = {{"plugin", "storm"}}) {
  nlohmann::json doc = task1(100, 1, "taylor", std::move(schedule), 3, 10, 50);
  doc["tracker"] = std::move(tracker);
  return doc;
}

/// A tracker made straight from its registered factory (defaults filled in), not yet bound.
std::unique_ptr<Tracker> make_tracker(const std::string& name, const nlohmann::json& params, int n, int d) {
  REQUIRE_MESSAGE(registry().find(Kind::Tracker, name) != nullptr, "tracker plugin not found: " << name);
  Context ctx;
  ctx.dim = d;
  ctx.outputs = n;
  return registry().make<Tracker>(name, params, ctx, "test.json", "/tracker");
}

double max_abs(const Mat& m) { return m.cwiseAbs().maxCoeff(); }
double max_abs(const Vec& v) { return v.cwiseAbs().maxCoeff(); }

/// A point in R^d away from 0 (inside the radius-5 l1 ball of Task 1).
Vec point(int d, double lo, double hi) { return Vec::LinSpaced(d, lo, hi); }

/// alpha ~ U[0, 1) as the `hessian` tracker documents it: one engine word, (word >> 11) * 2^-53.
double uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// A test-local oracle with a non-constant Hessian, so that where the Hessian is evaluated along
// the segment matters:  f~_i(x; w) = w_i sum_j cos(x_j + i),  w_i = 1 + N(0, 1) / 2,
//   J~_ij = -w_i sin(x_j + i),   (H~_i v)_j = -w_i cos(x_j + i) v_j,   E w_i = 1.
// `with_hessian = false` makes an oracle that genuinely lacks the Hessian action.
class CosineSample final : public Sample {
 public:
  Vec w;
};

class CosineOracle final : public Oracle {
 public:
  CosineOracle(int n, int d, bool with_hessian) : n_(n), d_(d), with_hessian_(with_hessian) {}
  int dim() const override { return d_; }
  int outputs() const override { return n_; }
  std::unique_ptr<Sample> make_sample() const override {
    auto s = std::make_unique<CosineSample>();
    s->w.setOnes(n_);
    return s;
  }
  void draw(Rng& rng, Sample& s) const override {
    auto& w = static_cast<CosineSample&>(s).w;
    std::normal_distribution<double> g(0.0, 1.0);
    for (int i = 0; i < n_; ++i) w[i] = 1.0 + 0.5 * g(rng);
  }
  void evaluate(const Sample& s, const Vec& x, Vec* f, Jacobian* J) const override {
    eval(static_cast<const CosineSample&>(s).w, x, f, J ? &J->dense() : nullptr);
  }
  void exact(const Vec& x, Vec* f, Jacobian* J) const override { eval(Vec::Ones(n_), x, f, J ? &J->dense() : nullptr); }
  Capabilities capabilities() const override {
    return with_hessian_ ? Capability::Exact | Capability::HessianAction : Capabilities(Capability::Exact);
  }
  void hessian_action(const Sample& s, const Vec& x, const Vec& v, Mat& out) const override {
    if (!with_hessian_) Oracle::hessian_action(s, x, v, out);
    const Vec& w = static_cast<const CosineSample&>(s).w;
    for (int i = 0; i < n_; ++i)
      for (int j = 0; j < d_; ++j) out(i, j) = -w[i] * std::cos(x[j] + i) * v[j];
  }

 private:
  void eval(const Vec& w, const Vec& x, Vec* f, Mat* J) const {
    for (int i = 0; i < n_; ++i) {
      if (f) (*f)[i] = w[i] * (x.array() + i).cos().sum();
      if (J)
        for (int j = 0; j < d_; ++j) (*J)(i, j) = -w[i] * std::sin(x[j] + i);
    }
  }
  int n_, d_;
  bool with_hessian_;
};

/// Mean and standard error of each entry of the tracker's V_1 over `draws` updates from y0 to y1
/// at `steps`, each from V = 0, on one engine seeded with `seed` after start() at y0.
struct MeanSe {
  Mat mean, se;
};
MeanSe mean_of_updates(Tracker& tracker, const Vec& y0, const Vec& y1, const Steps& steps, std::uint64_t seed,
                       long draws, int n, int d) {
  Rng rng(seed);
  Vec z(n);
  Mat V(n, d), sum = Mat::Zero(n, d), sum_sq = Mat::Zero(n, d);
  tracker.start(y0, rng, z, V);
  for (long t = 0; t < draws; ++t) {
    V.setZero();
    tracker.update(1, y1, y0, steps, rng, z, V);
    sum += V;
    sum_sq += V.cwiseProduct(V);
  }
  const double N = static_cast<double>(draws);
  MeanSe r{sum / N, Mat(n, d)};
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < d; ++j) {
      const double var = std::max(0.0, sum_sq(i, j) / N - r.mean(i, j) * r.mean(i, j)) * N / (N - 1.0);
      r.se(i, j) = std::sqrt(var / N);
    }
  return r;
}

/// Componentwise |estimate - exact| <= 4 SE (plus a rounding floor for zero-variance entries).
bool within_4se(const Mat& estimate, const Mat& exact, const Mat& se, double* worst_z = nullptr) {
  bool ok = true;
  double worst = 0.0;
  for (Eigen::Index i = 0; i < exact.rows(); ++i)
    for (Eigen::Index j = 0; j < exact.cols(); ++j) {
      const double err = std::abs(estimate(i, j) - exact(i, j));
      if (err > 4.0 * se(i, j) + 1e-10 * (1.0 + std::abs(exact(i, j)))) ok = false;
      if (se(i, j) > 0) worst = std::max(worst, err / se(i, j));
    }
  if (worst_z) *worst_z = worst;
  return ok;
}

}  // namespace

TEST_CASE("storm: one update equals eq. storm_grad and the Taylor value tracker, by hand") {
  Composition p = make(small({{"plugin", "storm"}}));
  const Oracle& o = *p.problem.oracle;
  const int n = o.outputs(), d = o.dim();

  const Vec y0 = point(d, -0.2, 0.3), y1 = point(d, 0.4, -0.1), y2 = point(d, 0.1, 0.35);
  const Steps s1{0.1, 0.3, 0.2}, s2{0.1, 0.6, 0.45};
  Rng rng(42);
  Vec z(n);
  Mat V(n, d);
  p.method.tracker->start(y0, rng, z, V);
  p.method.tracker->update(1, y1, y0, s1, rng, z, V);
  p.method.tracker->update(2, y2, y1, s2, rng, z, V);

  // The same stream by hand: xi_0 at y_0; xi_1 at y_1 and y_0; xi_2 at y_2 and y_1.
  Rng r2(42);
  auto xi = o.make_sample();
  Vec zh(n), f(n);
  Mat Vh(n, d), Jk(n, d), Jprev(n, d);
  o.draw(r2, *xi);
  o.evaluate(*xi, y0, &zh, test::as_jacobian(Vh));
  const Vec* ys[3] = {&y0, &y1, &y2};
  const Steps* steps[2] = {&s1, &s2};
  double storm_vs_polyak = 0.0;
  for (int k = 1; k <= 2; ++k) {
    const Vec &y = *ys[k], &yp = *ys[k - 1];
    const Steps& st = *steps[k - 1];
    o.draw(r2, *xi);
    o.evaluate(*xi, y, &f, test::as_jacobian(Jk));
    o.evaluate(*xi, yp, nullptr, test::as_jacobian(Jprev));
    const Mat polyak = (1 - st.beta) * Vh + st.beta * Jk;
    Vh = Jk + (1 - st.beta) * (Vh - Jprev);  // eq. storm_grad
    zh = (1 - st.rho) * (zh + Vh * (y - yp)) + st.rho * f;
    storm_vs_polyak = std::max(storm_vs_polyak, max_abs(Mat(Vh - polyak)));
  }
  const double scale = std::max(1.0, max_abs(Vh));
  CHECK(max_abs(Mat(V - Vh)) <= 1e-12 * scale);
  CHECK(max_abs(Vec(z - zh)) <= 1e-12 * std::max(1.0, max_abs(zh)));
  // The correction is not a no-op here: STORM differs from the Polyak tracker on this stream.
  CHECK(storm_vs_polyak > 1e-3 * scale);
  // One draw per update: the tracker consumed exactly the stream the hand computation did.
  CHECK(rng() == r2());
}

TEST_CASE("hessian: one update equals eq. hessian_grad and the Taylor value tracker, by hand") {
  Composition p = make(small({{"plugin", "hessian"}}));
  const Oracle& o = *p.problem.oracle;
  REQUIRE(o.capabilities().has(Capability::HessianAction));
  const int n = o.outputs(), d = o.dim();

  const Vec y0 = point(d, -0.2, 0.3), y1 = point(d, 0.4, -0.1);
  const Steps st{0.1, 0.3, 0.2};
  Rng rng(7);
  Vec z(n);
  Mat V(n, d);
  p.method.tracker->start(y0, rng, z, V);
  p.method.tracker->update(1, y1, y0, st, rng, z, V);

  // By hand, in the documented order: xi_0; then xi_1, alpha_1, zeta_1.
  Rng r2(7);
  auto xi = o.make_sample(), zeta = o.make_sample();
  Vec z0(n), f1(n);
  Mat V0(n, d), J1(n, d), HV(n, d);
  o.draw(r2, *xi);
  o.evaluate(*xi, y0, &z0, test::as_jacobian(V0));
  o.draw(r2, *xi);
  o.evaluate(*xi, y1, &f1, test::as_jacobian(J1));
  const double alpha = uniform01(r2);
  const Vec y_alpha = y0 + alpha * (y1 - y0);
  o.draw(r2, *zeta);
  o.hessian_action(*zeta, y_alpha, y1 - y0, HV);
  const Mat Vh = (1 - st.beta) * V0 + st.beta * J1 + (1 - st.beta) * HV;  // eq. hessian_grad
  const Vec zh = (1 - st.rho) * (z0 + Vh * (y1 - y0)) + st.rho * f1;

  CHECK(max_abs(Mat(V - Vh)) <= 1e-12 * std::max(1.0, max_abs(Vh)));
  CHECK(max_abs(Vec(z - zh)) <= 1e-12 * std::max(1.0, max_abs(zh)));
  CHECK(max_abs(HV) > 1e-3);  // the correction term is really there
  CHECK(rng() == r2());
}

TEST_CASE("hessian: the correction is unbiased for J(y_k) - J(y_{k-1}) (Lemma hessian_unbiased)") {
  // With beta = 0 and V_{k-1} = 0, eq. hessian_grad leaves exactly V_k = H~(y_alpha; zeta)(y_k - y_{k-1}),
  // so the plugin's own draws of (alpha, zeta) are averaged. 10^5 draws, 4 standard errors.
  const long draws = 100000;
  const Steps only_correction{0.1, 0.0, 0.5};

  SUBCASE("Task 1 least squares (m = 3, d = 10): constant Hessian") {
    Composition p = make(small({{"plugin", "hessian"}}));
    const Oracle& o = *p.problem.oracle;
    const int n = o.outputs(), d = o.dim();
    const Vec y0 = point(d, -0.2, 0.3), y1 = point(d, 0.4, -0.1);
    Mat J0(n, d), J1(n, d);
    o.exact(y0, nullptr, test::as_jacobian(J0));
    o.exact(y1, nullptr, test::as_jacobian(J1));
    const Mat exact = J1 - J0;

    const MeanSe m = mean_of_updates(*p.method.tracker, y0, y1, only_correction, 3, draws, n, d);
    double z_max = 0;
    CHECK(within_4se(m.mean, exact, m.se, &z_max));
    MESSAGE("least squares: max |mean - exact| / SE = " << z_max << " over " << n * d << " entries");
  }

  SUBCASE("cosine oracle: the Hessian varies along the segment, so alpha ~ U(0,1) matters") {
    const int n = 2, d = 4;
    CosineOracle o(n, d, true);
    auto tracker = make_tracker("hessian", nlohmann::json::object(), n, d);
    tracker->bind(o);
    const Vec y0 = point(d, -1.0, 0.5), y1 = point(d, 0.8, -0.6);  // a long step: curvature shows
    Mat J0(n, d), J1(n, d), H1(n, d);
    o.exact(y0, nullptr, test::as_jacobian(J0));
    o.exact(y1, nullptr, test::as_jacobian(J1));
    const Mat exact = J1 - J0;

    const MeanSe m = mean_of_updates(*tracker, y0, y1, only_correction, 11, draws, n, d);
    double z_max = 0;
    CHECK(within_4se(m.mean, exact, m.se, &z_max));
    MESSAGE("cosine: max |mean - exact| / SE = " << z_max << " over " << n * d << " entries");

    // The test can fail: the exact Hessian at the end point y_k (alpha = 1 always) misses the
    // Jacobian difference by far more than 4 standard errors.
    auto s = o.make_sample();
    static_cast<CosineSample&>(*s).w.setOnes(n);
    o.hessian_action(*s, y1, y1 - y0, H1);
    double z_end = 0;
    CHECK_FALSE(within_4se(H1, exact, m.se, &z_end));
    MESSAGE("cosine: the end-point Hessian is off by up to " << z_end << " SE");
  }
}

TEST_CASE("hessian: refused at bind() when the oracle lacks the Hessian action") {
  CosineOracle without(2, 3, false);
  auto tracker = make_tracker("hessian", nlohmann::json::object(), 2, 3);
  CHECK_THROWS_WITH_AS(tracker->bind(without),
                       "tracker \"hessian\" needs the oracle's Hessian action, which this oracle does not provide",
                       CapabilityError);
  CosineOracle with(2, 3, true);
  CHECK_NOTHROW(tracker->bind(with));
  // The trackers that need no Hessian bind to the same oracle.
  for (const char* name : {"storm", "vanilla", "clipped"}) {
    auto t = make_tracker(name, nlohmann::json::object(), 2, 3);
    CHECK_NOTHROW(t->bind(without));
  }
}

TEST_CASE("vanilla: z and V are the plug-in single-sample estimates; beta and rho are ignored") {
  Composition p = make(small({{"plugin", "vanilla"}}));
  const Oracle& o = *p.problem.oracle;
  const int n = o.outputs(), d = o.dim();
  const Vec y0 = point(d, -0.2, 0.3), y1 = point(d, 0.4, -0.1);
  Rng rng(5), r2(5);
  Vec z(n), f(n);
  Mat V(n, d), J(n, d);
  auto xi = o.make_sample();
  p.method.tracker->start(y0, rng, z, V);
  p.method.tracker->update(1, y1, y0, Steps{0.1, 0.01, 0.01}, rng, z, V);
  o.draw(r2, *xi);
  o.evaluate(*xi, y0, &f, test::as_jacobian(J));
  o.draw(r2, *xi);
  o.evaluate(*xi, y1, &f, test::as_jacobian(J));
  CHECK((V.array() == J.array()).all());
  CHECK((z.array() == f.array()).all());
  CHECK(rng() == r2());
}

TEST_CASE("clipped: ||V||_F <= C always, J~ * C/||J~||_F when above, bitwise J~ when within") {
  const int draws = 2000;
  // First the raw Jacobian norms on this stream, to put C at their median: half the draws are
  // clipped and half are not.
  Composition raw = make(small({{"plugin", "vanilla"}}));
  const Oracle& o = *raw.problem.oracle;
  const int n = o.outputs(), d = o.dim();
  std::vector<Vec> ys;
  for (int t = 0; t <= draws; ++t) ys.push_back(point(d, -0.3 + 0.0003 * t, 0.4 - 0.0002 * t));
  std::vector<Mat> Js;
  std::vector<Vec> fs;
  {
    Rng r(9);
    auto xi = o.make_sample();
    Vec f(n);
    Mat J(n, d);
    for (int t = 0; t <= draws; ++t) {
      o.draw(r, *xi);
      o.evaluate(*xi, ys[t], &f, test::as_jacobian(J));
      Js.push_back(J);
      fs.push_back(f);
    }
  }
  std::vector<double> norms;
  for (const Mat& J : Js) norms.push_back(J.norm());
  std::vector<double> sorted = norms;
  std::nth_element(sorted.begin(), sorted.begin() + draws / 2, sorted.end());
  const double C = sorted[draws / 2];

  Composition p = make(small({{"plugin", "clipped"}, {"threshold", C}}));
  Rng rng(9);
  Vec z(n);
  Mat V(n, d);
  int clipped = 0, untouched = 0, naive_overshoots = 0, violations = 0, wrong = 0;
  for (int t = 0; t <= draws; ++t) {
    if (t == 0)
      p.method.tracker->start(ys[0], rng, z, V);
    else
      p.method.tracker->update(t, ys[t], ys[t - 1], Steps{0.1, 0.2, 0.2}, rng, z, V);
    if (V.norm() > C) ++violations;
    if (!(z.array() == fs[t].array()).all()) ++wrong;  // the value estimate is not clipped
    if (norms[t] <= C) {
      ++untouched;
      if (!(V.array() == Js[t].array()).all()) ++wrong;
    } else {
      ++clipped;
      const Mat expect = Js[t] * (C / norms[t]);
      if (expect.norm() > C) ++naive_overshoots;
      if (max_abs(Mat(V - expect)) > 1e-14 * max_abs(expect) || V.norm() < C * (1 - 1e-14)) ++wrong;
    }
  }
  MESSAGE("C = " << C << ": " << clipped << " clipped, " << untouched << " untouched; the naive J * C/||J|| "
                 << "lands above C in " << naive_overshoots << " of the clipped draws");
  CHECK(clipped > draws / 4);
  CHECK(untouched > draws / 4);
  CHECK(violations == 0);
  CHECK(wrong == 0);
}

TEST_CASE("clipped: the threshold must be a number > 0") {
  nlohmann::json doc = small({{"plugin", "clipped"}, {"threshold", 0}});
  CHECK_THROWS_WITH_AS(make(doc), "test.json: /tracker/threshold: expected a number > 0, got 0", InputError);
}

TEST_CASE("storm schedule: gamma = beta = rho = K^-(r/(2r-1)) for every k, r in (1, 2]") {
  for (double r : {2.0, 1.5, 1.2}) {
    Composition p = make(small({{"plugin", "storm"}}, {{"plugin", "storm"}, {"r", r}}));
    for (long K : {1L, 1000L, 20000L}) {
      const double want = std::pow(static_cast<double>(K), -r / (2 * r - 1));
      for (long k : {0L, K / 2, K - 1}) {
        const Steps s = p.method.schedule->at(k, K);
        CHECK(s.gamma == doctest::Approx(want).epsilon(1e-14));
        CHECK(s.beta == s.gamma);
        CHECK(s.rho == s.gamma);
      }
    }
  }
  // r = 2: K^-2/3 (Theorem storm_rate), e.g. 0.01 at K = 1000.
  Composition p = make(small({{"plugin", "storm"}}));
  CHECK(p.method.schedule->at(0, 1000).gamma == doctest::Approx(0.01).epsilon(1e-12));
  CHECK_THROWS_WITH_AS(make(small({{"plugin", "storm"}}, {{"plugin", "storm"}, {"r", 1}})),
                       "test.json: /schedule/r: expected a number in (1, 2], got 1", InputError);
}

TEST_CASE("every schedule with a noise moment r honours it (nonconvex, convex, storm at r = 1.5)") {
  const double r = 1.5;
  const long K = 10000;
  const double Kd = static_cast<double>(K);
  {
    Composition p = make(small({{"plugin", "storm"}}, {{"plugin", "nonconvex"}, {"r", r}}));
    const Steps s = p.method.schedule->at(K / 3, K);  // Thm 1: K^-((2r-1)/(3r-2)) = K^-0.8, K^-(r/(3r-2)) = K^-0.6
    CHECK(s.gamma == doctest::Approx(std::pow(Kd, -0.8)).epsilon(1e-13));
    CHECK(s.beta == doctest::Approx(std::pow(Kd, -0.6)).epsilon(1e-13));
    CHECK(s.rho == s.beta);
  }
  {
    Composition p = make(small({{"plugin", "storm"}}, {{"plugin", "convex"}, {"r", r}, {"k0", 10}}));
    const Steps s = p.method.schedule->at(90, K);  // Thm 2: min{1, c0 / (k + k0)^(r/(2r-1))} = 100^-0.75
    CHECK(s.gamma == doctest::Approx(2.0 / 92.0).epsilon(1e-13));
    CHECK(s.beta == doctest::Approx(std::pow(100.0, -0.75)).epsilon(1e-13));
    CHECK(s.rho == s.beta);
  }
  {
    Composition p = make(small({{"plugin", "storm"}}, {{"plugin", "storm"}, {"r", r}}));
    CHECK(p.method.schedule->at(0, K).gamma == doctest::Approx(std::pow(Kd, -0.75)).epsilon(1e-13));  // K^-(r/(2r-1))
  }
}
