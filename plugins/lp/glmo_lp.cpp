#include "glmo_lp.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <CoinPackedMatrix.hpp>

#include <scfw/helpers.hpp>

#include <algorithm>
#include <cmath>

namespace scfw::lp {

namespace {

[[noreturn, gnu::cold]] void bad_model(const std::string& glmo, const std::string& who, const std::string& what) {
  throw scfw::Error(glmo + ": " + who + ": " + what);
}

// A finite entry within the limit (false for NaN and infinities).
bool lp_number(double v) { return std::abs(v) <= kLpLimit; }
// A bound: infinite, or a finite entry within the limit (false for NaN).
bool lp_bound(double v) { return lp_number(v) || v == scfw::inf || v == -scfw::inf; }

std::string limit_words() {
  return "LP entries must be finite and at most " + scfw::format_number(kLpLimit) + " in magnitude";
}

std::string var_words(const scfw::Model& m, int v) {
  const std::string& name = m.name(v);
  return "variable " + std::to_string(v) + (name.empty() ? "" : " (\"" + name + "\")");
}

void check_expr(const std::string& glmo, const std::string& who, const scfw::Model& m, const scfw::Expr& e,
                const std::string& what) {
  if (const auto* t = m.unknown_term(e))
    bad_model(glmo, who,
              what + " uses variable " + std::to_string(t->first) + ", but the model has " +
                  std::to_string(m.num_vars()) + " variables");
  for (const auto& [v, c] : e.terms())
    if (!lp_number(c))
      bad_model(glmo, who,
                what + " has coefficient " + scfw::format_number(c) + " at " + var_words(m, v) + "; " +
                    limit_words());
  if (!lp_number(e.constant()))
    bad_model(glmo, who, what + " has constant " + scfw::format_number(e.constant()) + "; " + limit_words());
}

}  // namespace

void check_model(const std::string& glmo, const std::string& who, const scfw::Model& m, int first_var,
                 int first_row, int first_cone, std::span<const scfw::Expr> exprs, const char* label,
                 const scfw::Expr* objective) {
  for (int v = std::max(first_var, 0); v < m.num_vars(); ++v)
    if (!lp_bound(m.lower(v)) || !lp_bound(m.upper(v)))
      bad_model(glmo, who,
                var_words(m, v) + " has bounds [" + scfw::format_number(m.lower(v)) + ", " +
                    scfw::format_number(m.upper(v)) + "]; " + limit_words());
  const auto& rows = m.rows();
  for (size_t r = static_cast<size_t>(std::max(first_row, 0)); r < rows.size(); ++r) {
    const std::string what = "row " + std::to_string(r);
    check_expr(glmo, who, m, rows[r].expr, what);
    if (!lp_bound(rows[r].lower) || !lp_bound(rows[r].upper))
      bad_model(glmo, who,
                what + " has bounds [" + scfw::format_number(rows[r].lower) + ", " +
                    scfw::format_number(rows[r].upper) + "]; " + limit_words());
  }
  const auto& cones = m.cones();
  for (size_t k = static_cast<size_t>(std::max(first_cone, 0)); k < cones.size(); ++k) {
    const std::string what = "cone " + std::to_string(k);
    check_expr(glmo, who, m, cones[k].t, what);
    for (const scfw::Expr& x : cones[k].xs) check_expr(glmo, who, m, x, what);
  }
  for (size_t j = 0; j < exprs.size(); ++j)
    check_expr(glmo, who, m, exprs[j], std::string(label) + "[" + std::to_string(j) + "]");
  if (objective) check_expr(glmo, who, m, *objective, "the objective");
}

GlmoModel build_model(const std::string& glmo, const scfw::OuterFunction& outer,
                      const scfw::Domain& domain, int n, int d) {
  if (n < 1 || d < 1)
    throw scfw::Error(glmo + ": the GLMO needs n >= 1 and d >= 1, got n = " + std::to_string(n) +
                      ", d = " + std::to_string(d));
  if (!domain.capabilities().has(scfw::Capability::LpModel))
    throw scfw::CapabilityError(glmo +
                                ": the domain has no LP model (it is known only through its LMO); "
                                "the " +
                                glmo + " GLMO needs the domain's model");
  GlmoModel g;
  g.xs = domain.model(g.model);
  g.domain_has_cones = !g.model.cones().empty();
  if (static_cast<int>(g.xs.size()) != d)
    throw scfw::Error(glmo + ": the domain's model has " + std::to_string(g.xs.size()) +
                      " coordinates, expected d = " + std::to_string(d));
  check_model(glmo, "the domain's model", g.model, 0, 0, 0, g.xs, "x", nullptr);
  const int outer_var = g.model.num_vars() + n, outer_row = static_cast<int>(g.model.rows().size()),
            outer_cone = static_cast<int>(g.model.cones().size());
  g.u.reserve(static_cast<size_t>(n));
  g.u_var.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const scfw::Var v = g.model.add_var(-scfw::inf, scfw::inf, "u[" + std::to_string(i) + "]");
    g.u_var.push_back(v.index);
    g.u.emplace_back(v);
  }
  g.objective = outer.model(g.model, g.u, g.xs);
  check_model(glmo, "the outer function's model", g.model, outer_var, outer_row, outer_cone, {}, "", &g.objective);
  g.objective.normalize();
  return g;
}

