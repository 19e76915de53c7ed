// The dense primal simplex behind `column_generation`'s master (plugins/lp/dense_master.hpp),
// against Clp as the independent solver:
//   * random bounded LPs (free, one-sided, boxed and fixed variables and rows): the same status
//     (optimal / infeasible / unbounded; Clp's primal sometimes calls an unbounded LP
//     infeasible, so a non-optimal LP is classified by a zero-cost feasibility solve) and, when optimal, the same value to 1e-9 relative; the
//     returned point and duals satisfy the KKT conditions (feasibility, sign of every reduced
//     cost at its bound, zero between bounds) to 1e-7;
//   * the column-generation pattern: columns added to a solved LP, columns deleted (basic ones
//     too), bounds and columns changed in place, each re-solve warm, equals Clp solved cold;
//   * degenerate LPs (duplicated columns and rows, many ties) end optimal with Clp's value.
// And the rest of the GLMO plugins' LP layer (plugins/lp/): the dense inverse, the model ->
// LP translation, the u-substitution, the artificial bounds, against independent computations.
#include <doctest/doctest.h>

#include "../plugins/lp/dense_master.hpp"
#include "../plugins/lp/glmo_lp.hpp"
#include "../plugins/lp/verify.hpp"

#include <ClpSimplex.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using scfw::lp::DenseMaster;

namespace {

constexpr double kInf = DenseMaster::kInf;

struct Lp {
  int m = 0;
  std::vector<std::vector<double>> cols;  // dense, m each
  std::vector<double> lo, up, cost;       // per column
  std::vector<double> row_lo, row_up;
};

double clp_bound(double v) { return v == kInf ? COIN_DBL_MAX : v == -kInf ? -COIN_DBL_MAX : v; }

// Clp's status (0 optimal, 1 infeasible, 2 unbounded) and value, solved cold.
std::pair<int, double> clp_solve(const Lp& lp) {
  std::vector<CoinBigIndex> start(1, 0);
  std::vector<int> index;
  std::vector<double> value;
  for (const auto& c : lp.cols) {
    for (int r = 0; r < lp.m; ++r)
      if (c[static_cast<size_t>(r)] != 0.0) {
        index.push_back(r);
        value.push_back(c[static_cast<size_t>(r)]);
      }
    start.push_back(static_cast<CoinBigIndex>(index.size()));
  }
  const int n = static_cast<int>(lp.cols.size());
  std::vector<double> lo(lp.lo.size()), up(lp.up.size()), rlo(lp.row_lo.size()), rup(lp.row_up.size());
  std::transform(lp.lo.begin(), lp.lo.end(), lo.begin(), clp_bound);
  std::transform(lp.up.begin(), lp.up.end(), up.begin(), clp_bound);
  std::transform(lp.row_lo.begin(), lp.row_lo.end(), rlo.begin(), clp_bound);
  std::transform(lp.row_up.begin(), lp.row_up.end(), rup.begin(), clp_bound);
  ClpSimplex clp;
  clp.setLogLevel(0);
  clp.loadProblem(n, lp.m, start.data(), index.data(), value.data(), lo.data(), up.data(), lp.cost.data(), rlo.data(),
                  rup.data());
  clp.primal();
  if (clp.status() == 0) return {0, clp.objectiveValue()};
  // Not optimal: Clp's primal sometimes reports an unbounded LP as infeasible, so decide by
  // feasibility alone (zero costs): feasible means unbounded.
  ClpSimplex feas;
  feas.setLogLevel(0);
  const std::vector<double> zero(static_cast<size_t>(n), 0.0);
  feas.loadProblem(n, lp.m, start.data(), index.data(), value.data(), lo.data(), up.data(), zero.data(), rlo.data(),
                   rup.data());
  feas.primal();
  return {feas.status() == 0 ? 2 : 1, 0.0};
}

void load(DenseMaster& dm, const Lp& lp) {
  dm.reset(lp.m);
  for (int r = 0; r < lp.m; ++r) dm.set_row_bounds(r, lp.row_lo[static_cast<size_t>(r)], lp.row_up[static_cast<size_t>(r)]);
  for (size_t k = 0; k < lp.cols.size(); ++k) dm.add_column(lp.cols[k].data(), lp.lo[k], lp.up[k], lp.cost[k]);
}

// A random bound pair of the given kind: 0 free, 1 lower, 2 upper, 3 boxed, 4 fixed.
std::pair<double, double> bounds(int kind, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  const double a = u(rng), b = a + std::uniform_real_distribution<double>(0.1, 3.0)(rng);
  switch (kind) {
    case 0: return {-kInf, kInf};
    case 1: return {a, kInf};
    case 2: return {-kInf, b};
    case 3: return {a, b};
    default: return {a, a};
  }
}

Lp random_lp(std::mt19937_64& rng, int m, int n, double density, bool mostly_boxed) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> kind(0, 4);
  Lp lp;
  lp.m = m;
  for (int k = 0; k < n; ++k) {
    std::vector<double> c(static_cast<size_t>(m), 0.0);
    for (auto& v : c)
      if (unit(rng) < density) v = std::round(4.0 * normal(rng)) / 4.0;  // quarter steps: ties happen
    lp.cols.push_back(c);
    const auto [lo, up] = bounds(mostly_boxed ? (unit(rng) < 0.8 ? 3 : kind(rng)) : kind(rng), rng);
    lp.lo.push_back(lo);
    lp.up.push_back(up);
    lp.cost.push_back(std::round(4.0 * normal(rng)) / 4.0);
  }
  for (int r = 0; r < m; ++r) {
    // Rows around the activity of a random point inside the column bounds: mostly feasible.
    double act = 0.0;
    for (int k = 0; k < n; ++k) {
      const double lo = lp.lo[static_cast<size_t>(k)], up = lp.up[static_cast<size_t>(k)];
      const double v = std::isfinite(lo) && std::isfinite(up) ? lo + unit(rng) * (up - lo)
                       : std::isfinite(lo)                     ? lo + unit(rng)
                       : std::isfinite(up)                     ? up - unit(rng)
                                                               : normal(rng);
      act += lp.cols[static_cast<size_t>(k)][static_cast<size_t>(r)] * v;
    }
    const int kd = kind(rng);
    const double w = unit(rng);
    lp.row_lo.push_back(kd == 0 || kd == 2 ? -kInf : act - w);
    lp.row_up.push_back(kd == 0 || kd == 1 ? kInf : kd == 4 ? lp.row_lo.back() : act + w);
  }
  return lp;
}

