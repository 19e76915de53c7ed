// The `momentum` tracker (Alg. 1 lines 2, 4-6) against its formulas computed here from the same
// samples: the test re-creates the tracker's random stream and draws the same xi_k itself.
#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <random>
#include <string>

#include "scfw/core/registry.hpp"
#include "scfw/error.hpp"
#include "plugin_support.hpp"
#include "sanitizer_support.hpp"

using scfw::Mat;
using scfw::Vec;

#include "malloc_counter.hpp"  // g_mallocs: every malloc of the process

namespace {

template <class T>
std::unique_ptr<T> make(const std::string& name, const nlohmann::json& block) {
  return scfw::test::make<T>(name, scfw::test::params(block), scfw::Context{});
}

std::unique_ptr<scfw::Oracle> small_oracle() {
  return make<scfw::Oracle>(
      "least_squares_tasks",
      {{"batch", 2},
       {"synthetic", {{"tasks", 4}, {"dim", 7}, {"rows_per_task", 30}, {"sparsity", 3}, {"noise", 0.5}, {"seed", 3}}}});
}

std::unique_ptr<scfw::Tracker> tracker(const std::string& value) { return make<scfw::Tracker>("momentum", {{"value", value}}); }

Vec random_vec(int d, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Vec x(d);
  for (int j = 0; j < d; ++j) x[j] = u(g);
  return x;
}

/// The small oracle, the steps (beta, rho) and two points y0, y1 of its dimension.
struct TwoPoints {
  std::unique_ptr<scfw::Oracle> oracle;
  scfw::Steps steps;
  Vec y0, y1;
};

TwoPoints two_points(double beta, double rho) {
  TwoPoints p{small_oracle(), {}, {}, {}};
  p.steps.beta = beta;
  p.steps.rho = rho;
  p.y0 = random_vec(p.oracle->dim(), 1);
  p.y1 = random_vec(p.oracle->dim(), 2);
  return p;
}

/// The samples the tracker will see: the same oracle draws from a copy of the same stream.
struct Replay {
  const scfw::Oracle& oracle;
  scfw::Rng rng;
  std::unique_ptr<scfw::Sample> s;
  Replay(const scfw::Oracle& o, unsigned long seed) : oracle(o), rng(seed), s(o.make_sample()) {}
  void next(const Vec& y, Vec& f, Mat& J) {
    oracle.draw(rng, *s);
    oracle.evaluate(*s, y, &f, scfw::test::as_jacobian(J));
  }
};

bool close(const Mat& a, const Mat& b) { return (a - b).norm() <= 1e-13 * (1.0 + b.norm()); }
bool close(const Vec& a, const Vec& b) { return (a - b).norm() <= 1e-13 * (1.0 + b.norm()); }

}  // namespace

TEST_CASE("momentum: start is one sample; one Taylor step and one Polyak step equal Alg. 1") {
  auto oracle = small_oracle();
  const int n = oracle->outputs(), d = oracle->dim();
  const Vec y0 = random_vec(d, 1), y1 = random_vec(d, 2);
  scfw::Steps steps;
  steps.gamma = 0.5;
  steps.beta = 0.3;
  steps.rho = 0.2;

  for (const std::string variant : {"taylor", "polyak"}) {
    CAPTURE(variant);
    auto t = tracker(variant);
    t->bind(*oracle);
    scfw::Rng rng(17);
    Vec z(n);
    Mat V(n, d);
    t->start(y0, rng, z, V);
    t->update(1, y1, y0, steps, rng, z, V);

    Replay replay(*oracle, 17);
    Vec f0(n), f1(n);
    Mat J0(n, d), J1(n, d);
    replay.next(y0, f0, J0);  // xi_0 at y_0 (line 2)
    replay.next(y1, f1, J1);  // xi_1 at y_1 (line 4)
    const Mat V1 = (1 - 0.3) * J0 + 0.3 * J1;  // line 5
    const Vec polyak = (1 - 0.2) * f0 + 0.2 * f1;
    const Vec taylor = (1 - 0.2) * (f0 + V1 * (y1 - y0)) + 0.2 * f1;
    const Vec taylor_old_v = (1 - 0.2) * (f0 + J0 * (y1 - y0)) + 0.2 * f1;  // the wrong V

    CHECK(close(V, V1));
    if (variant == "taylor") {
      CHECK(close(z, taylor));
      CHECK_FALSE(close(z, polyak));
      CHECK_FALSE(close(z, taylor_old_v));  // line 6 uses the updated V_k
    } else {
      CHECK(close(z, polyak));
      CHECK_FALSE(close(z, taylor));
    }
  }
}