namespace {
// The parts of check_solve_sizes that the dense and the sparse V share.
void check_sizes(const char* glmo, const scfw::Vec& z, long rows, long cols, const scfw::Vec& y, int n, int d) {
  if (z.size() != n || rows != n || cols != d || y.size() != d)
    throw scfw::Error(std::string(glmo) + ": solve() got z, V, y of sizes " + std::to_string(z.size()) + ", " +
                      std::to_string(rows) + "x" + std::to_string(cols) + ", " +
                      std::to_string(y.size()) + "; set up for n = " + std::to_string(n) +
                      ", d = " + std::to_string(d));
}
// The hot path is one branch-free pass per argument: |v| <= limit fails for NaN (which fails
// every comparison), the infinities and huge entries (SSE2: four entries per step, the sign bit
// masked off); the entry is found only on failure, with the same test.
bool lp_fine(const double* v, long size) {
  long i = 0;
  bool fine = true;
#if defined(__SSE2__)
  const __m128d limit = _mm_set1_pd(kLpLimit);
  const __m128d magnitude = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  __m128d ok0 = _mm_cmple_pd(_mm_setzero_pd(), limit), ok1 = ok0;
  for (; i + 4 <= size; i += 4) {
    ok0 = _mm_and_pd(ok0, _mm_cmple_pd(_mm_and_pd(_mm_loadu_pd(v + i), magnitude), limit));
    ok1 = _mm_and_pd(ok1, _mm_cmple_pd(_mm_and_pd(_mm_loadu_pd(v + i + 2), magnitude), limit));
  }
  fine = _mm_movemask_pd(_mm_and_pd(ok0, ok1)) == 3;
#endif
  for (; i < size; ++i) fine = fine && std::abs(v[i]) <= kLpLimit;
  return fine;
}
template <class M>
bool lp_fine(const M& m) {
  return lp_fine(m.data(), static_cast<long>(m.size()));
}
[[noreturn]] void bad_entry(const char* glmo, const char* what, double v, long i, long j) {
  std::string at = what;  // appended to, not concatenated: GCC 12 warns (-Wrestrict) on "x" + string
  at += '[';
  at += std::to_string(i);
  if (j >= 0) {
    at += ',';
    at += std::to_string(j);
  }
  throw scfw::Error(std::string(glmo) + ": solve() got " + at + "] = " + scfw::format_number(v) +
                    "; LP entries must be finite and at most " + scfw::format_number(kLpLimit) +
                    " in magnitude");
}
}  // namespace

void check_solve_sizes(const char* glmo, const scfw::Vec& z, const scfw::Mat& V,
                       const scfw::Vec& y, int n, int d) {
  check_sizes(glmo, z, V.rows(), V.cols(), y, n, d);
  if (lp_fine(z) && lp_fine(V) && lp_fine(y)) [[likely]]
    return;
  for (int i = 0; i < n; ++i)
    if (!(std::abs(z[i]) <= kLpLimit)) [[unlikely]]
      bad_entry(glmo, "z", z[i], i, -1);
  for (int j = 0; j < d; ++j) {
    if (!(std::abs(y[j]) <= kLpLimit)) [[unlikely]]
      bad_entry(glmo, "y", y[j], j, -1);
    for (int i = 0; i < n; ++i)
      if (!(std::abs(V(i, j)) <= kLpLimit)) [[unlikely]]
        bad_entry(glmo, "V", V(i, j), i, j);
  }
}