// KKT at the dense master's answer: primal feasibility, and reduced-cost signs.
void check_kkt(const DenseMaster& dm, const Lp& lp) {
  const double* y = dm.duals();
  for (int r = 0; r < lp.m; ++r) {
    double act = 0.0;
    for (size_t k = 0; k < lp.cols.size(); ++k) act += lp.cols[k][static_cast<size_t>(r)] * dm.value(static_cast<int>(k));
    const double lo = lp.row_lo[static_cast<size_t>(r)], up = lp.row_up[static_cast<size_t>(r)];
    const double tol = 1e-7 * std::max(1.0, std::abs(act));
    CHECK(act >= lo - tol);
    CHECK(act <= up + tol);
    // the logical's reduced cost is y_r: >= 0 at its lower bound, <= 0 at its upper, 0 between
    if (act > lo + tol) CHECK(y[r] <= 1e-7);
    if (act < up - tol) CHECK(y[r] >= -1e-7);
  }
  for (size_t k = 0; k < lp.cols.size(); ++k) {
    const double v = dm.value(static_cast<int>(k)), lo = lp.lo[k], up = lp.up[k];
    CHECK(v >= lo - 1e-9 * std::max(1.0, std::abs(lo)));
    CHECK(v <= up + 1e-9 * std::max(1.0, std::abs(up)));
    double d = lp.cost[k];
    for (int r = 0; r < lp.m; ++r) d -= lp.cols[k][static_cast<size_t>(r)] * y[r];
    const double tol = 1e-7 * std::max(1.0, std::abs(v));
    if (v > lo + tol) CHECK(d <= 1e-7);
    if (v < up - tol) CHECK(d >= -1e-7);
  }
}

double objective(const DenseMaster& dm, const Lp& lp) {
  double v = 0.0;
  for (size_t k = 0; k < lp.cols.size(); ++k) v += lp.cost[k] * dm.value(static_cast<int>(k));
  return v;
}

