// The outer functions of the paper (Section 4 and Appendix "Additional Examples") as plugins —
// `cvar`, `dro_chi2`, `norm`, `regularized`, `fairness`, `penalty` — the `l2_ball` domain, and the
// `clp` GLMO's second-order cones (outer-approximation cuts), loaded as real plugins.
//
//   (a) no point among 10^4 random feasible points plus the enumerable vertices (or 2000
//       boundary points of the l2 ball) beats the GLMO's certified lower bound, and over a fine
//       grid in d = 2 the GLMO's value is at most the grid minimum;
//   (b) independent formulations: CVaR by the Rockafellar-Uryasev formula at the ceil(alpha n)-th
//       order statistic; the chi^2-DRO supremum by bisection on the multiplier of the ball with
//       Euclidean projections onto the simplex; min ||z + x - y||_2 in closed form over the l2
//       ball and over a box;
//   (c) value(u, x) equals the GLMO's objective at the returned point; the returned point is
//       feasible; the monotone / subhomogeneous / Lipschitz claims hold on random points and the
//       flags that are false are false for a reason (a counterexample);
//   (d) warm re-solves (cut pool and basis kept) agree with cold solves (a fresh GLMO) along a
//       drift of (z, V, y), for every cone case;
//   plus scfw::conformance::check_outer_model on every outer, and printed cone-solve figures.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "scfw/conformance.hpp"
#include "plugin_support.hpp"
#include "scfw/helpers.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/scfw.hpp"

using namespace scfw;
using namespace scfw::test;