void check_solve_sizes(const char* glmo, const scfw::Vec& z, const scfw::Jacobian& V,
                       const scfw::Vec& y, int n, int d) {
  if (!V.is_sparse()) return check_solve_sizes(glmo, z, V.dense(), y, n, d);
  check_sizes(glmo, z, V.rows(), V.cols(), y, n, d);
  if (lp_fine(z) && lp_fine(V.values()) && lp_fine(y)) [[likely]]
    return;
  for (int i = 0; i < n; ++i)
    if (!(std::abs(z[i]) <= kLpLimit)) bad_entry(glmo, "z", z[i], i, -1);
  for (int j = 0; j < d; ++j)
    if (!(std::abs(y[j]) <= kLpLimit)) bad_entry(glmo, "y", y[j], j, -1);
  for (int i = 0; i < n; ++i) {
    const scfw::Jacobian::Row r = V.row(i);
    for (std::int64_t k = 0; k < r.size; ++k)
      if (!(std::abs(r.values[k]) <= kLpLimit)) bad_entry(glmo, "V", r.values[k], i, r.col(k));
  }
}

XMap::XMap(std::vector<scfw::Expr> x) : xs(std::move(x)), c(xs.size(), 0.0) {
  for (size_t j = 0; j < xs.size(); ++j) {
    xs[j].normalize();
    c[j] = xs[j].constant();
  }
}

void XMap::evaluate(std::span<const double> values, scfw::Vec& x) const {
  const int d = dim();
  if (x.size() != d) x.resize(d);
  for (int j = 0; j < d; ++j) x[j] = xs[static_cast<size_t>(j)].evaluate(values);
}

XByVariable::XByVariable(const XMap& x, int num_vars) {
  std::vector<std::vector<std::pair<int, double>>> by_var(static_cast<size_t>(num_vars));
  for (int j = 0; j < x.dim(); ++j)
    for (const auto& [v, a] : x.xs[static_cast<size_t>(j)].terms()) by_var[static_cast<size_t>(v)].emplace_back(j, a);
  start.assign(1, 0);
  for (int v = 0; v < num_vars; ++v) {
    if (by_var[static_cast<size_t>(v)].empty()) continue;
    var.push_back(v);
    for (const auto& [j, av] : by_var[static_cast<size_t>(v)]) {
      coord.push_back(j);
      a.push_back(av);
    }
    start.push_back(static_cast<int>(coord.size()));
  }
}

SparseLp SparseLp::from_model(const scfw::Model& m, const scfw::Expr& objective) {
  SparseLp s;
  s.num_vars = m.num_vars();
  s.cols.assign(static_cast<size_t>(s.num_vars), {});
  s.col_lo.resize(static_cast<size_t>(s.num_vars));
  s.col_up.resize(static_cast<size_t>(s.num_vars));
  s.cost.assign(static_cast<size_t>(s.num_vars), 0.0);
  for (int v = 0; v < s.num_vars; ++v) {
    s.col_lo[static_cast<size_t>(v)] = m.lower(v);
    s.col_up[static_cast<size_t>(v)] = m.upper(v);
  }
  for (const auto& [v, c] : objective.terms()) s.cost[static_cast<size_t>(v)] = c;
  s.objective_constant = objective.constant();
  for (const scfw::Row& r : m.rows()) s.add_row(r.expr.terms(), r.lower, r.upper);
  return s;
}

int SparseLp::add_row(const std::vector<std::pair<int, double>>& terms, double lo, double up) {
  const int r = num_rows++;
  for (const auto& [v, a] : terms) cols[static_cast<size_t>(v)].emplace_back(r, a);
  row_lo.push_back(lo);
  row_up.push_back(up);
  return r;
}