void check_against_clp(DenseMaster& dm, const Lp& lp, scfw::lp::PrimalExit st, int& optimal, int& other) {
  const auto [clp_status, clp_value] = clp_solve(lp);
  REQUIRE(st != scfw::lp::PrimalExit::kFailed);
  if (clp_status == 0) {
    REQUIRE(st == scfw::lp::PrimalExit::kOptimal);
    CHECK(std::abs(dm.objective() - clp_value) <= 1e-9 * std::max(1.0, std::abs(clp_value)));
    CHECK(std::abs(objective(dm, lp) - clp_value) <= 1e-9 * std::max(1.0, std::abs(clp_value)));
    check_kkt(dm, lp);
    ++optimal;
  } else if (clp_status == 1) {
    CHECK(st == scfw::lp::PrimalExit::kInfeasible);
    ++other;
  } else if (clp_status == 2) {
    CHECK(st == scfw::lp::PrimalExit::kUnbounded);
    ++other;
  }
}

}  // namespace

TEST_CASE("dense master: random LPs, cold, equal Clp (status, value) and satisfy KKT") {
  std::mt19937_64 rng(2026);
  int optimal = 0, other = 0;
  for (int trial = 0; trial < 600; ++trial) {
    CAPTURE(trial);
    const int m = 1 + static_cast<int>(rng() % 25), n = 1 + static_cast<int>(rng() % 40);
    const Lp lp = random_lp(rng, m, n, trial % 3 == 0 ? 1.0 : 0.4, trial % 2 == 0);
    DenseMaster dm;
    load(dm, lp);
    const auto st = dm.solve(100000);
    check_against_clp(dm, lp, st, optimal, other);
  }
  // The generator is meant to produce both kinds; a change that made it trivial would show here.
  CHECK(optimal >= 200);
  CHECK(other >= 30);
}

TEST_CASE("dense master: column generation pattern (add, delete, change in place), warm, equals Clp") {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  int optimal = 0, other = 0;
  for (int trial = 0; trial < 60; ++trial) {
    CAPTURE(trial);
    const int m = 4 + static_cast<int>(rng() % 20);
    Lp lp = random_lp(rng, m, m + 5 + static_cast<int>(rng() % 10), 0.5, true);
    DenseMaster dm;
    load(dm, lp);
    check_against_clp(dm, lp, dm.solve(100000), optimal, other);
    for (int step = 0; step < 12; ++step) {
      CAPTURE(step);
      const int action = static_cast<int>(rng() % 4);
      if (action == 0 || lp.cols.size() < 3) {  // add columns
        for (int a = 0; a < 3; ++a) {
          std::vector<double> c(static_cast<size_t>(m));
          for (auto& v : c) v = normal(rng);
          lp.cols.push_back(c);
          lp.lo.push_back(0.0);
          lp.up.push_back(a == 0 ? 5.0 : 2.0);
          lp.cost.push_back(normal(rng));
          dm.add_column(c.data(), lp.lo.back(), lp.up.back(), lp.cost.back());
        }
      } else if (action == 1) {  // delete two columns, whatever their status
        std::vector<int> del = {0, static_cast<int>(lp.cols.size()) - 1};
        dm.delete_columns(del);
        lp.cols.erase(lp.cols.end() - 1);
        lp.lo.erase(lp.lo.end() - 1);
        lp.up.erase(lp.up.end() - 1);
        lp.cost.erase(lp.cost.end() - 1);
        lp.cols.erase(lp.cols.begin());
        lp.lo.erase(lp.lo.begin());
        lp.up.erase(lp.up.begin());
        lp.cost.erase(lp.cost.begin());
      } else if (action == 2) {  // change a column in place
        const int k = static_cast<int>(rng() % lp.cols.size());
        for (auto& v : lp.cols[static_cast<size_t>(k)]) v += 0.3 * normal(rng);
        lp.cost[static_cast<size_t>(k)] += 0.1 * normal(rng);
        dm.set_column(k, lp.cols[static_cast<size_t>(k)].data(), lp.cost[static_cast<size_t>(k)]);
      } else {  // move a row's bounds
        const int r = static_cast<int>(rng() % static_cast<unsigned>(m));
        const double shift = 0.3 * normal(rng);
        auto& lo = lp.row_lo[static_cast<size_t>(r)];
        auto& up = lp.row_up[static_cast<size_t>(r)];
        if (std::isfinite(lo)) lo += shift;
        if (std::isfinite(up)) up += shift;
        dm.set_row_bounds(r, lo, up);
      }
      check_against_clp(dm, lp, dm.solve(100000), optimal, other);
    }
  }
  CHECK(optimal >= 300);  // 498 of 780 solves optimal with this seed
  CHECK(other >= 100);
}

