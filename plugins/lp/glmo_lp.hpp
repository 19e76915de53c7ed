// The LP layer of the GLMO plugins (clp, dense_simplex, column_generation): how the SDK `Model`
// that an OuterFunction and a Domain build becomes LP columns and rows. Not part of the SDK: a
// static library linked into those plugins only (plugins/lp/CMakeLists.txt).
//
// The GLMO step (paper, Alg. 1 line 7) is  min_{x in X} F(z + V (x - y), x).  Every GLMO here
// writes it the same way (docs/design.md, "The GLMO model"):
//   * the domain's variables and rows, with x_j = c_j + sum_v a_jv var_v (the x-map, XMap);
//   * n free variables u, u = z + V (x - y): either explicit rows (clp) or substituted out
//     (dense_simplex, the dense master of column_generation: UElimination);
//   * the outer function's epigraph rows on (u, x) and its objective.
// Only the u-rows (or, substituted, the rows that mention u) change with (z, V, y): their V
// coefficients and right-hand sides. What stays is built once, in each plugin's setup().
#pragma once

#include <scfw/scfw.hpp>

#include <ClpSimplex.hpp>

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace scfw::lp {

// Clp's infinity for scfw's.
inline double clp_bound(double v) {
  if (v == scfw::inf) return COIN_DBL_MAX;
  if (v == -scfw::inf) return -COIN_DBL_MAX;
  return v;
}

// The GLMO's model over a domain with an LP model: the domain's model, n free variables
// u[0..n-1] (added after the domain's variables) and the outer function's model on (u, x).
struct GlmoModel {
  scfw::Model model;
  std::vector<scfw::Expr> xs;     // x_j as the domain returned it (XMap normalizes a copy)
  std::vector<scfw::Expr> u;      // u_i as expressions (one term each)
  std::vector<int> u_var;         // model variable of u_i
  scfw::Expr objective;           // F's model objective, normalized, with its constant
  bool domain_has_cones = false;  // the domain's own model has second-order cones
};

// The largest magnitude of a finite number the model hands to an LP solver: coefficients,
// objective entries, bounds and right-hand sides (Clp asserts on an objective entry of 1e25 and
// treats bounds beyond 1e27 as infinite; a declared parameter range keeps every plugin's entries
// far below). Infinite bounds are fine; NaN never is.
inline constexpr double kLpLimit = 1e20;

// Checks the part of a model added by `who` ("the domain's model", "the outer function's
// model"): the variables from first_var on (bounds), the rows from first_row on (variables and
// coefficients, bounds), the cones from first_cone on, the expressions `exprs` (labelled
// `label`[j]) and, when given, the objective. Throws scfw::Error("<glmo>: <who>: ...") for a
// variable that is not in the model, a NaN, or a finite number beyond kLpLimit.
void check_model(const std::string& glmo, const std::string& who, const scfw::Model& m, int first_var,
                 int first_row, int first_cone, std::span<const scfw::Expr> exprs, const char* label,
                 const scfw::Expr* objective);

// Builds the GlmoModel; `glmo` names the plugin in the errors (n, d < 1; a domain without an LP
// model: CapabilityError; a model with the wrong number of coordinates; check_model's errors).
GlmoModel build_model(const std::string& glmo, const scfw::OuterFunction& outer,
                      const scfw::Domain& domain, int n, int d);

// solve()'s arguments against the sizes set up: throws "<glmo>: solve() got z, V, y of sizes ...";
// and their entries: NaN or beyond kLpLimit throws "<glmo>: solve() got V[i,j] = ...".
void check_solve_sizes(const char* glmo, const scfw::Vec& z, const scfw::Mat& V,
                       const scfw::Vec& y, int n, int d);
// The same for a Jacobian: a dense one as above, a sparse one over its stored values (a bad entry
// is named by its row and column).
void check_solve_sizes(const char* glmo, const scfw::Vec& z, const scfw::Jacobian& V,
                       const scfw::Vec& y, int n, int d);

// The x-map x_j = c_j + sum_v a_jv var_v, with each x_j normalized (variables ascending, no
// repeats, no zeros).
struct XMap {
  std::vector<scfw::Expr> xs;  // normalized
  std::vector<double> c;       // the constants c_j

  explicit XMap(std::vector<scfw::Expr> x);
  int dim() const { return static_cast<int>(xs.size()); }
  // x_j at a point given by one value per model variable.
  void evaluate(std::span<const double> values, scfw::Vec& x) const;
};

// The same map column by column, over the variables that appear in some x_j (clp's u-row
// coefficients are per variable): var[k] is the model variable and entries start[k] ..
// start[k+1]-1 of (coord, a) are its (j, a_jv), j ascending.
struct XByVariable {
  std::vector<int> var;
  std::vector<int> start, coord;
  std::vector<double> a;

  XByVariable(const XMap& x, int num_vars);
  int size() const { return static_cast<int>(var.size()); }
  // W_ik = (V A)_{i, var[k]} = sum_j V_ij a_jk.
  double w(const scfw::Mat& V, int i, int k) const {
    double s = 0.0;
    for (int e = start[static_cast<size_t>(k)]; e < start[static_cast<size_t>(k) + 1]; ++e)
      s += V(i, coord[static_cast<size_t>(e)]) * a[static_cast<size_t>(e)];
    return s;
  }
};

// An LP by columns, the sparse form Clp loads: per variable its (row, coefficient) list (rows in
// ascending order), bounds, cost; row bounds; the objective's constant.
struct SparseLp {
  int num_vars = 0, num_rows = 0;
  std::vector<std::vector<std::pair<int, double>>> cols;
  std::vector<double> col_lo, col_up, cost, row_lo, row_up;
  double objective_constant = 0.0;

  // The model's rows and bounds and the objective (normalized, with its constant). Model rows
  // are stored normalized with their constant folded into the bounds (Model::add_row).
  static SparseLp from_model(const scfw::Model& m, const scfw::Expr& objective);
  // Appends a row lo <= terms <= up (terms: (variable, coefficient)); returns its index.
  int add_row(const std::vector<std::pair<int, double>>& terms, double lo, double up);
};

// The GLMO LP is feasible whenever the domain is nonempty and the outer model is feasible for
// every u (u is free; the shipped outer functions' epigraph variables are unbounded above), so
// Clp's "infeasible" or a failed solve is then a numerical failure: throws "<glmo>: Clp declared
// the GLMO LP <verdict>; ...: a numerical failure (the
// largest LP entry is ...); hint: ..." with the largest finite magnitude among the loaded
// coefficients, costs and bounds.
[[noreturn]] void clp_numerical_failure(const std::string& glmo, const ClpSimplex& lp, const std::string& verdict);

// The same for a GLMO's own simplex (dense_simplex, column_generation's master): "<glmo>: <what>
// is infeasible; over a nonempty domain, ... this is a numerical failure; hint: ...". A plugin
// whose outer model is infeasible for some u breaks the SDK contract (roles.hpp) and gets the
// same line: the first half says what was seen, the second what it means for every shipped one.
std::string infeasible_lp_message(const std::string& glmo, const std::string& what);

// Loads the LP into Clp (infinite bounds as COIN_DBL_MAX). Clp options that must hold while
// loading (small elements, scaling) are the caller's, set before.
void load_clp(ClpSimplex& lp, const SparseLp& s);

// The u variables substituted out: u_i = g_i + (terms in the other variables), g and the terms
// given per solve. What stays of the LP: the rows not dropped (row_of) and the variables that are
// not u (col_of, numbered in order); the u coefficients of the kept rows and of the objective
// become UTerms, in row order (the objective last, as row `rows`), within a row by u index.
struct UElimination {
  struct UTerm {
    int row;  // kept row, or `rows` for the objective
    int i;    // u_i
    double coef;
  };
  int rows = 0, columns = 0;
  std::vector<int> row_of;  // LP row -> kept row (-1: dropped)
  std::vector<int> col_of;  // LP variable -> column (-1: a u variable)
  std::vector<int> u_of;    // LP variable -> i when it is u_i, else -1
  std::vector<UTerm> uterms;
  bool u_free = true;  // every u_i has infinite bounds (the substitution needs it)

  // drop[r]: the LP row is dropped (column_generation: the u-rows that define u). drop empty:
  // no row is dropped.
  UElimination(const SparseLp& lp, const std::vector<int>& u_var, const std::vector<char>& drop);
  // The kept rows that mention some u (and `rows` for the objective when it does), ascending.
  std::vector<int> dynamic_rows() const;
};

}  // namespace scfw::lp
