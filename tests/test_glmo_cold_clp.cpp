// The one cold Clp solve of the GLMO LP (plugins/lp/cold_clp.hpp, lp::ColdClp) and every exact
// GLMO through V = 0, where every coefficient of the u-rows is an exact zero:
//
//   * lp::ColdClp on V = 0 and on V with zero rows and columns: Clp gets the LP without its
//     explicit zeros (it asserts on one in its row copy) and its optimum is the closed form
//     (V = 0: u = z whatever x is, so `max` gives max_i z_i) or F(z, x) at its own x;
//   * clp, dense_simplex, scenario_dual, max_l1 and column_generation each solve the same
//     instances and agree with lp::ColdClp within 1e-9 (relative), with x in the domain and
//     F(z + V (x - y), x) at x equal to the value; dense_simplex, scenario_dual and max_l1 run with
//     cross_check on, so their own cold solve (the same lp::ColdClp) runs on every instance too.
//     clp is Clp itself (its warm model keeps every u-row slot stored, see plugins/glmo/clp) and
//     column_generation knows the domain by its LMO: for both, lp::ColdClp is the independent
//     solve;
//   * every exact GLMO (scenario_dual with its dual and with its primal simplex) against
//     lp::ColdClp along sequences solved warm, without cross_check (so that no solve is answered
//     by the GLMO's own Clp): random instances, degenerate ones (tied and duplicate rows, zero
//     columns, V = 0, rank-one V with z = 0, integer data) and momentum-like drifts
//     V_{k+1} = (1 - b) V_k + b G_k (b = 0.01, 0.1), each within 1e-9 (relative), with x in the
//     domain and F(z + V (x - y), x) at x equal to the value;
//   * cross_check runs clean on correct answers that a cold Clp solve at Clp's default
//     tolerances (1e-7) disagreed with: the minimax LP over the l1 ball whose gradient has two
//     coordinates tied to 5e-9 in magnitude (Clp's defaults stop at the wrong one; the optimum
//     is z - g^T y - r ||g||_inf in closed form), and max over a wide simplex with large V,
//     whose value is a small difference of large terms (the optimum by enumerating the vertices
//     of the epigraph LP in long double);
//   * the fallback's and cross_check's errors, word for word.
#include <doctest/doctest.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "plugin_support.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/scfw.hpp"

#include "cold_clp.hpp"
#include "glmo_lp.hpp"

using namespace scfw;
using namespace scfw::test;

namespace {

std::unique_ptr<OuterFunction> make_cvar(int d, int n) {
  return make<OuterFunction>("cvar_ru", params({{"alpha", 0.9}}), context(d, n));
}
std::unique_ptr<Domain> make_simplex_interval(int d, int n) {
  return make<Domain>("simplex_interval", params({{"dim", d}}), context(d, n));
}

struct Problem {
  std::string name;
  std::unique_ptr<OuterFunction> outer;
  std::unique_ptr<Domain> domain;
  int n, d;
  std::vector<std::string> glmos;  // the GLMOs that take it
  bool closed_form_max = false;    // `max`: the V = 0 optimum is max_i z_i