TEST_CASE("dense master: degenerate LPs (duplicated columns and rows, an assignment LP) end at Clp's value") {
  std::mt19937_64 rng(99);
  int optimal = 0, other = 0;
  for (int trial = 0; trial < 100; ++trial) {
    CAPTURE(trial);
    Lp lp = random_lp(rng, 3 + static_cast<int>(rng() % 8), 4 + static_cast<int>(rng() % 8), 0.6, true);
    // duplicate every column and, for half the trials, every row
    const size_t n = lp.cols.size();
    for (size_t k = 0; k < n; ++k) {
      lp.cols.push_back(lp.cols[k]);
      lp.lo.push_back(lp.lo[k]);
      lp.up.push_back(lp.up[k]);
      lp.cost.push_back(lp.cost[k]);
    }
    if (trial % 2 == 0) {
      const int m = lp.m;
      for (auto& c : lp.cols) c.insert(c.end(), c.begin(), c.begin() + m);
      lp.row_lo.insert(lp.row_lo.end(), lp.row_lo.begin(), lp.row_lo.begin() + m);
      lp.row_up.insert(lp.row_up.end(), lp.row_up.begin(), lp.row_up.begin() + m);
      lp.m = 2 * m;
    }
    DenseMaster dm;
    load(dm, lp);
    check_against_clp(dm, lp, dm.solve(100000), optimal, other);
  }
  // Assignment LP (every basic solution highly degenerate): 6 x 6, integer costs.
  const int k = 6;
  Lp as;
  as.m = 2 * k;
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      std::vector<double> c(static_cast<size_t>(2 * k), 0.0);
      c[static_cast<size_t>(i)] = 1.0;
      c[static_cast<size_t>(k + j)] = 1.0;
      as.cols.push_back(c);
      as.lo.push_back(0.0);
      as.up.push_back(kInf);
      as.cost.push_back(static_cast<double>((i * 7 + j * 3) % 5));
    }
  as.row_lo.assign(static_cast<size_t>(2 * k), 1.0);
  as.row_up.assign(static_cast<size_t>(2 * k), 1.0);
  DenseMaster dm;
  load(dm, as);
  check_against_clp(dm, as, dm.solve(100000), optimal, other);
  CHECK(optimal >= 40);
}

// ---------------------------------------------------------------------------------------------
// The LP layer shared by the GLMO plugins (plugins/lp/): the dense inverse of the simplex
// kernel, the model -> LP translation, the u-substitution.

namespace {

using scfw::lp::DenseInverse;

// C = B X (m x m, row-major).
std::vector<double> product(const std::vector<double>& B, const DenseInverse& inv, int m) {
  std::vector<double> C(static_cast<size_t>(m) * static_cast<size_t>(m), 0.0);
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < m; ++k)
      for (int c = 0; c < m; ++c)
        C[static_cast<size_t>(i * m + c)] += B[static_cast<size_t>(i * m + k)] * inv.at(k, c);
  return C;
}

double distance_to_identity(const std::vector<double>& C, int m) {
  double worst = 0.0;
  for (int i = 0; i < m; ++i)
    for (int c = 0; c < m; ++c)
      worst = std::max(worst, std::abs(C[static_cast<size_t>(i * m + c)] - (i == c ? 1.0 : 0.0)));
  return worst;
}

void factor(DenseInverse& inv, const std::vector<double>& B, const std::vector<char>& unit) {
  double* M = inv.clear_matrix();
  std::copy(B.begin(), B.end(), M);
  REQUIRE(inv.invert([&](int k) { return unit[static_cast<size_t>(k)] != 0; }) == 0);
}

}  // namespace