namespace {

std::unique_ptr<Glmo> make_clp(int d, int n, bool warm = true, double tolerance = 1e-7) {
  return make<Glmo>("clp",
                    params({{"algorithm", std::string("dual")}, {"warm_start", warm}, {"tolerance", tolerance}}),
                    context(d, n));
}

// ---------------------------------------------------------------------------------------------
// Outer configurations and domains

struct OuterCase {
  std::string plugin;
  nlohmann::json p;
  bool cone = false;  // the model has a second-order cone
  std::string label() const { return plugin + p.dump(); }
};

std::vector<OuterCase> outer_cases(int d, int n) {
  std::vector<double> c(static_cast<size_t>(d));
  for (int j = 0; j < d; ++j) c[static_cast<size_t>(j)] = 0.3 * std::sin(1.0 + j);
  std::vector<double> tau(static_cast<size_t>(n - 1));
  for (int i = 0; i < n - 1; ++i) tau[static_cast<size_t>(i)] = 0.2 * std::cos(2.0 + i);
  return {
      {"cvar", {{"alpha", 0.3}}},  // alpha n = 1.5 for n = 5: fractional
      {"cvar", {{"alpha", 0.05}}},
      {"cvar", {{"alpha", 0.6}}},
      {"dro_chi2", {{"rho", 0.5}}, true},
      {"dro_chi2", {{"rho", 3.0}}, true},
      {"norm", {{"p", std::string("1")}}},
      {"norm", {{"p", std::string("2")}}, true},
      {"norm", {{"p", std::string("inf")}}},
      {"regularized", {{"regularizer", std::string("l1")}, {"lambda", 0.4}, {"c", c}}},
      {"regularized", {{"regularizer", std::string("l2")}, {"lambda", 0.7}, {"c", std::vector<double>{0.2}}}, true},
      {"regularized", {{"regularizer", std::string("linf")}, {"lambda", 0.5}}},
      {"regularized", {{"regularizer", std::string("none")}, {"c", c}}},
      {"fairness", {{"lambda", 0.7}, {"regularizer", std::string("l2")}, {"mu", 0.2}}, true},
      {"fairness", {{"lambda", 1.5}, {"regularizer", std::string("l1")}, {"mu", 0.1}}},
      {"penalty", {{"lambda", 2.0}, {"tau", tau}, {"c", std::vector<double>{0.5}}}},
      {"penalty", {{"lambda", 0.5}}},
  };
}

std::unique_ptr<OuterFunction> make_outer(const OuterCase& oc, int d, int n) {
  return make<OuterFunction>(oc.plugin, params(oc.p), context(d, n));
}

enum class DomKind { L1, Simplex, Box, L2 };

struct DomainCase {
  DomKind kind;
  std::unique_ptr<Domain> domain;
  double radius = 1.0;  // l1/l2 radius, simplex scale
  Vec lo, hi;           // box
  std::string label;
};

DomainCase make_domain(DomKind kind, int d, int n) {
  DomainCase dc;
  dc.kind = kind;
  const nlohmann::json dim = d;
  // A ball or simplex of size r: the plugin with its size parameter `key` = r.
  auto sized = [&](const std::string& plugin, const char* key, double r) {
    dc.radius = r;
    dc.domain = make<Domain>(plugin, params({{key, r}, {"dim", dim}}), context(d, n));
    dc.label = plugin + "(" + format_number(r) + ")";
  };
  switch (kind) {
    case DomKind::L1:
      sized("l1_ball", "radius", 1.5);
      break;
    case DomKind::Simplex:
      sized("simplex", "scale", 2.0);
      break;
    case DomKind::Box: {
      std::vector<double> lo(static_cast<size_t>(d)), hi(static_cast<size_t>(d));
      for (int j = 0; j < d; ++j) {
        lo[static_cast<size_t>(j)] = -1.0 + 0.25 * (j % 3);
        hi[static_cast<size_t>(j)] = 1.0 + 0.5 * (j % 2);
      }
      dc.lo = Eigen::Map<Vec>(lo.data(), d);
      dc.hi = Eigen::Map<Vec>(hi.data(), d);
      dc.domain = make<Domain>("box", params({{"lower", lo}, {"upper", hi}, {"dim", dim}}), context(d, n));
      dc.label = "box";
      break;
    }
    case DomKind::L2:
      sized("l2_ball", "radius", 1.2);
      break;
  }
  return dc;
}

Vec random_point(const DomainCase& dc, int d, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal;
  std::exponential_distribution<double> expo(1.0);
  Vec x(d);
  switch (dc.kind) {
    case DomKind::L1: {
      for (int j = 0; j < d; ++j) x[j] = (unit(rng) < 0.5 ? -1.0 : 1.0) * expo(rng);
      const double s = unit(rng) < 0.3 ? 1.0 : std::pow(unit(rng), 1.0 / d);
      return dc.radius * s * x / x.lpNorm<1>();
    }
    case DomKind::Simplex: {
      for (int j = 0; j < d; ++j) x[j] = std::pow(expo(rng), 3.0);  // spread toward the faces
      return dc.radius * x / x.sum();
    }
    case DomKind::Box:
      for (int j = 0; j < d; ++j) x[j] = dc.lo[j] + (dc.hi[j] - dc.lo[j]) * unit(rng);
      return x;
    case DomKind::L2: {
      for (int j = 0; j < d; ++j) x[j] = normal(rng);
      const double s = unit(rng) < 0.3 ? 1.0 : std::pow(unit(rng), 1.0 / d);
      return dc.radius * s * x / x.norm();
    }
  }
  return x;
}

// The vertices (extreme points) of the domain; for the l2 ball, 2000 random boundary points.
std::vector<Vec> vertices(const DomainCase& dc, int d, std::mt19937_64& rng) {
  std::vector<Vec> v;
  switch (dc.kind) {
    case DomKind::L1:
      for (int j = 0; j < d; ++j)
        for (double s : {-1.0, 1.0}) v.push_back(s * dc.radius * Vec::Unit(d, j));
      break;
    case DomKind::Simplex:
      for (int j = 0; j < d; ++j) v.push_back(dc.radius * Vec::Unit(d, j));
      break;
    case DomKind::Box:
      for (int mask = 0; mask < (1 << d); ++mask) {
        Vec x(d);
        for (int j = 0; j < d; ++j) x[j] = (mask >> j) & 1 ? dc.hi[j] : dc.lo[j];
        v.push_back(x);
      }
      break;
    case DomKind::L2: {
      std::normal_distribution<double> normal;
      for (int k = 0; k < 2000; ++k) {
        Vec x(d);
        for (int j = 0; j < d; ++j) x[j] = normal(rng);
        v.push_back(dc.radius * x / x.norm());
      }
      break;
    }
  }
  return v;
}

Vec surrogate(const Instance& in, const Vec& x) { return in.z + in.V * (x - in.y); }
double objective(const OuterFunction& F, const Instance& in, const Vec& x) { return F.value(surrogate(in, x), x); }

// The last solve's figures from describe(): "... last solve: R LP solves, C cuts added)".
struct ConeFigures {
  long rounds = 0, cuts = 0;
};
ConeFigures figures(const Glmo& g) {
  ConeFigures f;
  const std::string s = g.describe();
  const auto at = s.find("last solve: ");
  if (at != std::string::npos) std::sscanf(s.c_str() + at, "last solve: %ld LP solves, %ld cuts added", &f.rounds, &f.cuts);
  return f;
}

// ---------------------------------------------------------------------------------------------
// Independent formulations

// Rockafellar-Uryasev at the optimal tau, the ceil(alpha n)-th largest u (the alpha-quantile of
// the losses): tau + 1/(alpha n) sum_i max(0, u_i - tau).
double cvar_ru(const Vec& u, double alpha) {
  const int n = static_cast<int>(u.size());
  std::vector<double> s(u.data(), u.data() + n);
  std::sort(s.begin(), s.end(), std::greater<double>());
  const double a = alpha * n;
  const int k = std::clamp(static_cast<int>(std::ceil(a - 1e-12)), 1, n);
  const double tau = s[static_cast<size_t>(k - 1)];
  double sum = 0.0;
  for (double v : s) sum += std::max(0.0, v - tau);
  return tau + sum / a;
}

// Euclidean projection onto the probability simplex (sort-based).
Vec project_simplex(const Vec& v) {
  const int n = static_cast<int>(v.size());
  std::vector<double> s(v.data(), v.data() + n);
  std::sort(s.begin(), s.end(), std::greater<double>());
  double cum = 0.0, theta = 0.0;
  for (int i = 0; i < n; ++i) {
    cum += s[static_cast<size_t>(i)];
    const double t = (cum - 1.0) / (i + 1);
    if (s[static_cast<size_t>(i)] - t > 0) theta = t;
  }
  return (v.array() - theta).max(0.0).matrix();
}

// sup { q^T u : q in simplex, n ||q - 1/n||^2 <= rho } by its Lagrangian in the ball:
// q(lambda) = Proj_simplex(1/n + u / lambda) maximizes q^T u - lambda/2 ||q - 1/n||^2; the
// distance ||q(lambda) - 1/n|| falls as lambda grows: bisect (in log lambda) for the radius.
double chi2_sup(const Vec& u, double rho) {
  const int n = static_cast<int>(u.size());
  const double r = std::sqrt(rho / n);
  const Vec p = Vec::Constant(n, 1.0 / n);
  Eigen::Index imax = 0;
  u.maxCoeff(&imax);
  if ((Vec::Unit(n, imax) - p).norm() <= r) return u[imax];
  double lo = -40.0, hi = 40.0;  // log lambda
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    const Vec q = project_simplex(p + u / std::exp(mid));
    if ((q - p).norm() > r)
      lo = mid;
    else
      hi = mid;
  }
  const Vec q = project_simplex(p + u / std::exp(hi));
  return q.dot(u);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

TEST_CASE("(b) CVaR: value() and the RU LP equal the RU formula at the alpha-quantile") {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  for (int n : {1, 2, 5, 7, 20}) {
    for (double alpha : {0.05, 0.2, 0.3, 0.5, 0.77, 0.99}) {
      CAPTURE(n);
      CAPTURE(alpha);
      auto F = make<OuterFunction>("cvar", params({{"alpha", alpha}}), context(1, n));
      auto glmo = make_clp(1, n);
      for (int trial = 0; trial < 20; ++trial) {
        Vec u(n);
        for (int i = 0; i < n; ++i) u[i] = normal(rng);
        if (trial % 4 == 0 && n > 2) u[1] = u[0];  // ties
        const double ref = cvar_ru(u, alpha);
        CHECK(F->value(u, Vec::Zero(1)) == doctest::Approx(ref).epsilon(1e-12));
        // The LP over the single point x = 0 (V = 0): its minimum is F(u).
        auto single = make<Domain>("box",
                                   params({{"lower", std::vector<double>{0.0}}, {"upper", std::vector<double>{0.0}},
                                           {"dim", std::int64_t{1}}}),
                                   context(1, n));
        glmo->setup(*F, *single, n, 1);
        Vec x(1);
        const GlmoResult r = glmo->solve(u, Mat(Mat::Zero(n, 1)), Vec::Zero(1), x);
        CHECK(r.value == doctest::Approx(ref).epsilon(1e-9));
        CHECK(r.lower_bound == r.value);  // an LP: exact
      }
    }
  }
  // Sanity of the reference itself: alpha n integer -> the mean of the top alpha n.
  const Vec u = (Vec(4) << 3.0, -1.0, 5.0, 0.0).finished();
  CHECK(cvar_ru(u, 0.5) == doctest::Approx(4.0));
  CHECK(cvar_ru(u, 0.375) == doctest::Approx((5.0 + 0.5 * 3.0) / 1.5));  // alpha n = 1.5
  CHECK(cvar_ru(u, 0.1) == doctest::Approx(5.0));                         // alpha n < 1: the max
}

// (Once skipped: at n = 15, rho = 3 the clp GLMO's cut loop on the 15-entry cone stalled at a
// certified gap of about 3e-6; clp now lifts the cone to 2-D cones, see plugins/glmo/clp/clp.cpp.)
TEST_CASE("(b) chi^2-DRO: value() and the cone model equal the supremum by bisection and projection") {
  std::mt19937_64 rng(12);
  std::normal_distribution<double> normal;
  for (int n : {1, 2, 3, 6, 15}) {
    for (double rho : {0.05, 0.5, 1.0, 3.0, 20.0}) {
      CAPTURE(n);
      CAPTURE(rho);
      auto F = make<OuterFunction>("dro_chi2", params({{"rho", rho}}), context(1, n));
      auto glmo = make_clp(1, n);
      auto single = make<Domain>("box",
                                 params({{"lower", std::vector<double>{0.0}}, {"upper", std::vector<double>{0.0}},
                                         {"dim", std::int64_t{1}}}),
                                 context(1, n));
      glmo->setup(*F, *single, n, 1);
      for (int trial = 0; trial < 15; ++trial) {
        Vec u(n);
        for (int i = 0; i < n; ++i) u[i] = 2.0 * normal(rng);
        if (trial % 5 == 0 && n > 2) u[2] = u[1];
        const double ref = chi2_sup(u, rho);
        CHECK(F->value(u, Vec::Zero(1)) == doctest::Approx(ref).epsilon(1e-8));
        Vec x(1);
        const GlmoResult r = glmo->solve(u, Mat(Mat::Zero(n, 1)), Vec::Zero(1), x);
        // value(): F at the (only) feasible point; the LP bound within the tolerance.
        CHECK(r.value == doctest::Approx(ref).epsilon(1e-8));
        CHECK(r.lower_bound <= ref + 1e-9 * std::max(1.0, std::abs(ref)));
        CHECK(ref - r.lower_bound <= 1e-7 * std::max(1.0, std::abs(ref)) + 1e-12);
      }
    }
  }
  // A hand-checkable case: u = (1, 0), n = 2, rho = 1: the ball ||q - 1/2|| <= 1/sqrt(2) holds
  // e_1 (distance 1/sqrt(2)): F = max u = 1. With rho = 0.5: q = (1/2 + 1/2, ...)?  radius 1/2:
  // q - p = (a, -a) with sqrt(2) a = 1/2: q_1 = 1/2 + 1/(2 sqrt 2).
  auto F1 = make<OuterFunction>("dro_chi2", params({{"rho", 1.0}}), context(1, 2));
  CHECK(F1->value((Vec(2) << 1.0, 0.0).finished(), Vec::Zero(1)) == doctest::Approx(1.0));
  auto F2 = make<OuterFunction>("dro_chi2", params({{"rho", 0.5}}), context(1, 2));
  CHECK(F2->value((Vec(2) << 1.0, 0.0).finished(), Vec::Zero(1)) == doctest::Approx(0.5 + 0.5 / std::sqrt(2.0)));
}

TEST_CASE("(b) norm p = 2: the cone GLMO equals the closed forms over the l2 ball and a box (V = I)") {
  std::mt19937_64 rng(13);
  std::normal_distribution<double> normal;
  const int d = 6, n = 6;
  auto F = make<OuterFunction>("norm", params({{"p", std::string("2")}}), context(d, n));
  for (DomKind kind : {DomKind::L2, DomKind::Box}) {
    DomainCase dc = make_domain(kind, d, n);
    CAPTURE(dc.label);
    auto glmo = make_clp(d, n);
    glmo->setup(*F, *dc.domain, n, d);
    for (int trial = 0; trial < 30; ++trial) {
      Instance in{Vec(n), Mat::Identity(n, d), random_point(dc, d, rng)};
      for (int i = 0; i < n; ++i) in.z[i] = (trial % 3 == 0 ? 0.3 : 2.0) * normal(rng);
      // min_x ||z + x - y||: w = y - z is the unconstrained minimizer.
      const Vec w = in.y - in.z;
      Vec xstar;
      if (kind == DomKind::L2)
        xstar = w.norm() <= dc.radius ? w : Vec(dc.radius * w / w.norm());
      else
        xstar = w.cwiseMax(dc.lo).cwiseMin(dc.hi);
      const double ref = (in.z + xstar - in.y).norm();
      Vec x(d);
      const GlmoResult r = glmo->solve(in.z, in.V, in.y, x);
      CAPTURE(trial);
      CAPTURE(r.lower_bound);
      CAPTURE(glmo->describe());
      CHECK(r.value >= ref - 1e-12);
      CHECK(r.value - ref <= 1e-7 * std::max(1.0, ref) + 1e-12);
      CHECK(r.lower_bound <= ref + 1e-9);
      CHECK(dc.domain->contains(x, 1e-12));
      // x* is the projection of w onto X, so ||w - x||^2 >= ||w - x*||^2 + ||x - x*||^2: the
      // value's excess bounds the distance, ||x - x*||^2 <= (value - ref)(value + ref).
      CHECK((x - xstar).norm() <= std::sqrt(std::max(0.0, (r.value - ref) * (r.value + ref))) + 1e-9);
    }
  }
}

TEST_CASE("(a) + (c): no random feasible point or vertex beats the GLMO; value() matches at its point") {
  const int d = 4, n = 5;
  std::mt19937_64 rng(14);
  long cone_solves = 0, cone_rounds = 0, cone_cuts = 0;
  for (const OuterCase& oc : outer_cases(d, n)) {
    auto F = make_outer(oc, d, n);
    for (DomKind kind : {DomKind::L1, DomKind::Simplex, DomKind::Box, DomKind::L2}) {
      DomainCase dc = make_domain(kind, d, n);
      CAPTURE(oc.label());
      CAPTURE(dc.label);
      auto glmo = make_clp(d, n);
      glmo->setup(*F, *dc.domain, n, d);
      std::vector<Vec> points = vertices(dc, d, rng);
      for (int k = 0; k < 10000; ++k) points.push_back(random_point(dc, d, rng));
      for (int trial = 0; trial < 3; ++trial) {
        const Instance in = random_instance(*dc.domain, n, rng);
        Vec x(d);
        const GlmoResult r = glmo->solve(in.z, in.V, in.y, x);
        const double scale = std::max(1.0, std::abs(r.value));
        // (c) the returned point is feasible and value() there is the reported value.
        CHECK(dc.domain->contains(x, 1e-9));
        CHECK(objective(*F, in, x) == doctest::Approx(r.value).epsilon(1e-9));
        CHECK(r.lower_bound <= r.value + 1e-12);
        CHECK(r.value - r.lower_bound <= 1e-7 * scale + 1e-12);
        if (!oc.cone && kind != DomKind::L2) CHECK(r.value - r.lower_bound <= 1e-12 * scale);
        if (oc.cone || kind == DomKind::L2) {
          const ConeFigures f = figures(*glmo);
          ++cone_solves;
          cone_rounds += f.rounds;
          cone_cuts += f.cuts;
        }
        // (a) the certified lower bound is below every feasible point's objective.
        double best = inf;
        for (const Vec& p : points) best = std::min(best, objective(*F, in, p));
        CHECK(best >= r.lower_bound - 1e-9 * scale);
        CHECK(r.value <= best + 1e-9 * scale);
      }
    }
  }
  std::printf("[outer functions, d = %d, n = %d] cone solves: %ld, mean LP solves per GLMO solve %.2f, "
              "mean cuts added per solve %.2f\n",
              d, n, cone_solves, double(cone_rounds) / std::max(1L, cone_solves),
              double(cone_cuts) / std::max(1L, cone_solves));
}

TEST_CASE("(a) in d = 2: the GLMO's value is the minimum over a fine grid of the box and the l2 ball") {
  const int d = 2, n = 5;
  std::mt19937_64 rng(15);
  for (const OuterCase& oc : outer_cases(d, n)) {
    auto F = make_outer(oc, d, n);
    for (DomKind kind : {DomKind::Box, DomKind::L2}) {
      DomainCase dc = make_domain(kind, d, n);
      CAPTURE(oc.label());
      CAPTURE(dc.label);
      auto glmo = make_clp(d, n);
      glmo->setup(*F, *dc.domain, n, d);
      // The grid: 301 x 301 over the bounding box, plus 2000 boundary points for the ball.
      std::vector<Vec> grid;
      const Vec lo = kind == DomKind::Box ? dc.lo : Vec::Constant(d, -dc.radius);
      const Vec hi = kind == DomKind::Box ? dc.hi : Vec::Constant(d, dc.radius);
      const int m = 300;
      for (int a = 0; a <= m; ++a)
        for (int b = 0; b <= m; ++b) {
          Vec x(2);
          x << lo[0] + (hi[0] - lo[0]) * a / m, lo[1] + (hi[1] - lo[1]) * b / m;
          if (dc.domain->contains(x, 0.0)) grid.push_back(x);
        }
      if (kind == DomKind::L2)
        for (int k = 0; k < 2000; ++k) {
          const double th = 2.0 * M_PI * k / 2000;
          grid.push_back(dc.radius * (Vec(2) << std::cos(th), std::sin(th)).finished());
        }
      for (int trial = 0; trial < 2; ++trial) {
        const Instance in = random_instance(*dc.domain, n, rng);
        Vec x(d);
        const GlmoResult r = glmo->solve(in.z, in.V, in.y, x);
        double best = inf;
        for (const Vec& p : grid) best = std::min(best, objective(*F, in, p));
        const double scale = std::max(1.0, std::abs(r.value));
        CHECK(r.value <= best + 1e-9 * scale);
        // The grid is fine: its minimum is within O(h) of the true one (h ~ 0.01, slopes ~ 10).
        CHECK(best - r.lower_bound <= 0.2);
      }
    }
  }
}

TEST_CASE("(c) flags: monotone, subhomogeneous and L_F hold where claimed; false flags have counterexamples") {
  const int d = 4, n = 5;
  std::mt19937_64 rng(16);
  std::uniform_real_distribution<double> unif(-3.0, 3.0), unit(0.0, 1.0);
  for (const OuterCase& oc : outer_cases(d, n)) {
    auto F = make_outer(oc, d, n);
    const OuterTraits tr = F->traits();
    CAPTURE(oc.label());
    CAPTURE(tr.formula);
    CHECK(!tr.formula.empty());
    CHECK(std::isfinite(tr.lipschitz));
    bool monotone_broken = false, subhom_broken = false;
    double lipschitz_ratio = 0.0;
    for (int k = 0; k < 5000; ++k) {
      Vec u(n), x(d), u2(n);
      for (int i = 0; i < n; ++i) u[i] = unif(rng);
      for (int j = 0; j < d; ++j) x[j] = unif(rng);
      const double f = F->value(u, x);
      const double tol = 1e-12 * std::max(1.0, std::abs(f));
      // monotone: raise a random subset
      u2 = u;
      for (int i = 0; i < n; ++i)
        if (unit(rng) < 0.5) u2[i] += 2.0 * unit(rng);
      const bool mono_ok = F->value(u2, x) >= f - tol;
      if (tr.monotone) CHECK(mono_ok);
      monotone_broken = monotone_broken || !mono_ok;
      // subhomogeneous
      const double g = 1.0 + 3.0 * unit(rng);
      const bool sub_ok = F->value(g * u, x) <= g * f + 1e-12 * std::max(1.0, std::abs(g * f));
      if (tr.subhomogeneous) CHECK(sub_ok);
      subhom_broken = subhom_broken || !sub_ok;
      // Lipschitz in u (Euclidean)
      for (int i = 0; i < n; ++i) u2[i] = u[i] + (k % 2 ? 1e-3 : 1.0) * unif(rng);
      const double ratio = std::abs(F->value(u2, x) - f) / (u2 - u).norm();
      CHECK(ratio <= tr.lipschitz * (1.0 + 1e-9));
      lipschitz_ratio = std::max(lipschitz_ratio, ratio);
    }
    // A false flag is false for a reason: random points found a violation.
    if (!tr.monotone) CHECK_MESSAGE(monotone_broken, "monotone = false but no counterexample found");
    if (!tr.subhomogeneous) CHECK_MESSAGE(subhom_broken, "subhomogeneous = false but no counterexample found");
    std::printf("[flags] %-55s L_F = %-8.4g observed max |dF|/|du| = %.4g  monotone %d  subhomogeneous %d\n",
                oc.label().c_str(), tr.lipschitz, lipschitz_ratio, tr.monotone, tr.subhomogeneous);
  }
}

TEST_CASE("(c) paper constants: CVaR L_F = 1/(alpha sqrt n), chi^2-DRO L_F = sqrt((1 + rho)/n), norm p = 1 sqrt(n)") {
  const int n = 16;
  auto cvar = make<OuterFunction>("cvar", params({{"alpha", 0.25}}), context(3, n));
  CHECK(cvar->traits().lipschitz == doctest::Approx(1.0 / (0.25 * 4.0)));
  CHECK(cvar->traits().monotone);
  CHECK(cvar->traits().subhomogeneous);
  CHECK_FALSE(cvar->traits().depends_on_x);
  auto chi = make<OuterFunction>("dro_chi2", params({{"rho", 3.0}}), context(3, n));
  CHECK(chi->traits().lipschitz == doctest::Approx(std::sqrt(4.0 / 16.0)));
  auto n1 = make<OuterFunction>("norm", params({{"p", std::string("1")}}), context(3, n));
  CHECK(n1->traits().lipschitz == doctest::Approx(4.0));
  CHECK_FALSE(n1->traits().monotone);
  auto n2 = make<OuterFunction>("norm", params({{"p", std::string("2")}}), context(3, n));
  CHECK(n2->traits().lipschitz == 1.0);
  auto reg = make<OuterFunction>("regularized", {}, context(3, n));
  CHECK(reg->traits().depends_on_x);
  CHECK(reg->traits().subhomogeneous);  // c = 0 by default
  auto pen = make<OuterFunction>("penalty", params({{"tau", std::vector<double>{0.5}}}), context(3, n));
  CHECK_FALSE(pen->traits().subhomogeneous);  // tau > 0
  auto fair = make<OuterFunction>("fairness", {}, context(3, n));
  CHECK_FALSE(fair->traits().monotone);
  CHECK(fair->traits().lipschitz == doctest::Approx(std::sqrt(4.0 + 1.0)));
}

TEST_CASE("conformance::check_outer_model passes on every outer function") {
  const int d = 4, n = 5;
  for (const OuterCase& oc : outer_cases(d, n)) {
    CAPTURE(oc.label());
    auto F = make_outer(oc, d, n);
    auto glmo = make_clp(d, n);
    const auto singleton = [&](const Vec& x) {
      std::vector<double> v(x.data(), x.data() + x.size());
      return make<Domain>("box", params({{"lower", v}, {"upper", v}, {"dim", std::int64_t{d}}}),
                          context(d, n));
    };
    conformance::OuterCheckOptions opt;
    opt.points = 40;
    const conformance::Report rep = conformance::check_outer_model(*F, n, d, *glmo, singleton, opt);
    CHECK_MESSAGE(rep.ok, rep.message);
  }
}

namespace {

/// An outer function over a domain of one kind, d x n: the cases of the cone tests below.
struct ConeCase {
  OuterCase outer;
  DomKind kind;
  int d = 100, n = 10;  // Task 1's size
};

/// One step of a momentum-like drift of the GLMO's data: each entry of z, then of V (row by row),
/// moves by `step` N(0, 1).
void drift(Instance& in, double step, std::mt19937_64& rng, std::normal_distribution<double>& normal) {
  for (Eigen::Index i = 0; i < in.z.size(); ++i) in.z[i] += step * normal(rng);
  for (Eigen::Index i = 0; i < in.V.rows(); ++i)
    for (Eigen::Index j = 0; j < in.V.cols(); ++j) in.V(i, j) += step * normal(rng);
}

}  // namespace

TEST_CASE("(d) cones: warm re-solves agree with cold solves along a drift of (z, V, y)") {
  std::mt19937_64 rng(17);
  std::normal_distribution<double> normal;
  const std::vector<ConeCase> cases = {
      {{"norm", {{"p", std::string("2")}}, true}, DomKind::L1, 20, 5},
      {{"dro_chi2", {{"rho", 1.0}}, true}, DomKind::Simplex, 20, 8},
      {{"max", {}}, DomKind::L2, 20, 5},
      {{"regularized", {{"regularizer", std::string("l2")}, {"lambda", 0.5}}, true}, DomKind::Box, 10, 3},
      {{"fairness", {{"lambda", 0.5}, {"regularizer", std::string("l2")}, {"mu", 0.3}}, true}, DomKind::L2, 10, 4},
      {{"norm", {{"p", std::string("2")}}, true}, DomKind::L2, 15, 15},
  };
  for (const ConeCase& c : cases) {
    CAPTURE(c.outer.label());
    DomainCase dc = make_domain(c.kind, c.d, c.n);
    CAPTURE(dc.label);
    auto F = make_outer(c.outer, c.d, c.n);
    auto warm = make_clp(c.d, c.n, true);
    auto slack = make_clp(c.d, c.n, false);  // warm_start = false: slack basis, cut pool kept
    warm->setup(*F, *dc.domain, c.n, c.d);
    slack->setup(*F, *dc.domain, c.n, c.d);
    Instance in = random_instance(*dc.domain, c.n, rng);
    long warm_iters = 0, cold_iters = 0, warm_cuts = 0, cold_cuts = 0, warm_rounds = 0, cold_rounds = 0;
    const int steps = 30;
    for (int k = 0; k < steps; ++k) {
      CAPTURE(k);
      Vec xw(c.d), xs(c.d), xc(c.d);
      const GlmoResult rw = warm->solve(in.z, in.V, in.y, xw);
      const GlmoResult rs = slack->solve(in.z, in.V, in.y, xs);
      auto cold = make_clp(c.d, c.n, true);  // a fresh GLMO: no basis, no cut pool
      cold->setup(*F, *dc.domain, c.n, c.d);
      const GlmoResult rc = cold->solve(in.z, in.V, in.y, xc);
      const double scale = std::max(1.0, std::abs(rc.value));
      for (const GlmoResult* r : {&rw, &rs}) {
        // Agreement within the certified gaps (each gap is <= 1e-7 relative when the cut loop
        // converges within its round cap, as it now does for every case here).
        const double gaps = (r->value - r->lower_bound) + (rc.value - rc.lower_bound);
        CHECK(std::abs(r->value - rc.value) <= gaps + 1e-7 * scale + 1e-12);
        // Each solve's feasible value is above the other's lower bound (certified up to Clp's
        // own optimality tolerances: measured overshoots ~1e-9, so 1e-7 relative is allowed).
        CHECK(r->lower_bound <= rc.value + 1e-7 * scale);
        CHECK(rc.lower_bound <= r->value + 1e-7 * scale);
      }
      CHECK(objective(*F, in, xw) == doctest::Approx(rw.value).epsilon(1e-9));
      CHECK(dc.domain->contains(xw, 1e-9));
      warm_iters += rw.iterations;
      cold_iters += rc.iterations;
      const ConeFigures fw = figures(*warm), fc = figures(*cold);
      warm_cuts += fw.cuts;
      cold_cuts += fc.cuts;
      warm_rounds += fw.rounds;
      cold_rounds += fc.rounds;
      drift(in, 0.05, rng, normal);
      in.y = 0.9 * in.y + 0.1 * xw;
    }
    std::printf("[warm vs cold] %-40s %-12s d=%d n=%d: per solve warm %.1f LP solves / %.1f cuts / %.1f simplex its; "
                "cold %.1f / %.1f / %.1f\n",
                c.outer.label().c_str(), dc.label.c_str(), c.d, c.n, double(warm_rounds) / steps,
                double(warm_cuts) / steps, double(warm_iters) / steps, double(cold_rounds) / steps,
                double(cold_cuts) / steps, double(cold_iters) / steps);
  }
}

// Task-1-sized cone GLMOs along a drift: every solve certified (value minus its lower bound) within
// the default relative gap 1e-7, its point in the domain; the work per solve is printed.
TEST_CASE("cone solves on Task-1-sized GLMOs (d = 100, n = 10) are certified within their tolerance") {
  std::mt19937_64 rng(18);
  std::normal_distribution<double> normal;
  const std::vector<ConeCase> cases = {
      {{"norm", {{"p", std::string("2")}}, true}, DomKind::L1},
      {{"dro_chi2", {{"rho", 1.0}}, true}, DomKind::Simplex},
      {{"max", {}}, DomKind::L2},
      {{"cvar", {{"alpha", 0.2}}}, DomKind::L2},
  };
  const int steps = 25;
  for (const ConeCase& c : cases) {
    const int d = c.d, n = c.n;
    DomainCase dc = make_domain(c.kind, d, n);
    auto F = make_outer(c.outer, d, n);
    auto glmo = make_clp(d, n);
    glmo->setup(*F, *dc.domain, n, d);
    Instance in = random_instance(*dc.domain, n, rng);
    long its = 0, cuts = 0, rounds = 0, max_rounds = 0;
    double worst_gap = 0.0;
    Vec x(d);
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < steps; ++k) {
      const GlmoResult r = glmo->solve(in.z, in.V, in.y, x);
      worst_gap = std::max(worst_gap, (r.value - r.lower_bound) / std::max(1.0, std::abs(r.value)));
      CHECK(dc.domain->contains(x, 1e-9));
      its += r.iterations;
      const ConeFigures f = figures(*glmo);
      cuts += f.cuts;
      rounds += f.rounds;
      max_rounds = std::max(max_rounds, f.rounds);
      drift(in, 0.02, rng, normal);
      const double gamma = 2.0 / (k + 3);
      in.y = (1 - gamma) * in.y + gamma * x;
    }
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / steps;
    CHECK(worst_gap <= 1e-7);
    std::printf("[figures] %-28s over %-14s d=%d n=%d: per solve %.1f LP solves (max %ld), %.1f cuts, %.1f simplex its, "
                "%.0f us; worst relative gap %.2g\n  %s\n",
                c.outer.label().c_str(), dc.label.c_str(), d, n, double(rounds) / steps, max_rounds,
                double(cuts) / steps, double(its) / steps, us, worst_gap, glmo->describe().c_str());
  }
}