  /// The reference of every test here: the GLMO LP solved cold by Clp.
  lp::ColdClp cold() const { return lp::ColdClp(lp::build_model("test", *outer, *domain, n, d)); }
};

std::vector<Problem> problems() {
  std::vector<Problem> p;
  // n = 40 rows per 2 d + 1 = 9 structural columns: scenario_dual's shape; max over the l1 ball:
  // max_l1's.
  p.push_back({"max over l1_ball, n = 40, d = 4", make_max(4, 40), make_l1(4, 40, 2.0), 40, 4,
               {"clp", "dense_simplex", "scenario_dual", "max_l1", "column_generation"}, true});
  p.push_back({"cvar_ru over simplex_interval, n = 60, d = 6", make_cvar(6, 60), make_simplex_interval(6, 60), 60, 6,
               {"clp", "dense_simplex", "scenario_dual", "column_generation"}, false});
  return p;
}

std::unique_ptr<Glmo> make_glmo(const std::string& name, int d, int n) {
  if (name == "clp") return make<Glmo>("clp", {}, context(d, n));
  if (name == "scenario_dual/primal") return make<Glmo>("scenario_dual", params({{"algorithm", "primal"}}), context(d, n));
  if (name == "column_generation")
    return make<Glmo>("column_generation", params({{"tolerance", 1e-11}}), context(d, n));
  return make<Glmo>(name, params({{"cross_check", true}}), context(d, n));
}

// The V = 0 instances: V = 0 with z random, then with z all equal (every row of the max ties),
// then V with a zero row and a zero column (explicit zeros beside nonzeros).
std::vector<Instance> instances(const Domain& domain, int n, std::mt19937_64& rng) {
  std::vector<Instance> out;
  for (int k = 0; k < 3; ++k) {
    Instance in = random_instance(domain, n, rng);
    in.V.setZero();
    out.push_back(in);
  }
  Instance flat = random_instance(domain, n, rng);
  flat.V.setZero();
  flat.z.setConstant(0.25);
  out.push_back(flat);
  for (int k = 0; k < 3; ++k) {
    Instance in = random_instance(domain, n, rng);
    in.V.row(k % n).setZero();
    in.V.col(k % domain.dim()).setZero();
    out.push_back(in);
  }
  return out;
}

// The GLMO's answer on one instance against lp::ColdClp's: the values within 1e-9 (relative), x
// in the domain and F(z + V (x - y), x) at x equal to the value.
GlmoResult check_against_cold(Glmo& glmo, const lp::ColdClp& cold, const Problem& p, const Instance& in, Vec& x) {
  Vec xr(p.d);
  x.resize(p.d);
  const GlmoResult r = glmo.solve(in.z, in.V, in.y, x);
  const lp::ColdClp::Result ref = cold.solve(in.z, in.V, in.y, xr);
  REQUIRE(ref.status == 0);
  CHECK(rel_diff(r.value, ref.value) <= 1e-9);
  CHECK(p.domain->contains(x, 1e-8));
  const Vec u = in.z + in.V * (x - in.y);
  CHECK(rel_diff(p.outer->value(u, x), r.value) <= 1e-9);
  return r;
}

}  // namespace

TEST_CASE("every exact GLMO agrees with lp::ColdClp along random, degenerate and drifting sequences") {
  for (const Problem& p : problems()) {
    const lp::ColdClp cold = p.cold();
    std::vector<std::string> names;
    for (const std::string& name : p.glmos)
      if (name != "clp") names.push_back(name);
    names.push_back("scenario_dual/primal");
    for (const std::string& name : names) {
      CAPTURE(p.name);
      CAPTURE(name);
      const bool own_params = name == "column_generation" || name == "scenario_dual/primal";
      auto glmo = own_params ? make_glmo(name, p.d, p.n) : make<Glmo>(name, {}, context(p.d, p.n));
      glmo->setup(*p.outer, *p.domain, p.n, p.d);
      std::mt19937_64 rng(11);  // the same sequences for every GLMO
      std::normal_distribution<double> normal;
      int checked = 0;
      auto check = [&](const Instance& in) {
        Vec x;
        check_against_cold(*glmo, cold, p, in, x);
        ++checked;
        return x;
      };
      for (int k = 0; k < 20; ++k) {
        CAPTURE(k);
        check(random_instance(*p.domain, p.n, rng, k % 2 == 1));
      }
      for (int k = 0; k < 24; ++k) {
        CAPTURE(k);
        Instance in = random_instance(*p.domain, p.n, rng);
        make_degenerate(in, k % 6, rng);
        check(in);
      }
      for (const double b : {0.01, 0.1}) {
        CAPTURE(b);
        Instance in = random_instance(*p.domain, p.n, rng);
        for (int k = 0; k < 150; ++k) {
          CAPTURE(k);
          for (int i = 0; i < p.n; ++i) {
            in.z[i] = (1.0 - b) * in.z[i] + b * normal(rng);
            for (int j = 0; j < p.d; ++j) in.V(i, j) = (1.0 - b) * in.V(i, j) + b * normal(rng);
          }
          const Vec x = check(in);
          in.y = (1.0 - b) * in.y + b * x;
        }
      }
      CHECK(checked == 20 + 24 + 300);
      CHECK(glmo->describe().find("fell back") == std::string::npos);  // every answer its own
    }
  }
}

TEST_CASE("lp::ColdClp solves V = 0 and V with zero rows and columns (no explicit zero reaches Clp)") {
  std::mt19937_64 rng(5);
  for (const Problem& p : problems()) {
    CAPTURE(p.name);
    const lp::ColdClp cold = p.cold();
    int k = 0;
    for (const Instance& in : instances(*p.domain, p.n, rng)) {
      CAPTURE(k++);
      Vec x(p.d);
      const lp::ColdClp::Result r = cold.solve(in.z, in.V, in.y, x);
      REQUIRE(r.status == 0);
      CHECK(p.domain->contains(x, 1e-8));
      const Vec u = in.z + in.V * (x - in.y);
      CHECK(rel_diff(p.outer->value(u, x), r.value) <= 1e-9);
      if (p.closed_form_max && in.V.isZero(0.0)) CHECK(rel_diff(r.value, in.z.maxCoeff()) <= 1e-12);
    }
  }
}