TEST_CASE("glmo lp: the dense inverse (Gauss-Jordan, product-form update, ftran) inverts the basis") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  for (int m : {1, 3, 11, 25}) {
    // A basis with some unit columns -e_r (logicals) and dense structurals.
    std::vector<double> B(static_cast<size_t>(m * m), 0.0);
    std::vector<char> unit(static_cast<size_t>(m), 0);
    for (int k = 0; k < m; ++k) {
      if (k % 3 == 1) {
        unit[static_cast<size_t>(k)] = 1;
        B[static_cast<size_t>(k * m + k)] = -1.0;
      } else {
        for (int r = 0; r < m; ++r) B[static_cast<size_t>(r * m + k)] = U(rng);
      }
    }
    DenseInverse inv;
    inv.resize(m);
    factor(inv, B, unit);
    CHECK(distance_to_identity(product(B, inv, m), m) < 1e-10);

    // ftran of a column of B is the unit vector of its position; of the logical of row r, the
    // negated column r of the inverse.
    std::vector<double> out(static_cast<size_t>(m));
    const int k = m - 1;
    inv.ftran(B.data() + k, static_cast<size_t>(m), out.data());
    for (int i = 0; i < m; ++i) CHECK(std::abs(out[static_cast<size_t>(i)] - (i == k ? 1.0 : 0.0)) < 1e-10);
    inv.ftran_logical(0, out.data());
    for (int i = 0; i < m; ++i) CHECK(out[static_cast<size_t>(i)] == -inv.at(i, 0));

    // Product-form update: replace column r of B by a new column a; the updated inverse inverts
    // the new basis (independent check: B' X = I).
    for (int step = 0; step < 5; ++step) {
      std::vector<double> a(static_cast<size_t>(m));
      for (double& v : a) v = U(rng);
      const int r = step % m;
      std::vector<double> col(static_cast<size_t>(m));
      inv.ftran(a.data(), 1, col.data());
      if (std::abs(col[static_cast<size_t>(r)]) < 1e-3) continue;
      inv.update(col.data(), r);
      for (int i = 0; i < m; ++i) B[static_cast<size_t>(i * m + r)] = a[static_cast<size_t>(i)];
      unit[static_cast<size_t>(r)] = 0;
      CHECK(distance_to_identity(product(B, inv, m), m) < 1e-9);
    }
  }
}

namespace {

// The textbook Gauss-Jordan that DenseInverse::invert() computes (unit columns first, then the
// others, each in index order; partial pivoting among the rows not yet used; every row updated
// over all m columns): row k of the result is the inverse's row of basis position k.
std::vector<double> textbook_inverse(std::vector<double> B, const std::vector<char>& unit, int m) {
  const size_t M = static_cast<size_t>(m);
  std::vector<double> W(M * M, 0.0);
  for (size_t i = 0; i < M; ++i) W[i * M + i] = 1.0;
  std::vector<char> used(M, 0);
  std::vector<int> pivot(M, -1);
  for (int pass = 0; pass < 2; ++pass)
    for (size_t k = 0; k < M; ++k) {
      if ((unit[k] != 0) != (pass == 0)) continue;
      double best = 0.0, norm = 0.0;
      size_t p = M;
      for (size_t r = 0; r < M; ++r) {
        const double v = std::abs(B[r * M + k]);
        norm = std::max(norm, v);
        if (!used[r] && v > best) {
          best = v;
          p = r;
        }
      }
      REQUIRE(p < M);
      REQUIRE(best > 1e-11 * std::max(1.0, norm));
      pivot[k] = static_cast<int>(p);
      used[p] = 1;
      const double inv = 1.0 / B[p * M + k];
      for (size_t c = 0; c < M; ++c) {
        B[p * M + c] *= inv;
        W[p * M + c] *= inv;
      }
      for (size_t r = 0; r < M; ++r) {
        if (r == p) continue;
        const double f = B[r * M + k];
        if (f == 0.0) continue;
        for (size_t c = 0; c < M; ++c) {
          B[r * M + c] -= f * B[p * M + c];
          W[r * M + c] -= f * W[p * M + c];
        }
      }
    }
  std::vector<double> X(M * M);
  for (size_t k = 0; k < M; ++k)
    std::copy_n(W.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(pivot[k]) * M), M,
                X.begin() + static_cast<std::ptrdiff_t>(k * M));
  return X;
}

