// The schedule plugins against the paper's formulas (Theorem 1, Theorem 2 and its proof,
// Corollary 1), at given k and K.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "scfw/core/registry.hpp"
#include "scfw/error.hpp"
#include "plugin_support.hpp"

namespace {

using nlohmann::json;

std::unique_ptr<scfw::Schedule> schedule(const std::string& name, const json& block = json::object()) {
  return scfw::test::make<scfw::Schedule>(name, scfw::test::params(block), scfw::Context{});
}

json with(const std::string& name, json v) { return json{{name, std::move(v)}}; }

std::string input_error(const std::string& name, const json& p) {
  try {
    schedule(name, p);
  } catch (const scfw::InputError& e) {
    return e.what();
  }
  return "no InputError";
}

using doctest::Approx;

}  // namespace

TEST_CASE("nonconvex: Theorem 1's constant steps") {
  // r = 2: gamma = K^-3/4, beta = rho = K^-1/2; K = 10^4 gives 10^-3 and 10^-2 at every k.
  auto s = schedule("nonconvex", with("r", 2.0));
  for (long k : {0L, 1L, 5000L, 9999L}) {
    const auto st = s->at(k, 10000);
    CHECK(st.gamma == Approx(1e-3).epsilon(1e-12));
    CHECK(st.beta == Approx(1e-2).epsilon(1e-12));
    CHECK(st.rho == Approx(1e-2).epsilon(1e-12));
  }
  const std::string text = s->describe(10000);
  CHECK(text.find("gamma = K^-3/4 = 0.001") != std::string::npos);
  CHECK(text.find("beta = rho = K^-1/2 = 0.01") != std::string::npos);

  // r = 1.5: exponents (2r-1)/(3r-2) = 4/5 and r/(3r-2) = 3/5; K = 1024 = 2^10 gives 2^-8, 2^-6.
  auto s15 = schedule("nonconvex", with("r", 1.5));
  const auto st = s15->at(3, 1024);
  CHECK(st.gamma == Approx(1.0 / 256).epsilon(1e-12));
  CHECK(st.beta == Approx(1.0 / 64).epsilon(1e-12));
  CHECK(st.rho == st.beta);
  CHECK(s15->describe(1024).find("K^-4/5") != std::string::npos);
  // describe(K) states the values for the K it is given, whatever K the schedule saw last.
  CHECK(s15->describe(1024).find("= 0.00391") != std::string::npos);  // 2^-8
  CHECK(s15->describe(32).find("= 0.0625") != std::string::npos);     // 32^-4/5 = 2^-4

  // The default is r = 2.
  CHECK(schedule("nonconvex")->at(0, 16).gamma == Approx(0.125).epsilon(1e-12));

  CHECK(input_error("nonconvex", with("r", 2.5)) == "<input>: /r: expected a number in (1, 2], got 2.5");
  CHECK(input_error("nonconvex", with("r", 1)) == "<input>: /r: expected a number in (1, 2], got 1");
  // The value is shown as written: 1.0 in the file is "1.0" in the message.
  CHECK(input_error("nonconvex", with("r", 1.0)) == "<input>: /r: expected a number in (1, 2], got 1.0");
}

TEST_CASE("convex: Theorem 2's decreasing steps with the proof's c0 and k0") {
  // Own derivation of k0 at r = 2: y = r/(2r-1) = 2/3, q = y(r-1) = 2/3,
  // (4q)^(1/(1-y)) = (8/3)^3 = 512/27 = 18.96..., so k0 = 19 + 2 = 21 ...
  const double y = 2.0 / 3.0, q = 2.0 / 3.0;
  CHECK(std::pow(4 * q, 1 / (1 - y)) == Approx(512.0 / 27.0));
  // ... and it satisfies what the proof needs of it: 2 q k0^(y-1) <= 1/2.
  CHECK(2 * q * std::pow(21.0, y - 1) <= 0.5);

  auto s = schedule("convex", with("r", 2.0));
  // beta_k = min{1, 1/(k+21)^(2/3)}: k = 6 gives 27^(-2/3) = 1/9, k = 43 gives 64^(-2/3) = 1/16.
  CHECK(s->at(6, 100).beta == Approx(1.0 / 9).epsilon(1e-12));
  CHECK(s->at(6, 100).rho == Approx(1.0 / 9).epsilon(1e-12));
  CHECK(s->at(43, 100).beta == Approx(1.0 / 16).epsilon(1e-12));
  CHECK(s->at(0, 100).beta == Approx(std::pow(21.0, -2.0 / 3)).epsilon(1e-12));
  // gamma_k = 2/(k+2), independent of K.
  CHECK(s->at(0, 100).gamma == 1.0);
  CHECK(s->at(6, 100).gamma == Approx(0.25).epsilon(1e-15));
  CHECK(s->at(6, 7).gamma == s->at(6, 100000).gamma);
  CHECK(s->describe(100).find("k0 = 21") != std::string::npos);

  // r = 1.5: y = 3/4, q = 3/8, (3/2)^4 = 5.06, so k0 = 8; k = 8 gives 16^(-3/4) = 1/8.
  auto s15 = schedule("convex", with("r", 1.5));
  CHECK(s15->at(8, 100).beta == Approx(0.125).epsilon(1e-12));
  CHECK(s15->at(0, 100).beta == Approx(std::pow(8.0, -0.75)).epsilon(1e-12));

  // Explicit c0 and k0, and the cap at 1: c0 = 4, k0 = 1, r = 2.
  auto s4 = schedule("convex", {{"r", 2.0}, {"c0", 4.0}, {"k0", 1}});
  CHECK(s4->at(0, 10).beta == 1.0);                                 // 4/1 capped
  CHECK(s4->at(7, 10).beta == Approx(1.0).epsilon(1e-12));          // 4/8^(2/3) = 1
  CHECK(s4->at(26, 100).beta == Approx(4.0 / 9).epsilon(1e-12));    // 4/27^(2/3)
  CHECK(s4->at(26, 100).gamma == Approx(2.0 / 28).epsilon(1e-15));

  CHECK(input_error("convex", with("k0", 0)) == "<input>: /k0: expected an integer >= 1, got 0");
}