TEST_CASE("every exact GLMO agrees with lp::ColdClp through V = 0 (cross_check on where it exists)") {
  for (const Problem& p : problems()) {
    const lp::ColdClp cold = p.cold();
    for (const std::string& name : p.glmos) {
      CAPTURE(p.name);
      CAPTURE(name);
      auto glmo = make_glmo(name, p.d, p.n);
      glmo->setup(*p.outer, *p.domain, p.n, p.d);
      std::mt19937_64 rng(5);  // the same instances for every GLMO
      int k = 0;
      for (const Instance& in : instances(*p.domain, p.n, rng)) {
        CAPTURE(k++);
        Vec x;
        const GlmoResult r = check_against_cold(*glmo, cold, p, in, x);
        if (p.closed_form_max && in.V.isZero(0.0)) CHECK(rel_diff(r.value, in.z.maxCoeff()) <= 1e-12);
      }
    }
  }
}

TEST_CASE("lp::ColdClp's fallback and cross_check errors, word for word") {
  const int n = 3, d = 2;
  const Problem p{"max over l1_ball, n = 3, d = 2", make_max(d, n), make_l1(d, n, 1.0), n, d, {}};
  const lp::ColdClp cold = p.cold();
  Instance in{Vec::Zero(n), Mat::Zero(n, d), Vec::Zero(d)};
  in.z << 0.5, 1.5, -1.0;
  Vec x(d);
  const lp::ColdClp::Result r = cold.solve_or_throw("g", in.z, in.V, in.y, x);
  CHECK(r.value == 1.5);
  CHECK_NOTHROW(cold.check("g", 7, 1.5 + 1e-10, in.z, in.V, in.y));
  CHECK_THROWS_WITH(cold.check("g", 7, 1.5001, in.z, in.V, in.y),
                    "g: disagrees with Clp at solve 7: g 1.5001, Clp 1.5 (status 0)");
}

TEST_CASE("cross_check accepts the optimum of a minimax LP whose gradient ties to 5e-9") {
  // F(u) = max_i u_i over the l1 ball of radius 5, three rows with the same gradient g and z
  // spaced by 1, so that row 0 is the max everywhere: the optimum is z_0 - g^T y - 5 ||g||_inf,
  // at 5 sign(g_j) e_j for the largest |g_j|. The |g_j| differ by multiples of 5e-9: a solve whose
  // reduced costs are trusted to 1e-7 may stop at another coordinate, 5e-9 r (or more) above.
  const int n = 3, d = 4;
  const double r = 5.0;
  const Problem p{"max over l1_ball, r = 5", make_max(d, n), make_l1(d, n, r), n, d, {"dense_simplex", "max_l1"}};
  const lp::ColdClp cold = p.cold();
  for (const std::string& name : p.glmos) {
    CAPTURE(name);
    auto glmo = make_glmo(name, d, n);  // cross_check on
    glmo->setup(*p.outer, *p.domain, n, d);
    std::mt19937_64 rng(1);
    std::normal_distribution<double> normal;
    std::uniform_int_distribution<int> tie(0, 3), sign(0, 1);
    for (int k = 0; k < 20; ++k) {
      CAPTURE(k);
      Instance in = random_instance(*p.domain, n, rng);
      Vec g(d);
      for (int j = 0; j < d; ++j) g[j] = (sign(rng) ? -1.0 : 1.0) * (1.0 + 5e-9 * tie(rng));
      const double z0 = 1.0 + 0.1 * normal(rng);
      for (int i = 0; i < n; ++i) {
        in.z[i] = z0 - i;
        in.V.row(i) = g.transpose();
      }
      long double optimum = z0;
      for (int j = 0; j < d; ++j) optimum -= static_cast<long double>(g[j]) * in.y[j];
      optimum -= r * static_cast<long double>(g.cwiseAbs().maxCoeff());
      Vec x(d), xr(d);
      const GlmoResult res = glmo->solve(in.z, in.V, in.y, x);  // cross_check: the cold solve too
      const lp::ColdClp::Result ref = cold.solve(in.z, in.V, in.y, xr);
      REQUIRE(ref.status == 0);
      // Another coordinate is at least 5e-9 r = 2.5e-8 above the optimum; Clp's x holds the
      // radius to its primal tolerance.
      CHECK(rel_diff(res.value, static_cast<double>(optimum)) <= 1e-12);
      CHECK(rel_diff(ref.value, static_cast<double>(optimum)) <= 1e-10);
      CHECK(p.domain->contains(x, 1e-12));
      CHECK(rel_diff(p.outer->value(in.z + in.V * (x - in.y), x), res.value) <= 1e-14);
    }
    CHECK(glmo->describe().find("fell back") == std::string::npos);
  }
}