std::uint64_t bits(double v) {
  std::uint64_t u = 0;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

}  // namespace

// invert() skips the rows of a unit column (nothing to eliminate) and updates the basis matrix
// only in the columns not yet eliminated; neither may change a bit of the inverse (dense_simplex's
// iterates, and with them the golden traces, depend on it).
TEST_CASE("glmo lp: the dense inverse is bitwise the textbook Gauss-Jordan (unit columns, sparse columns)") {
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::bernoulli_distribution coin(0.4);
  int compared = 0;
  for (int m : {1, 2, 5, 11, 25, 40})
    for (int trial = 0; trial < 20; ++trial) {
      const size_t M = static_cast<size_t>(m);
      std::vector<double> B(M * M, 0.0);
      std::vector<char> unit(M, 0);
      // A random set of logical rows (each -e_r at a random position), the other positions dense
      // or half-sparse structurals, shuffled.
      std::vector<int> rows(M), positions(M);
      for (size_t i = 0; i < M; ++i) rows[i] = positions[i] = static_cast<int>(i);
      std::shuffle(positions.begin(), positions.end(), rng);
      for (size_t i = 0; i < M; ++i) {
        const size_t k = static_cast<size_t>(positions[i]);
        if (coin(rng)) {
          unit[k] = 1;
          B[static_cast<size_t>(rows[i]) * M + k] = -1.0;
        } else {
          const bool sparse = coin(rng);
          for (size_t r = 0; r < M; ++r) B[r * M + k] = sparse && coin(rng) ? 0.0 : U(rng);
        }
      }
      DenseInverse inv;
      inv.resize(m);
      double* Bm = inv.clear_matrix();
      std::copy(B.begin(), B.end(), Bm);
      if (inv.invert([&](int k) { return unit[static_cast<size_t>(k)] != 0; }) != 0) continue;  // singular draw
      const std::vector<double> X = textbook_inverse(B, unit, m);
      int differing = 0;
      for (size_t k = 0; k < M; ++k)
        for (size_t c = 0; c < M; ++c)
          differing += bits(inv.at(static_cast<int>(k), static_cast<int>(c))) != bits(X[k * M + c]);
      CHECK(differing == 0);
      ++compared;
    }
  CHECK(compared >= 100);
}

TEST_CASE("glmo lp: a singular basis: the dependent column is rejected, its row left uncovered") {
  // Columns 0 and 2 are equal: the later one (in pivot order) finds no acceptable pivot.
  const int m = 3;
  const std::vector<double> B = {1.0, 0.0, 1.0,  //
                                 2.0, 1.0, 2.0,  //
                                 3.0, 0.0, 3.0};
  DenseInverse inv;
  inv.resize(m);
  double* M = inv.clear_matrix();
  std::copy(B.begin(), B.end(), M);
  CHECK(inv.invert([](int) { return false; }) == 1);
  CHECK(inv.pivot_row(0) == 2);  // partial pivoting: |3| is the largest entry of column 0
  CHECK(inv.pivot_row(1) == 1);
  CHECK(inv.pivot_row(2) == -1);
  CHECK(inv.row_used(1));
  CHECK(inv.row_used(2));
  CHECK_FALSE(inv.row_used(0));
}