TEST_CASE("deterministic: Corollary 1") {
  auto cvx = schedule("deterministic", with("step", std::string("convex")));
  auto ncv = schedule("deterministic", with("step", std::string("nonconvex")));
  for (long k : {0L, 3L, 99L}) {
    const auto a = cvx->at(k, 100), b = ncv->at(k, 100);
    CHECK(a.gamma == Approx(2.0 / (k + 2)).epsilon(1e-15));
    CHECK(b.gamma == Approx(1.0 / std::sqrt(k + 1.0)).epsilon(1e-15));
    CHECK(a.beta == 1.0);
    CHECK(a.rho == 1.0);
    CHECK(b.beta == 1.0);
    CHECK(b.rho == 1.0);
  }
  CHECK(ncv->at(3, 100).gamma == 0.5);
  CHECK(cvx->at(3, 100).gamma == Approx(0.4).epsilon(1e-15));
  CHECK(input_error("deterministic", with("step", std::string("linear"))) ==
        "<input>: /step: expected one of \"convex\", \"nonconvex\", got \"linear\"");
}

TEST_CASE("constant: fixed steps and their range") {
  auto d = schedule("constant");
  CHECK(d->at(0, 10).gamma == 0.1);
  CHECK(d->at(9, 10).beta == 1.0);
  CHECK(d->at(9, 10).rho == 1.0);
  auto c = schedule("constant", {{"gamma", 0.25}, {"beta", 0.5}, {"rho", 0.75}});
  for (long k : {0L, 7L, 1000L}) {
    const auto st = c->at(k, 2000);
    CHECK(st.gamma == 0.25);
    CHECK(st.beta == 0.5);
    CHECK(st.rho == 0.75);
  }
  CHECK(c->describe(2000) == "constant: gamma = 0.25, beta = 0.5, rho = 0.75");
  CHECK(input_error("constant", with("gamma", 0)) == "<input>: /gamma: expected a number in (0, 1], got 0");
  CHECK(input_error("constant", with("rho", 1.5)) == "<input>: /rho: expected a number in (0, 1], got 1.5");
}

TEST_CASE("anytime: Theorem 1's exponents in k + k0, no K") {
  // Own derivation of k0 at r = 2: b = r/(3r-2) = 1/2, q = b(r-1) = 1/2, (4q)^(1/(1-b)) = 2^2 = 4,
  // so k0 = 4 + 2 = 6, and the induction's condition 2 q k0^(b-1) <= 1/2 holds.
  CHECK(2 * 0.5 * std::pow(6.0, 0.5 - 1) <= 0.5);
  auto s = schedule("anytime");
  // gamma_k = (k+6)^-3/4, beta_k = rho_k = (k+6)^-1/2: k = 10 gives 16^-3/4 = 1/8 and 1/4,
  // k = 250 gives 256^-3/4 = 1/64 and 1/16, whatever K is.
  CHECK(s->at(10, 11).gamma == Approx(0.125).epsilon(1e-15));
  CHECK(s->at(10, 200000).gamma == s->at(10, 11).gamma);
  CHECK(s->at(10, 11).beta == Approx(0.25).epsilon(1e-15));
  CHECK(s->at(10, 11).rho == s->at(10, 11).beta);
  CHECK(s->at(250, 1000).gamma == Approx(1.0 / 64).epsilon(1e-15));
  CHECK(s->at(250, 1000).beta == Approx(1.0 / 16).epsilon(1e-15));
  // Decreasing in k, every step in (0, 1].
  for (long k = 0; k < 2000; ++k) {
    const auto a = s->at(k, 1), b = s->at(k + 1, 1);
    REQUIRE(b.gamma < a.gamma);
    REQUIRE(b.beta < a.beta);
    REQUIRE(a.gamma <= 1.0);
    REQUIRE(a.beta <= 1.0);
  }
  CHECK(s->describe(5) == "anytime (r = 2): gamma_k = (k+6)^-3/4, beta_k = rho_k = (k+6)^-1/2 (no K: gamma_0 = 0.261, "
                          "beta_0 = 0.408)");

  // r = 1.5: a = 4/5, b = 3/5, q = 3/10, (6/5)^(5/2) = 1.58, so k0 = 4; k = 28 gives 32^-4/5 = 1/16
  // and 32^-3/5 = 1/8.
  auto s15 = schedule("anytime", with("r", 1.5));
  CHECK(s15->at(28, 29).gamma == Approx(1.0 / 16).epsilon(1e-14));
  CHECK(s15->at(28, 29).beta == Approx(1.0 / 8).epsilon(1e-14));
  // An explicit k0: k = 0 with k0 = 1 takes full steps.
  auto s1 = schedule("anytime", with("k0", 1));
  CHECK(s1->at(0, 100).gamma == 1.0);
  CHECK(s1->at(0, 100).beta == 1.0);
  CHECK(input_error("anytime", with("k0", 0)) == "<input>: /k0: expected an integer >= 1, got 0");
}
