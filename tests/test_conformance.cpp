// The SDK's conformance kit (scfw/conformance.hpp) on small plugins written here, each wrong in
// one way a plugin author can get wrong: outputs of another size (a size error with both sizes,
// not a finite difference read out of bounds), an LMO answer outside the domain or not the
// minimum, and the sparse path against the dense one.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "scfw/conformance.hpp"
#include "scfw/roles.hpp"

using scfw::Jacobian;
using scfw::Mat;
using scfw::Vec;
namespace conformance = scfw::conformance;

namespace {

/// f(x) = A x (n = 2, d = 3), no noise; `fault` resizes one output.
class Linear final : public scfw::Oracle {
 public:
  explicit Linear(std::string fault) : fault_(std::move(fault)) { a_ << 1.0, -2.0, 0.5, 0.25, 3.0, -1.0; }
  int dim() const override { return 3; }
  int outputs() const override { return 2; }
  scfw::Capabilities capabilities() const override { return scfw::Capability::Exact; }
  std::unique_ptr<scfw::Sample> make_sample() const override { return std::make_unique<scfw::Sample>(); }
  void draw(scfw::Rng&, scfw::Sample&) const override {}
  void evaluate(const scfw::Sample&, const Vec& x, Vec* f, Jacobian* J) const override { exact(x, f, J); }
  void exact(const Vec& x, Vec* f, Jacobian* J) const override {
    if (f) {
      if (fault_ == "f") f->resize(1);  // one output short
      *f = (a_ * x).head(f->size());
    }
    if (J) {
      Mat& Jd = J->dense();
      if (fault_ == "J") {
        Jd.resize(2, 2);  // a column short
        Jd = a_.leftCols(2);
      } else {
        Jd = a_;
      }
    }
  }

 private:
  std::string fault_;
  Eigen::Matrix<double, 2, 3> a_;
};

/// [0, 1]^d with an LMO that is wrong in the way `fault` says.
class UnitBox final : public scfw::Domain {
 public:
  explicit UnitBox(std::string fault) : fault_(std::move(fault)) {}
  int dim() const override { return 4; }
  void lmo(const scfw::Gradient& g, scfw::Atom& s) const override {
    Vec buf;
    const Vec& gd = g.to_dense(buf);
    Vec& x = s.set_dense(4);
    for (int j = 0; j < 4; ++j) x[j] = gd[j] < 0 ? 1.0 : 0.0;
    if (fault_ == "outside") x *= 1.5;
    if (fault_ == "maximises") x = Vec::Ones(4) - x;
  }
  Vec initial_point() const override { return Vec::Constant(4, 0.5); }
  bool contains(const Vec& x, double tol) const override { return x.minCoeff() >= -tol && x.maxCoeff() <= 1 + tol; }

 private:
  std::string fault_;
};

}  // namespace

TEST_CASE("check_oracle: a sound oracle passes, every check listed") {
  const Linear oracle("");
  const auto rep = conformance::check_oracle(oracle, Vec::Constant(3, 0.25));
  INFO(rep.message);
  CHECK(rep.ok);
  REQUIRE(rep.checks.size() == 6);
  CHECK(rep.checks[1].name == "output sizes (f has n entries, J is n x d)");
  CHECK(rep.checks[5].skipped);  // the sparse path of a dense oracle
}

namespace {

/// The message of a report whose one failure is the size error `what`.
std::string size_failure(const char* check, const std::string& what) {
  return std::string(check) + " (n = 2, d = 3) FAILED\n  output sizes (f has n entries, J is n x d): 1 failure\n    " +
         what;
}

}  // namespace

TEST_CASE("check_oracle: outputs of the wrong size are a size error, nothing else is compared") {
  const Vec x = Vec::Constant(3, 0.25);
  const Linear short_f("f"), short_j("J");
  CHECK(conformance::check_oracle(short_f, x).message ==
        size_failure("check_oracle", "exact() left f with 1 entries, expected n = 2"));
  const auto rep = conformance::check_oracle(short_j, x);
  CHECK_FALSE(rep.ok);
  CHECK(rep.message == size_failure("check_oracle", "exact() left J as 2 x 2, expected n x d = 2 x 3"));
  CHECK(rep.message.find("finite difference") == std::string::npos);
  CHECK(conformance::check_oracle_sample(short_j, x).message ==
        size_failure("check_oracle_sample", "evaluate() left J as 2 x 2, expected n x d = 2 x 3"));
}

TEST_CASE("check_oracle_sample: the checks of exact f and J are skipped, with the reason") {
  const Linear oracle("");
  const auto rep = conformance::check_oracle_sample(oracle, Vec::Constant(3, 0.25));
  INFO(rep.message);
  CHECK(rep.ok);
  int skipped = 0;
  for (const auto& c : rep.checks) {
    if (!c.skipped) continue;
    ++skipped;
    if (c.name == "finite differences of exact f vs exact J")
      CHECK(c.detail == "the oracle has no exact evaluation (capability \"exact\")");
  }
  CHECK(skipped == 3);  // unbiasedness, exact finite differences, the sparse path
}

TEST_CASE("check_domain: a sound LMO passes; one outside or maximising fails, located") {
  const UnitBox sound("");
  const auto ok = conformance::check_domain(sound);
  INFO(ok.message);
  CHECK(ok.ok);

  const UnitBox outside("outside");
  const auto rep = conformance::check_domain(outside);
  CHECK_FALSE(rep.ok);
  CHECK(rep.message.find("LMO answers in the domain (contains): ") != std::string::npos);
  CHECK(rep.message.find("direction 0: the LMO answer is not in the domain by its own contains() (tolerance "
                         "1.5e-07; largest |s_j| = 1.5)") != std::string::npos);

  const UnitBox maximises("maximises");
  const auto rep2 = conformance::check_domain(maximises);
  CHECK_FALSE(rep2.ok);
  CHECK(rep2.message.find("LMO optimality: <g, s> <= <g, p>") != std::string::npos);
  CHECK(rep2.message.find("LMO answers in the domain") == std::string::npos);
}