TEST_CASE("glmo lp: the model's rows and bounds by column, solved by Clp, and the x-map by variable") {
  // min -x0 - 2 x1 + 3  s.t.  x0 + x1 <= 4,  x1 - x0 >= -1 (written with a constant: x1 - x0 + 1 >= 0),
  // 0 <= x0 <= 3, 0 <= x1 <= 2.  Optimum x = (2, 2), value -6 + 3 = -3.
  scfw::Model m;
  const scfw::Var x0 = m.add_var(0.0, 3.0), x1 = m.add_var(0.0, 2.0);
  m.add_row(scfw::Expr(x0) + scfw::Expr(x1), -scfw::inf, 4.0);
  m.add_row(scfw::Expr(x1) - scfw::Expr(x0) + 1.0, 0.0, scfw::inf);
  scfw::Expr objective = -1.0 * scfw::Expr(x0) - 2.0 * scfw::Expr(x1) + 3.0;
  objective.normalize();
  const scfw::lp::SparseLp lp = scfw::lp::SparseLp::from_model(m, objective);
  CHECK(lp.num_vars == 2);
  CHECK(lp.num_rows == 2);
  CHECK(lp.row_lo[1] == -1.0);  // the constant moved into the bound
  CHECK(lp.row_up[0] == 4.0);
  CHECK(lp.cols[0] == std::vector<std::pair<int, double>>{{0, 1.0}, {1, -1.0}});
  CHECK(lp.objective_constant == 3.0);
  ClpSimplex clp;
  clp.setLogLevel(0);
  scfw::lp::load_clp(clp, lp);
  clp.dual();
  REQUIRE(clp.status() == 0);
  CHECK(clp.primalColumnSolution()[0] == doctest::Approx(2.0).epsilon(1e-12));
  CHECK(clp.primalColumnSolution()[1] == doctest::Approx(2.0).epsilon(1e-12));
  CHECK(clp.objectiveValue() + lp.objective_constant == doctest::Approx(-3.0).epsilon(1e-12));

  // x_0 = 1 + 2 v0 - v1 + v1 (the repeat cancels), x_1 = v0 + 0.5 v2: by variable, v0 -> (0, 2),
  // (1, 1); v1 does not appear; v2 -> (1, 0.5). W = V A against the dense product.
  std::vector<scfw::Expr> xs(2);
  scfw::Model vm;
  const scfw::Var v0 = vm.add_var(), v1 = vm.add_var(), v2 = vm.add_var();
  xs[0] = 1.0 + 2.0 * scfw::Expr(v0) - scfw::Expr(v1) + scfw::Expr(v1);
  xs[1] = scfw::Expr(v0) + 0.5 * scfw::Expr(v2);
  const scfw::lp::XMap map(xs);
  CHECK(map.c == std::vector<double>{1.0, 0.0});
  const scfw::lp::XByVariable by(map, 3);
  CHECK(by.var == std::vector<int>{0, 2});
  CHECK(by.start == std::vector<int>{0, 2, 3});
  CHECK(by.coord == std::vector<int>{0, 1, 1});
  CHECK(by.a == std::vector<double>{2.0, 1.0, 0.5});
  scfw::Mat V(2, 2);
  V << 1.5, -2.0, 0.25, 4.0;
  CHECK(by.w(V, 0, 0) == 1.5 * 2.0 + -2.0 * 1.0);
  CHECK(by.w(V, 1, 1) == 4.0 * 0.5);
  const std::vector<double> point = {1.0, 7.0, 2.0};
  scfw::Vec x;
  map.evaluate(point, x);
  CHECK(x[0] == 3.0);
  CHECK(x[1] == 2.0);
}

TEST_CASE("glmo lp: the u-substitution keeps the rows and columns without u and lists u's coefficients") {
  // Variables: p (0), u0 (1), u1 (2), t (3). Rows: r0: p + 2 u1 <= 1; r1: u0 = 0 (dropped);
  // r2: t - u0 - 3 u1 >= 0. Objective: t + 5 u0.
  scfw::Model m;
  const scfw::Var p = m.add_var(0.0, 1.0), u0 = m.add_var(), u1 = m.add_var(), t = m.add_var();
  m.add_row(scfw::Expr(p) + 2.0 * scfw::Expr(u1), -scfw::inf, 1.0);
  m.add_row(scfw::Expr(u0), 0.0, 0.0);
  m.add_row(scfw::Expr(t) - scfw::Expr(u0) - 3.0 * scfw::Expr(u1), 0.0, scfw::inf);
  scfw::Expr objective = scfw::Expr(t) + 5.0 * scfw::Expr(u0);
  objective.normalize();
  const scfw::lp::SparseLp lp = scfw::lp::SparseLp::from_model(m, objective);
  const scfw::lp::UElimination e(lp, {u0.index, u1.index}, {0, 1, 0});
  CHECK(e.rows == 2);
  CHECK(e.row_of == std::vector<int>{0, -1, 1});
  CHECK(e.columns == 2);
  CHECK(e.col_of == std::vector<int>{0, -1, -1, 1});
  CHECK(e.u_free);
  REQUIRE(e.uterms.size() == 4);
  // Row order, the objective (row 2 = rows) last; within a row by u index.
  const int expected[4][2] = {{0, 1}, {1, 0}, {1, 1}, {2, 0}};
  const double coef[4] = {2.0, -1.0, -3.0, 5.0};
  for (int k = 0; k < 4; ++k) {
    CHECK(e.uterms[static_cast<size_t>(k)].row == expected[k][0]);
    CHECK(e.uterms[static_cast<size_t>(k)].i == expected[k][1]);
    CHECK(e.uterms[static_cast<size_t>(k)].coef == coef[k]);
  }
  CHECK(e.dynamic_rows() == std::vector<int>{0, 1, 2});
  // A bounded u cannot be substituted.
  scfw::lp::SparseLp bounded = lp;
  bounded.col_lo[static_cast<size_t>(u1.index)] = 0.0;
  CHECK_FALSE(scfw::lp::UElimination(bounded, {u0.index, u1.index}, {}).u_free);
}