namespace {

// min over {x >= 0, sum x = s} of max_i z_i + V_i (x - y) (d = 3) by enumeration in long double:
// the optimum of the epigraph LP (x, t) is at a point where sum x = s and 3 of the n + 3
// inequalities t >= z_i + V_i (x - y), x_j >= 0 hold with equality.
long double simplex_minimax_by_vertices(const Instance& in, double s) {
  using LD = long double;
  using M4 = Eigen::Matrix<LD, 4, 4>;
  using V4 = Eigen::Matrix<LD, 4, 1>;
  const int n = static_cast<int>(in.z.size()), d = 3, m = n + d;
  auto u = [&](int i, const V4& p) {
    LD v = in.z[i];
    for (int j = 0; j < d; ++j) v += static_cast<LD>(in.V(i, j)) * (p[j] - static_cast<LD>(in.y[j]));
    return v;
  };
  LD best = std::numeric_limits<LD>::infinity();
  for (int a = 0; a < m; ++a)
    for (int b = a + 1; b < m; ++b)
      for (int c = b + 1; c < m; ++c) {
        M4 A = M4::Zero();
        V4 rhs = V4::Zero();
        A(0, 0) = A(0, 1) = A(0, 2) = 1;  // unknowns x_0, x_1, x_2, t
        rhs[0] = s;
        const int active[3] = {a, b, c};
        for (int q = 0; q < 3; ++q) {
          const int e = active[q];
          if (e >= n) {
            A(q + 1, e - n) = 1;  // x_{e-n} = 0
            continue;
          }
          A(q + 1, 3) = 1;  // t - V_e x = z_e - V_e y
          rhs[q + 1] = in.z[e];
          for (int j = 0; j < d; ++j) {
            A(q + 1, j) = -static_cast<LD>(in.V(e, j));
            rhs[q + 1] -= static_cast<LD>(in.V(e, j)) * in.y[j];
          }
        }
        const Eigen::FullPivLU<M4> lu(A);
        if (!lu.isInvertible()) continue;
        const V4 p = lu.solve(rhs);
        if (p.head(d).minCoeff() < -1e-15L * s) continue;
        LD value = -std::numeric_limits<LD>::infinity();
        for (int i = 0; i < n; ++i) value = std::max(value, u(i, p));
        best = std::min(best, value);
      }
  return best;
}

}  // namespace

TEST_CASE("cross_check measures agreement against the size of the LP's terms, not of its value") {
  // max over the simplex of scale 1000 with V ~ 1e4 and z ~ 1: u_i = z_i + V_i (x - y) is of size
  // 1 at the optimum, a difference of terms V_ij x_j and V_ij y_j of size 1e7. Two correct codes
  // agree to the last places of those terms, ~1e-9 of the value: cross_check runs clean, and
  // both values match the optimum found by vertex enumeration to 1e-9 of the terms' size.
  const int n = 6, d = 3;
  const double s = 1000.0;
  const Problem p{"max over simplex, scale 1000", make_max(d, n), make_simplex(d, n, s), n, d, {"dense_simplex"}};
  const lp::ColdClp cold = p.cold();
  auto glmo = make_glmo("dense_simplex", d, n);  // cross_check on
  glmo->setup(*p.outer, *p.domain, n, d);
  std::mt19937_64 rng(3);
  int cancelling = 0;
  for (int k = 0; k < 200; ++k) {
    CAPTURE(k);
    Instance in = random_instance(*p.domain, n, rng);
    in.z.array() += 1.0;
    in.V *= 1e4;
    Vec x(d), xr(d);
    const GlmoResult res = glmo->solve(in.z, in.V, in.y, x);  // cross_check: the cold solve too
    const lp::ColdClp::Result ref = cold.solve(in.z, in.V, in.y, xr);
    REQUIRE(ref.status == 0);
    if (ref.scale >= 1e5 * std::max(1.0, std::abs(ref.value))) ++cancelling;
    const double optimum = static_cast<double>(simplex_minimax_by_vertices(in, s));
    CHECK(std::abs(res.value - optimum) <= 1e-9 * ref.scale);
    CHECK(std::abs(ref.value - optimum) <= 1e-9 * ref.scale);
    CHECK(p.domain->contains(x, 1e-8));
  }
  CHECK(cancelling >= 100);  // values of size 1e-5 of their terms or less, most of them
}