TEST_CASE("l2_ball: LMO, contains, model and parameter errors") {
  const int d = 3;
  auto ball = make<Domain>("l2_ball", params({{"radius", 2.0}, {"dim", std::int64_t{d}}}), context(d, 1));
  Vec x(d);
  lmo_dense(*ball, (Vec(3) << 3.0, 0.0, -4.0).finished(), x);
  CHECK((x - (Vec(3) << -1.2, 0.0, 1.6).finished()).norm() <= 1e-12);
  lmo_dense(*ball, Vec::Zero(d), x);
  CHECK(x.norm() == doctest::Approx(2.0));
  CHECK(ball->contains(x, 0.0));
  CHECK_FALSE(ball->contains(Vec::Constant(d, 1.2), 1e-9));
  CHECK(ball->initial_point().norm() == 0.0);
  Model m;
  const auto xs = ball->model(m);
  CHECK(xs.size() == 3);
  REQUIRE(m.cones().size() == 1);
  CHECK(m.cones()[0].t.constant() == 2.0);
  CHECK(m.cones()[0].xs.size() == 3);
  // The LMO agrees with the clp GLMO and `linear`.
  auto lin = make<OuterFunction>("linear", {}, context(d, 1));
  auto glmo = make_clp(d, 1);
  glmo->setup(*lin, *ball, 1, d);
  const Vec g = (Vec(3) << 0.3, -1.0, 0.5).finished();
  Vec xg(d), xl(d);
  const GlmoResult r = glmo->solve(Vec::Zero(1), Mat(g.transpose()), Vec::Zero(d), xg);
  lmo_dense(*ball, g, xl);
  CHECK(r.value == doctest::Approx(g.dot(xl)).epsilon(1e-7));
  CHECK((xg - xl).norm() <= 1e-3);
  CHECK_THROWS_WITH_AS(make<Domain>("l2_ball", params({{"radius", -1.0}, {"dim", std::int64_t{d}}}),
                                    context(d, 1)),
                       doctest::Contains("radius"), InputError);
}