TEST_CASE("momentum: start sets z_0, V_0 to the first sample exactly") {
  auto oracle = small_oracle();
  const int n = oracle->outputs(), d = oracle->dim();
  auto t = tracker("taylor");
  t->bind(*oracle);
  const Vec y0 = random_vec(d, 4);
  scfw::Rng rng(99);
  Vec z(n);
  Mat V(n, d);
  t->start(y0, rng, z, V);
  Replay replay(*oracle, 99);
  Vec f(n);
  Mat J(n, d);
  replay.next(y0, f, J);
  CHECK(z == f);
  CHECK(V == J);
}

TEST_CASE("momentum: with beta = rho = 1 the trackers return exactly the sample values") {
  auto oracle = small_oracle();
  const int n = oracle->outputs(), d = oracle->dim();
  scfw::Steps ones;
  ones.gamma = 0.1;
  ones.beta = ones.rho = 1.0;
  for (const std::string variant : {"taylor", "polyak"}) {
    CAPTURE(variant);
    auto t = tracker(variant);
    t->bind(*oracle);
    scfw::Rng rng(5);
    Replay replay(*oracle, 5);
    Vec z(n), f(n);
    Mat V(n, d), J(n, d);
    Vec y_prev = random_vec(d, 10);
    t->start(y_prev, rng, z, V);
    replay.next(y_prev, f, J);
    for (long k = 1; k <= 5; ++k) {
      const Vec y = random_vec(d, 10 + static_cast<unsigned>(k));
      t->update(k, y, y_prev, ones, rng, z, V);
      replay.next(y, f, J);
      CHECK(z == f);
      CHECK(V == J);
      y_prev = y;
    }
  }
}

TEST_CASE("momentum: parameter and binding errors") {
  std::string msg;
  try {
    make<scfw::Tracker>("momentum", {{"value", "storm"}});
  } catch (const scfw::InputError& e) {
    msg = e.what();
  }
  CHECK(msg == "<input>: /value: expected one of \"polyak\", \"taylor\", got \"storm\"");

  // The default variant is Taylor (Variant II): a tracker made without `value` matches it.
  const TwoPoints p = two_points(0.4, 0.3);
  const scfw::Oracle& oracle = *p.oracle;
  const Vec &y0 = p.y0, &y1 = p.y1;
  const scfw::Steps& steps = p.steps;
  auto dflt = make<scfw::Tracker>("momentum", nlohmann::json::object());
  auto taylor = tracker("taylor");
  dflt->bind(oracle);
  taylor->bind(oracle);
  const int n = oracle.outputs(), d = oracle.dim();
  Vec z1(n), z2(n);
  Mat V1(n, d), V2(n, d);
  scfw::Rng r1(3), r2(3);
  dflt->start(y0, r1, z1, V1);
  dflt->update(1, y1, y0, steps, r1, z1, V1);
  taylor->start(y0, r2, z2, V2);
  taylor->update(1, y1, y0, steps, r2, z2, V2);
  CHECK(z1 == z2);

  auto unbound = tracker("polyak");
  scfw::Rng rng(1);
  CHECK_THROWS_AS(unbound->start(y0, rng, z1, V1), scfw::Error);
}

TEST_CASE("momentum: update() and the oracle's draw() and evaluate() allocate nothing") {
  if (scfw::test::kAllocatorSanitized) {
    MESSAGE(scfw::test::kSanitizerSkipMessage);
    return;
  }
  const TwoPoints p = two_points(0.3, 0.2);
  scfw::Oracle* oracle = p.oracle.get();
  const Vec &y0 = p.y0, &y1 = p.y1;
  const scfw::Steps& steps = p.steps;
  const int n = oracle->outputs(), d = oracle->dim();
  Vec z(n), f(n);
  Mat V(n, d), J(n, d);
  scfw::Rng rng(8);

  // The counter itself works: a vector's allocation is seen.
  long before = g_mallocs.load();
  { std::vector<double> probe(1000, 1.0); CHECK(probe[999] == 1.0); }
  CHECK(g_mallocs.load() > before);

  auto s = oracle->make_sample();
  before = g_mallocs.load();
  oracle->draw(rng, *s);
  oracle->evaluate(*s, y0, &f, scfw::test::as_jacobian(J));
  oracle->evaluate(*s, y1, &f, nullptr);
  CHECK(g_mallocs.load() == before);

  for (const std::string variant : {"taylor", "polyak"}) {
    CAPTURE(variant);
    auto t = tracker(variant);
    t->bind(*oracle);
    t->start(y0, rng, z, V);
    before = g_mallocs.load();
    for (long k = 1; k <= 3; ++k) t->update(k, k % 2 ? y1 : y0, k % 2 ? y0 : y1, steps, rng, z, V);
    CHECK(g_mallocs.load() == before);
  }
}