TEST_CASE("glmo lp: artificial bounds sit M from the finite other bound, grow x100 and go back in order") {
  using scfw::lp::ArtificialBounds;
  // Variables: 0 free, 1 in [2, inf), 2 in (-inf, -3], 3 in [0, 1] (boxed: never artificial).
  std::vector<double> lo{-kInf, 2.0, -kInf, 0.0}, up{kInf, kInf, -3.0, 1.0};
  std::vector<double> elo = lo, eup = up;
  ArtificialBounds art;
  art.attach(4, lo.data(), up.data(), elo.data(), eup.data());
  art.start(10.0);
  CHECK_FALSE(art.any());
  art.set(1, false);  // upper of [2, inf): 2 + M
  art.set(0, true);   // lower of a free one: 0 - M
  art.set(2, true);   // lower of (-inf, -3]: -3 - M
  art.set(0, false);  // and its upper: 0 + M
  CHECK(art.any());
  CHECK(elo == std::vector<double>{-10.0, 2.0, -13.0, 0.0});
  CHECK(eup == std::vector<double>{10.0, 12.0, -3.0, 1.0});
  CHECK(art.lower(0));
  CHECK(art.upper(0));
  CHECK_FALSE(art.lower(1));
  CHECK(art.upper(1));

  // Variable 1 nonbasic at its artificial upper bound binds; basic, it does not.
  struct Basis {
    std::vector<char> basic;
    bool basic_at(int j) const { return basic[static_cast<size_t>(j)] != 0; }
  };
  struct Cols {
    const Basis& b;
    bool basic(int j) const { return b.basic_at(j); }
  };
  Basis basis{{1, 0, 1, 0}};
  std::vector<double> x{0.0, 12.0, -5.0, 0.0};
  CHECK(art.binding(Cols{basis}, x.data()));
  x[1] = 2.0;
  CHECK_FALSE(art.binding(Cols{basis}, x.data()));

  // A row without an entering variable: involved when the leaving variable heads for an
  // artificial bound, or a nonbasic variable with one has a nonzero entry.
  const scfw::lp::Settings s;
  const std::vector<double> alpha{0.0, 0.0, 0.0, 1.0};
  CHECK(art.involved(Cols{basis}, 2, true, alpha.data(), s));
  CHECK_FALSE(art.involved(Cols{basis}, 2, false, alpha.data(), s));
  const std::vector<double> alpha1{0.0, 1e-3, 0.0, 1.0};
  CHECK(art.involved(Cols{basis}, 3, false, alpha1.data(), s));

  // Growths: M x100 up to Settings::max_escalations, every artificial bound moved out.
  for (int k = 0; k < s.max_escalations; ++k) REQUIRE(art.escalate(s));
  CHECK_FALSE(art.escalate(s));
  CHECK(elo == std::vector<double>{-1e7, 2.0, -3.0 - 1e7, 0.0});
  CHECK(eup == std::vector<double>{1e7, 2.0 + 1e7, -3.0, 1.0});

  // Dropped in the order they were first set, each variable once, the real bounds back.
  std::vector<int> order;
  art.drop([&](int j) { order.push_back(j); });
  CHECK(order == std::vector<int>{1, 0, 2});
  CHECK(elo == lo);
  CHECK(eup == up);
  CHECK_FALSE(art.any());
  CHECK_FALSE(art.lower(0));
}