TEST_CASE("parameter errors name the parameter") {
  CHECK_THROWS_WITH_AS(make<OuterFunction>("cvar", params({{"alpha", 1.5}}), context(2, 3)),
                       doctest::Contains("alpha: expected a number in [1e-6, 1), got 1.5"), InputError);
  CHECK_THROWS_WITH_AS(make<OuterFunction>("dro_chi2", params({{"rho", 0.0}}), context(2, 3)),
                       doctest::Contains("rho: expected a number in (0, 1e6], got 0.0"), InputError);
  CHECK_THROWS_WITH_AS(make<OuterFunction>("norm", params({{"p", std::string("3")}}), context(2, 3)),
                       doctest::Contains("p: expected one of"), InputError);
  CHECK_THROWS_WITH_AS(make<OuterFunction>("regularized",
                                           params({{"c", std::vector<double>{1.0, 2.0, 3.0}}}), context(2, 3)),
                       doctest::Contains("c: expected 1 or 2 numbers"), InputError);
  CHECK_THROWS_WITH_AS(make<OuterFunction>("penalty",
                                           params({{"tau", std::vector<double>{1.0, 2.0, 3.0}}}), context(2, 3)),
                       doctest::Contains("tau: expected 1 or 2 numbers"), InputError);
  CHECK_THROWS_WITH_AS(make<OuterFunction>("penalty", params({{"lambda", 0.0}}), context(2, 3)),
                       doctest::Contains("lambda: expected a number in (0, 1e8], got 0.0"), InputError);
  CHECK_THROWS_AS(make<OuterFunction>("fairness", {}, context(2, 1)), InputError);
  CHECK_THROWS_WITH_AS(make_clp(2, 3, true, -1.0), doctest::Contains("tolerance: expected a number > 0"), InputError);
}
