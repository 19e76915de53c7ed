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
//   * the fallback's and cross_check's errors, word for word.
#include <doctest/doctest.h>

#include <cmath>
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
    const lp::ColdClp cold(lp::build_model("test", *p.outer, *p.domain, p.n, p.d));
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
    const lp::ColdClp cold(lp::build_model("test", *p.outer, *p.domain, p.n, p.d));
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
    const lp::ColdClp cold(lp::build_model("test", *p.outer, *p.domain, p.n, p.d));
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
  auto outer = make_max(d, n);
  auto domain = make_l1(d, n, 1.0);
  const lp::ColdClp cold(lp::build_model("test", *outer, *domain, n, d));
  Instance in{Vec::Zero(n), Mat::Zero(n, d), Vec::Zero(d)};
  in.z << 0.5, 1.5, -1.0;
  Vec x(d);
  const lp::ColdClp::Result r = cold.solve_or_throw("g", in.z, in.V, in.y, x);
  CHECK(r.value == 1.5);
  CHECK_NOTHROW(cold.check("g", 7, 1.5 + 1e-10, in.z, in.V, in.y));
  CHECK_THROWS_WITH(cold.check("g", 7, 1.5001, in.z, in.V, in.y),
                    "g: disagrees with Clp at solve 7: g 1.5001, Clp 1.5 (status 0)");
}