void clp_numerical_failure(const std::string& glmo, const ClpSimplex& lp, const std::string& verdict) {
  double largest = 0.0;
  const auto scan = [&](const double* v, int count) {
    for (int i = 0; v && i < count; ++i)
      if (std::abs(v[i]) < 1e27) largest = std::max(largest, std::abs(v[i]));  // Clp's infinity is above
  };
  ClpSimplex& m = const_cast<ClpSimplex&>(lp);  // Clp's accessors are not const
  scan(m.matrix()->getElements(), static_cast<int>(m.matrix()->getNumElements()));
  scan(m.objective(), m.numberColumns());
  scan(m.columnLower(), m.numberColumns());
  scan(m.columnUpper(), m.numberColumns());
  scan(m.rowLower(), m.numberRows());
  scan(m.rowUpper(), m.numberRows());
  throw scfw::Error(glmo + ": Clp declared the GLMO LP " + verdict +
                    "; over a nonempty domain, with an outer model feasible for every u (every shipped outer "
                    "function's is), this is a numerical failure (the largest LP entry is " +
                    scfw::format_number(largest, 3) +
                    " in magnitude); hint: scale the data so that f and its Jacobian are of moderate size, or "
                    "shrink the domain");
}

std::string infeasible_lp_message(const std::string& glmo, const std::string& what) {
  return glmo + ": " + what +
         " is infeasible; over a nonempty domain, with an outer model feasible for every u (every shipped outer "
         "function's is), this is a numerical failure; hint: scale the data so that f and its Jacobian are of "
         "moderate size, or shrink the domain";
}

void load_clp(ClpSimplex& lp, const SparseLp& s) {
  std::vector<CoinBigIndex> start(1, 0);
  std::vector<int> index;
  std::vector<double> value;
  for (const auto& col : s.cols) {
    for (const auto& [r, a] : col) {
      index.push_back(r);
      value.push_back(a);
    }
    start.push_back(static_cast<CoinBigIndex>(index.size()));
  }
  const auto clp = [](const std::vector<double>& b) {
    std::vector<double> out(b.size());
    std::transform(b.begin(), b.end(), out.begin(), clp_bound);
    return out;
  };
  const std::vector<double> col_lo = clp(s.col_lo), col_up = clp(s.col_up), row_lo = clp(s.row_lo),
                            row_up = clp(s.row_up);
  lp.loadProblem(s.num_vars, s.num_rows, start.data(), index.data(), value.data(), col_lo.data(),
                 col_up.data(), s.cost.data(), row_lo.data(), row_up.data());
}

UElimination::UElimination(const SparseLp& lp, const std::vector<int>& u_var,
                           const std::vector<char>& drop) {
  row_of.assign(static_cast<size_t>(lp.num_rows), -1);
  for (int r = 0; r < lp.num_rows; ++r)
    if (drop.empty() || !drop[static_cast<size_t>(r)]) row_of[static_cast<size_t>(r)] = rows++;
  u_of.assign(static_cast<size_t>(lp.num_vars), -1);
  for (size_t i = 0; i < u_var.size(); ++i) u_of[static_cast<size_t>(u_var[i])] = static_cast<int>(i);
  col_of.assign(static_cast<size_t>(lp.num_vars), -1);
  for (int v = 0; v < lp.num_vars; ++v) {
    const int i = u_of[static_cast<size_t>(v)];
    if (i < 0) {
      col_of[static_cast<size_t>(v)] = columns++;
      continue;
    }
    if (lp.col_lo[static_cast<size_t>(v)] != -scfw::inf || lp.col_up[static_cast<size_t>(v)] != scfw::inf)
      u_free = false;
    for (const auto& [r, a] : lp.cols[static_cast<size_t>(v)])
      if (row_of[static_cast<size_t>(r)] >= 0) uterms.push_back({row_of[static_cast<size_t>(r)], i, a});
    if (lp.cost[static_cast<size_t>(v)] != 0.0) uterms.push_back({rows, i, lp.cost[static_cast<size_t>(v)]});
  }
  // Row order (the objective last), within a row by u index: the order the rows list them in.
  std::stable_sort(uterms.begin(), uterms.end(), [](const UTerm& a, const UTerm& b) { return a.row < b.row; });
}

std::vector<int> UElimination::dynamic_rows() const {
  std::vector<int> out;
  for (const UTerm& t : uterms)
    if (out.empty() || out.back() != t.row) out.push_back(t.row);
  return out;
}

}  // namespace scfw::lp
