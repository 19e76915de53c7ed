// GLMO `clp`: x_{k+1} in argmin_{x in X} F(z_k + V_k (x - y_k), x)  (paper, Alg. 1 line 7),
// solved as one LP with Clp's simplex.
//
// The LP has the same structure at every iteration; only z, V and y change (docs/design.md, "The GLMO
// model"). So it is built once, in setup():
//   * the domain's variables and rows, with x_j = c_j + sum_v a_jv var_v;
//   * n free variables u and n rows  u_i - sum_v W_iv var_v = z_i - sum_j V_ij (y_j - c_j),
//     W = V A, i.e. u = z + V (x - y) — the only rows that change;
//   * the outer function's epigraph on (u, x) and its objective.
// Every variable that appears in some x_j gets a coefficient slot in every u-row, allocated once.
// Per solve we overwrite those element values in place in Clp's column-ordered matrix, reset the
// u-rows' right-hand sides and re-solve from the previous optimal basis (warm start): with the
// momentum trackers V and z drift slowly, so the old basis is usually optimal or a few pivots
// away.
//
// Second-order cones ||xs||_2 <= t (an l2 ball domain, the norm p = 2 and chi^2-DRO outer
// functions, an l2 regularizer) are not native to Clp. They are solved by outer approximation of
// an exact lifting to 2-D cones:
//   * Lifting (setup). A cone with k >= 2 entries becomes k - 1 cones ||(a, b)||_2 <= s in the
//     plane, a balanced binary tree (the first stage of Ben-Tal & Nemirovski's construction):
//     entries are paired level by level with a new variable s >= 0 per pair, the last pair bounded
//     by t itself (an odd entry moves up unpaired); ||xs|| <= t iff such s exist, so the lifting is
//     exact. k = 1 is the two rows +-xs_1 <= t, k = 0 the row t >= 0. Each 2-D cone starts with
//     the tangent cuts of a regular polygon (kPolygon directions; kQuadrant + 1 when both entries
//     are tree variables >= 0), permanent model rows. Why 2-D: Kelley's tangent cuts on a cone
//     with k entries zig-zag (measured on the 100-entry ball cone: the 200-solve cap at a
//     relative gap ~2.6), while in the plane the LP point sits on the bisector of two adjacent
//     tangents at angles phi +- h, and h = arccos(t* / ||(a*, b*)||) is known, so the next cuts
//     shrink the bracket geometrically: the cone's error 1/cos(h) - 1 ~ h^2 / 2 drops 16-fold per
//     round with kSplit = 2 (measured: 6-10 LP solves to 1e-7 on the ball at d = 100).
//   * each solve() re-solves the LP warm; for every 2-D cone violated at the LP point,
//     ||(a*, b*)|| > t* + 1e-3 tolerance max(1, |t*|), it appends the Kelley tangent cut at phi,
//     the angle of (a*, b*), and the cuts at phi + j h / kSplit, 0 < |j| < kSplit (all tangent to
//     the circle, hence valid), and re-solves warm (dual simplex: the old basis plus the new
//     basic slacks stays dual feasible), until
//        upper - lower <= tolerance * max(1, |upper|)
//     where lower = the LP value (a certified lower bound: the cuts relax the 2-D cones, whose
//     tree is exact) and upper = F(z + V (x - y), x) evaluated by the outer function's value()
//     at a feasible x: the LP's x itself when the domain has no cone (its rows hold to Clp's
//     feasibility tolerance, as in the cone-free path), otherwise the LP's x pulled back toward
//     the domain's initial point by bisection on Domain::contains (for the l2 ball and initial
//     point 0 that is the radial scaling r x / ||x||). The loop also stops when nothing is
//     violated, when the last cuts did not move the LP point 3 rounds in a row, or after
//     kMaxRounds LP solves (the certified gap is then reported as is).
//   * The result is {value = upper, lower_bound = lower}; the returned x is the feasible one.
//   * A cone model that Clp calls infeasible (it cannot be: cuts only relax) is re-solved once
//     with every added cut dropped, from the slack basis, with the other simplex variant
//     (measured: the dual simplex once called the chi^2-DRO polygon LP at n = 15, V = 0
//     infeasible).
// Cuts live in the space of model variables (u included), so they stay valid when z, V and y
// change: they are kept from one solve to the next (a warm pool); beyond kMaxCutsPerCone added
// cuts per 2-D cone the oldest inactive ones are dropped at the start of a solve (never within
// a solve: measured, dropping inactive cuts between rounds made the loop cycle).
// Alternatives considered: the full Ben-Tal & Nemirovski polyhedral tower (each 2-D cone by
// O(log 1/eps) rotations) certifies eps a priori but at 1e-7 needs ~12 levels, i.e. ~3500 extra
// rows for the d = 100 ball, larger than the cut LP here; handling a ball domain in closed form
// does not extend to a general outer F.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <ClpSimplex.hpp>
#include <CoinPackedMatrix.hpp>

#include "clp_state.hpp"
#include "glmo_lp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace {

namespace lp = scfw::lp;

class ClpGlmo final : public scfw::Glmo {
 public:
  ClpGlmo(const scfw::Params& p, const scfw::Context& ctx) : memory_(ctx.memory) {
    dual_ = p.get<std::string>("algorithm") == "dual";  // or "primal", the other declared choice
    warm_start_ = p.get<bool>("warm_start");
    tolerance_ = p.get<double>("tolerance");
  }

  bool supports(const scfw::OuterFunction&, const scfw::Domain& domain, int, int, std::string* why) const override {
    if (domain.capabilities().has(scfw::Capability::LpModel)) return true;
    if (why)
      *why = "clp: the domain has no LP model (it is known only through its LMO); the clp GLMO needs the domain's model";
    return false;
  }

  void setup(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d) override;
  scfw::GlmoResult solve(const scfw::Vec& z, const scfw::Jacobian& Vj, const scfw::Vec& y,
                         scfw::Vec& x) override;
  /// SparseV: a sparse V writes the u-rows from the pattern's entries (set_u_rows_sparse).
  /// SavedState: see save_state().
  scfw::Capabilities capabilities() const override {
    return scfw::Capability::SparseV | scfw::Capability::SavedState;
  }

  // Checkpoints: the warm start is Clp's basis and solution arrays, and for cone models the cut
  // pool (its rows are rebuilt from (cone, normal) in the saved order). The u-rows are rewritten
  // by every solve.
  void save_state(scfw::StateWriter& w) const override {
    if (!lp_) throw scfw::Error("clp: save_state() called before setup()");
    w.put("cut_cones", cut_cone_);
    std::vector<double> normals;
    for (const auto& g : cut_normal_) normals.insert(normals.end(), g.begin(), g.end());
    w.put("cut_normals", normals);
    w.put("last", std::vector<std::int64_t>{last_rounds_, last_cuts_added_});
    lp::save_clp_state(*lp_, w);
  }
  void load_state(scfw::StateReader& r) override {
    if (!lp_) throw scfw::Error("clp: load_state() called before setup()");
    std::vector<int> cones;
    std::vector<double> normals;
    r.get("cut_cones", cones);
    r.get("cut_normals", normals);
    std::vector<std::pair<int, std::vector<double>>> cuts;
    size_t at = 0;
    for (int c : cones) {
      if (c < 0 || c >= static_cast<int>(cones_.size())) throw scfw::Error("clp: saved cut of an unknown cone");
      const size_t k = cones_[static_cast<size_t>(c)].xs.size();
      if (at + k > normals.size()) throw scfw::Error("clp: saved cut normals are too short");
      cuts.emplace_back(c, std::vector<double>(normals.begin() + static_cast<long>(at), normals.begin() + static_cast<long>(at + k)));
      at += k;
    }
    if (at != normals.size()) throw scfw::Error("clp: saved cut normals are too long");
    if (lp_->numberRows() != first_cut_row_ || !cut_cone_.empty())
      throw scfw::Error("clp: load_state() needs a freshly set-up GLMO");
    add_cuts(cuts);
    std::vector<std::int64_t> last(2);
    r.get_same_size("last", last);
    last_rounds_ = static_cast<long>(last[0]);
    last_cuts_added_ = static_cast<long>(last[1]);
    lp::load_clp_state(*lp_, r);
  }

  std::string describe() const override {
    std::string s = std::string("clp (") + (dual_ ? "dual" : "primal") + " simplex, " +
                    (warm_start_ ? "warm start" : "cold start") + "; ";
    if (!lp_) return s + "not set up)";
    s += "LP " + std::to_string(lp_->numberRows()) + " rows x " +
         std::to_string(lp_->numberColumns()) + " columns";
    if (!cones_.empty()) {
      s += "; " + std::to_string(model_cones_) + " second-order cone(s) lifted to " +
           std::to_string(cones_.size()) +
           " 2-D cones, by outer-approximation cuts to relative gap " + scfw::format_number(tolerance_, 6) + ", " +
           std::to_string(cut_cone_.size()) + " cuts in the pool; last solve: " +
           std::to_string(last_rounds_) + " LP solves, " + std::to_string(last_cuts_added_) +
           " cuts added";
    }
    if (restarts_ > 0)
      s += "; " + std::to_string(restarts_) + " solve(s) restarted at the iteration cap of " +
           std::to_string(kIterationsPerEntry) + " (rows + columns)";
    return s + ")";
  }

 private:
  // Positions of the u-row coefficient slots in Clp's packed matrix. Clp may rebuild its matrix
  // storage (it compresses small elements and duplicates while loading); the positions are
  // found again whenever the storage is not the one they were found in.
  void locate_slots();
  bool slots_valid() const {
    const CoinPackedMatrix* a = lp_->matrix();
    return a->getElements() == slot_elements_ && a->getNumElements() == slot_count_;
  }

  // One second-order cone ||xs||_2 <= t of the model, expressions normalized.
  // One 2-D cone ||(xs_0, xs_1)||_2 <= t of the lifted model, expressions normalized; nonneg[i]:
  // xs_i is a tree variable (>= 0).
  struct Cone {
    scfw::Expr t;
    std::vector<scfw::Expr> xs;
    std::vector<char> nonneg;
  };
  static constexpr int kPolygon = 8;    // initial cuts of a 2-D cone with a free entry
  static constexpr int kQuadrant = 4;   // ... with both entries >= 0: kQuadrant + 1 cuts
  static constexpr int kSplit = 2;      // cuts per violated 2-D cone and round: 2 kSplit - 1
  static constexpr int kMaxCutsPerCone = 2;
  // added cuts kept per 2-D cone between solves
  static constexpr int kMaxRounds = 200;      // LP solves per GLMO solve, at most (then the gap is reported as is)

  // setup() in steps: the cones lifted to 2-D cones, their polygons, the LP loaded into Clp.
  void lift_cones(scfw::Model& m);
  void add_polygons(scfw::Model& m) const;
  void load(const lp::GlmoModel& g);
  // solve() in steps.
  struct PendingCut {  // a Kelley cut of the last round
    int cone;
    std::vector<double> normal;
    double violation;  // ||xs*|| - t* when the cut was made
  };
  struct Violations {  // the 2-D cones the LP point violates
    std::vector<int> violated;
    std::vector<std::vector<double>> normals;                // Kelley's cut of each
    std::vector<double> absolute;                            // ||xs*|| - t* of each
    std::vector<std::pair<int, std::vector<double>>> extra;  // the bracket-splitting cuts
  };
  void set_u_rows(const scfw::Vec& z, const scfw::Jacobian& V, const scfw::Vec& y);
  void set_u_rows_sparse(const scfw::Vec& z, const scfw::Jacobian& V, const scfw::Vec& y);
  scfw::GlmoResult solve_with_cuts(const scfw::Vec& z, const scfw::Jacobian& V, const scfw::Vec& y,
                                   scfw::Vec& x);
  void find_violated(std::span<const double> values, Violations& out) const;
  double upper_bound(std::span<const double> values, const scfw::Vec& z, const scfw::Jacobian& V,
                     const scfw::Vec& y);
  bool cuts_moved(const std::vector<PendingCut>& previous, std::span<const double> values) const;
  void run_lp(bool first_round);
  void trim_cuts();
  // Appends the rows  sum_i g_i xs_i - t <= 0  for each (cone c, unit normal g).
  void add_cuts(const std::vector<std::pair<int, std::vector<double>>>& cuts);
  // Pulls x back into the domain (bisection toward the initial point) when it is outside.
  void repair(scfw::Vec& x) const;

  bool dual_ = true;
  bool warm_start_ = true;
  double tolerance_ = 1e-7;
  scfw::Memory memory_;  // the run's account, charged in setup()

  const scfw::OuterFunction* outer_ = nullptr;
  const scfw::Domain* domain_ = nullptr;
  std::vector<Cone> cones_;         // the 2-D cones of the lifted model
  int model_cones_ = 0;             // the model's cones
  bool domain_has_cones_ = false;   // the domain's own model has cones (x may need repair)
  int first_cut_row_ = 0;           // added cuts are rows first_cut_row_ .. numberRows()-1
  std::vector<int> cut_cone_;       // the cone of each added cut, in row order (oldest first)
  std::vector<std::vector<double>> cut_normal_;  // its unit normal g (g^T xs <= t)
  long last_rounds_ = 0, last_cuts_added_ = 0;
  // run_lp(): the iterations of its capped Clp calls (the last call's are numberIterations()),
  // and the restarts of the run so far (describe()).
  static constexpr int kIterationsPerEntry = 20;
  long capped_iterations_ = 0, restarts_ = 0;
  scfw::Vec u_buf_, x_try_;

  std::unique_ptr<ClpSimplex> lp_;
  int n_ = 0, d_ = 0;
  int first_u_row_ = 0;    // u-row i is LP row first_u_row_ + i
  std::unique_ptr<lp::XMap> xmap_;  // x_j = c_j + a_j^T var (normalized)
  scfw::Vec x_const_;                     // c
  scfw::Expr objective_;                  // F's model objective, with its constant
  // A column by column over the variables that appear in x (xvar_->var[k] is the LP column).
  std::unique_ptr<lp::XByVariable> xvar_;
  // A sparse V (set_u_rows_sparse): LP column -> k of xvar_ (-1: not in x), and one row of W.
  std::vector<int> k_of_var_;
  std::vector<double> w_row_;
  // slot_[k * n + i]: position of W_{i, xvar_->var[k]} in the packed matrix's element array.
  std::vector<CoinBigIndex> slot_;
  const double* slot_elements_ = nullptr;
  CoinBigIndex slot_count_ = 0;
  // Per-solve buffers, sized in setup().
  scfw::Vec shift_;  // y - c
  scfw::Vec rhs_;    // z - V (y - c)
};

void ClpGlmo::setup(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d) {
  lp_.reset();
  lp::GlmoModel g = lp::build_model("clp", outer, domain, n, d);
  std::int64_t rows = 0;
  const std::uint64_t bytes = scfw::glmo_lp_bytes(domain, n, &rows);
  memory_.reserve(bytes, "clp's LP (" + std::to_string(rows) + " rows)");
  n_ = n;
  d_ = d;
  domain_has_cones_ = g.domain_has_cones;
  objective_ = g.objective;
  outer_ = &outer;
  domain_ = &domain;
  cones_.clear();
  cut_cone_.clear();
  cut_normal_.clear();
  model_cones_ = static_cast<int>(g.model.cones().size());
  last_rounds_ = last_cuts_added_ = 0;
  lift_cones(g.model);
  add_polygons(g.model);
  xmap_ = std::make_unique<lp::XMap>(std::move(g.xs));
  x_const_ = Eigen::Map<const scfw::Vec>(xmap_->c.data(), d);
  xvar_ = std::make_unique<lp::XByVariable>(*xmap_, g.model.num_vars());
  load(g);
  slot_.assign(static_cast<size_t>(xvar_->size()) * static_cast<size_t>(n), -1);
  locate_slots();
  shift_.resize(d);
  rhs_.resize(n);
  u_buf_.resize(n);
  x_try_.resize(d);
}

// Lifts every model cone ||xs||_2 <= t, k = |xs| entries, exactly into 2-D cones (a balanced
// binary tree, see the file comment):
//   k = 0: the row t >= 0;  k = 1: the two rows +-xs_1 <= t (exact);
//   k >= 2: pair the entries level by level, ||(a, b)|| <= s with a new variable s >= 0 per
//   pair (an odd entry moves up unpaired), the last pair bounded by t itself.
void ClpGlmo::lift_cones(scfw::Model& m) {
  for (const scfw::SecondOrderCone& k : m.cones()) {
    scfw::Expr t = k.t;
    t.normalize();
    if (k.xs.empty()) {
      m.add_row(t, 0.0, scfw::inf);
      continue;
    }
    if (k.xs.size() == 1) {
      m.add_le(k.xs[0], t);
      m.add_le(-k.xs[0], t);
      continue;
    }
    std::vector<scfw::Expr> level(k.xs.begin(), k.xs.end());
    std::vector<char> nonneg(level.size(), 0);
    while (level.size() >= 2) {
      std::vector<scfw::Expr> next;
      std::vector<char> next_nonneg;
      for (size_t i = 0; i + 1 < level.size(); i += 2) {
        scfw::Expr top;
        if (level.size() == 2) {
          top = t;
        } else {
          top = scfw::Expr(m.add_var(0.0, scfw::inf, "cone_s[" + std::to_string(cones_.size()) + "]"));
        }
        Cone c{top, {level[i], level[i + 1]}, {nonneg[i], nonneg[i + 1]}};
        for (scfw::Expr& e : c.xs) e.normalize();
        c.t.normalize();
        next.push_back(top);
        next_nonneg.push_back(1);
        cones_.push_back(std::move(c));
      }
      if (level.size() % 2 == 1) {
        next.push_back(level.back());
        next_nonneg.push_back(nonneg.back());
      }
      level = std::move(next);
      nonneg = std::move(next_nonneg);
    }
  }
}

// Each 2-D cone gets the permanent cuts of a regular polygon as model rows: unit normals
// (cos th, sin th), th = 2 pi j / kPolygon; in the quadrant a, b >= 0 (both entries are tree
// variables) th = (pi / 2) j / kQuadrant, j = 0 .. kQuadrant (normals with a negative component
// on a nonnegative entry are implied by the others).
void ClpGlmo::add_polygons(scfw::Model& m) const {
  for (size_t ci = 0; ci < cones_.size(); ++ci) {
    const Cone& c = cones_[ci];
    std::vector<double> angles;
    if (c.nonneg[0] && c.nonneg[1]) {
      for (int j = 0; j <= kQuadrant; ++j) angles.push_back(0.5 * M_PI * j / kQuadrant);
    } else {
      for (int j = 0; j < kPolygon; ++j) {
        const double th = 2.0 * M_PI * j / kPolygon;
        if ((c.nonneg[0] && std::cos(th) < -1e-12) || (c.nonneg[1] && std::sin(th) < -1e-12)) continue;
        angles.push_back(th);
      }
    }
    for (double th : angles) {
      std::vector<double> normal = {std::cos(th), std::sin(th)};
      if (std::abs(normal[0]) < 1e-15) normal[0] = 0.0;
      if (std::abs(normal[1]) < 1e-15) normal[1] = 0.0;
      // Normalized: a variable shared by the entries (eta in chi^2-DRO) must be one element
      // (duplicate elements made Clp rebuild its storage and misplace the u-row slots).
      scfw::Expr row = normal[0] * c.xs[0] + normal[1] * c.xs[1] - c.t;
      row.normalize();
      m.add_row(std::move(row), -scfw::inf, 0.0);
    }
  }
}

// The LP into Clp: the model's rows, then the u-rows (coefficient 1 on u_i and a slot on every
// x variable; the slots start at 1, not 0, so that nothing drops them).
void ClpGlmo::load(const lp::GlmoModel& g) {
  lp::SparseLp sl = lp::SparseLp::from_model(g.model, objective_);
  first_u_row_ = sl.num_rows;
  std::vector<std::pair<int, double>> terms;
  for (int i = 0; i < n_; ++i) {
    terms.assign(1, {g.u_var[static_cast<size_t>(i)], 1.0});
    for (int v : xvar_->var) terms.emplace_back(v, 1.0);
    sl.add_row(terms, 0.0, 0.0);
  }
  first_cut_row_ = sl.num_rows;

  lp_ = std::make_unique<ClpSimplex>();
  lp_->setLogLevel(0);  // Clp prints a line per solve otherwise
  // A zero in V (V_0 = 0, a sparse Jacobian, an unused feature) must stay a stored element, or
  // the slot positions move: elements below this value are compressed away when a solve starts.
  lp_->setSmallElementValue(0.0);
  // No scaling: Clp's scaling pass also compresses zero elements out of the matrix (measured:
  // with V = 0 the slots vanished and the LP came back "infeasible"), and it would be
  // recomputed at every solve anyway since the matrix changes.
  lp_->scaling(0);
  // No cost perturbation: it buys nothing on these small LPs and costs time at every warm
  // re-solve (Task 1 LP, measured in tests/test_glmo_clp.cpp: the same pivots, ~40% faster).
  lp_->setPerturbation(100);
  // Cones: the cuts must be enforced below the gap tolerance, while Clp's default primal
  // feasibility tolerance (1e-7, absolute) would accept a cut violated by up to 1e-7 as satisfied
  // and the outer approximation would stall above the tolerance.
  if (!cones_.empty()) lp_->setPrimalTolerance(std::clamp(1e-2 * tolerance_, 1e-10, 1e-7));
  lp::load_clp(*lp_, sl);
  lp_->setLogLevel(0);
}

void ClpGlmo::locate_slots() {
  const CoinPackedMatrix* a = lp_->matrix();
  const CoinBigIndex* start = a->getVectorStarts();
  const int* length = a->getVectorLengths();
  const int* index = a->getIndices();
  std::fill(slot_.begin(), slot_.end(), CoinBigIndex{-1});
  for (size_t k = 0; k < xvar_->var.size(); ++k) {
    const int col = xvar_->var[k];
    for (CoinBigIndex p = start[col]; p < start[col] + length[col]; ++p) {
      const int i = index[p] - first_u_row_;
      if (i >= 0 && i < n_) slot_[k * static_cast<size_t>(n_) + static_cast<size_t>(i)] = p;
    }
  }
  for (size_t s = 0; s < slot_.size(); ++s) {
    if (slot_[s] >= 0) continue;
    // Clp dropped a slot (should not happen with small-element removal off): put it back, then
    // find every position again since insertion may move the storage.
    const size_t k = s / static_cast<size_t>(n_), i = s % static_cast<size_t>(n_);
    lp_->modifyCoefficient(first_u_row_ + static_cast<int>(i), xvar_->var[k], 1.0, true);
    locate_slots();
    return;
  }
  slot_elements_ = a->getElements();
  slot_count_ = a->getNumElements();
}

void ClpGlmo::run_lp(bool first_round) {
  // The coefficients or rows changed under Clp's feet: say so, so that nothing cached about the
  // matrix is reused. The basis (status arrays) is kept: that is the warm start.
  lp_->setWhatsChanged(0);
  if (first_round && !warm_start_) lp_->allSlackBasis(true);
  // Default start/finish options: Clp rebuilds its work arrays and factorization from the
  // changed matrix. Keeping them (startFinishOptions 1) was not faster on the Task 1 LP, and
  // skipping initialization (4) gave wrong optima once the matrix had changed.
  // Every Clp call is capped at kIterationsPerEntry (rows + columns) iterations, far more than a
  // warm or cold solve of these LPs takes. A call that reaches the cap (status 3) is cycling: a
  // warm basis on the changed matrix, a degenerate vertex and Clp's refactorizations every few
  // pivots can send its simplex around the same few bases without end (seen on group DRO with
  // dro_chi2: the objective repeating a handful of values, Clp's own loop detection not getting
  // out). Clp's cost perturbation is its device against such loops; it is off for the ordinary
  // solves (setup()), so the capped solve restarts from the slack basis with it on, and at a
  // second cap with the other simplex variant as well; a third cap is a numerical failure. The
  // cap depends on the LP's size only and the restarts on Clp's state, so a run that meets one
  // is as deterministic (and resumes as bitwise) as any other; the iterations reported are those
  // of every call.
  capped_iterations_ = 0;
  const int cap = kIterationsPerEntry * (lp_->numberRows() + lp_->numberColumns());
  lp_->setMaximumIterations(cap);
  const auto simplex = [&](bool dual) {
    if (dual)
      lp_->dual();
    else
      lp_->primal();
  };
  simplex(dual_);
  for (int restart = 0; restart < 2 && lp_->status() == 3; ++restart) {
    capped_iterations_ += lp_->numberIterations();
    ++restarts_;
    lp_->setWhatsChanged(0);
    lp_->allSlackBasis(true);
    const int perturbation = lp_->perturbation();
    lp_->setPerturbation(50);  // Clp's "on"
    simplex(restart == 0 ? dual_ : !dual_);
    lp_->setPerturbation(perturbation);
  }
  int status = lp_->status();
  if (status == 1 && !cones_.empty()) {
    // Cuts only relax the cones, so an infeasible verdict for a cone model is suspect
    // (numerical: a tight primal tolerance, nearly parallel cuts): drop every added cut and
    // re-solve from the slack basis with the other simplex variant before believing it.
    std::vector<int> rows;
    for (int r = first_cut_row_; r < lp_->numberRows(); ++r) rows.push_back(r);
    lp_->deleteRows(static_cast<int>(rows.size()), rows.data());
    cut_cone_.clear();
    cut_normal_.clear();
    lp_->setWhatsChanged(0);
    lp_->allSlackBasis(true);
    // The other simplex variant: measured, the dual simplex from the slack basis also declared
    // the polygon LP of chi^2-DRO (n = 15, V = 0) infeasible; the primal simplex solves it.
    if (dual_)
      lp_->primal();
    else
      lp_->dual();
    status = lp_->status();
  }
  if (status == 1) lp::clp_numerical_failure("clp", *lp_, "infeasible");
  if (status == 2) throw scfw::Error("clp: the GLMO LP is unbounded");
  if (status == 3)
    lp::clp_numerical_failure("clp", *lp_,
                              "unsolved within the iteration cap of " + std::to_string(cap) + " (status 3)");
  if (status != 0) lp::clp_numerical_failure("clp", *lp_, "unsolved (status " + std::to_string(status) + ")");
}

void ClpGlmo::add_cuts(const std::vector<std::pair<int, std::vector<double>>>& cuts) {
  if (cuts.empty()) return;
  std::vector<CoinBigIndex> starts(1, 0);
  std::vector<int> cols;
  std::vector<double> vals, lo, up;
  for (const auto& [c, g] : cuts) {
    const Cone& cone = cones_[static_cast<size_t>(c)];
    scfw::Expr e = -cone.t;
    for (size_t i = 0; i < cone.xs.size(); ++i) e += g[i] * cone.xs[i];
    const double constant = e.constant();
    e -= scfw::Expr(constant);
    e.normalize();
    for (const auto& [v, a] : e.terms()) {
      cols.push_back(v);
      vals.push_back(a);
    }
    starts.push_back(static_cast<CoinBigIndex>(cols.size()));
    lo.push_back(-COIN_DBL_MAX);
    up.push_back(-constant);
    cut_cone_.push_back(c);
    cut_normal_.push_back(g);
  }
  const int first = lp_->numberRows();
  lp_->addRows(static_cast<int>(cuts.size()), lo.data(), up.data(), starts.data(), cols.data(), vals.data());
  // The new rows' slacks are basic: the old basis plus them is a basis, still dual feasible.
  for (int r = first; r < lp_->numberRows(); ++r) lp_->setRowStatus(r, ClpSimplex::basic);
}

void ClpGlmo::trim_cuts() {
  std::vector<int> count(cones_.size(), 0);
  for (int c : cut_cone_) ++count[static_cast<size_t>(c)];
  std::vector<int> excess(cones_.size(), 0);
  bool any = false;
  for (size_t c = 0; c < cones_.size(); ++c) {
    excess[c] = std::max(0, count[c] - kMaxCutsPerCone);
    any = any || excess[c] > 0;
  }
  if (!any) return;
  std::vector<char> drop(cut_cone_.size(), 0);
  // Oldest inactive cuts (basic slack) only: deleting a row whose slack is basic leaves a valid
  // basis (the warm start survives). Active cuts stay, so a cone may briefly hold more.
  for (int pass = 0; pass < 1; ++pass) {
    for (size_t k = 0; k < cut_cone_.size(); ++k) {
      const int c = cut_cone_[k];
      if (drop[k] || excess[static_cast<size_t>(c)] == 0) continue;
      const int row = first_cut_row_ + static_cast<int>(k);
      if (pass == 0 && lp_->getRowStatus(row) != ClpSimplex::basic) continue;
      drop[k] = 1;
      --excess[static_cast<size_t>(c)];
    }
  }
  std::vector<int> rows;
  std::vector<int> kept;
  std::vector<std::vector<double>> kept_normals;
  for (size_t k = 0; k < cut_cone_.size(); ++k) {
    if (drop[k]) {
      rows.push_back(first_cut_row_ + static_cast<int>(k));
    } else {
      kept.push_back(cut_cone_[k]);
      kept_normals.push_back(std::move(cut_normal_[k]));
    }
  }
  lp_->deleteRows(static_cast<int>(rows.size()), rows.data());
  cut_cone_ = std::move(kept);
  cut_normal_ = std::move(kept_normals);
}

void ClpGlmo::repair(scfw::Vec& x) const {
  if (domain_->contains(x, 0.0)) return;
  // A polyhedral domain: the LP's x satisfies the domain's rows up to Clp's feasibility
  // tolerance, as in the cone-free path, and bisection would be wrong (an equality row such as
  // the simplex's sum rarely holds exactly at any theta: measured, x pulled far inside).
  if (!domain_has_cones_) return;
  const scfw::Vec anchor = domain_->initial_point();
  if (anchor.size() != x.size() || !domain_->contains(anchor, 0.0)) return;
  // Largest theta in [0, 1] with anchor + theta (x - anchor) in X (X is convex).
  double lo = 0.0, hi = 1.0;
  scfw::Vec trial(x.size());
  for (int it = 0; it < 60 && hi - lo > 1e-16; ++it) {
    const double mid = 0.5 * (lo + hi);
    trial = anchor + mid * (x - anchor);
    if (domain_->contains(trial, 0.0))
      lo = mid;
    else
      hi = mid;
  }
  x = anchor + lo * (x - anchor);
}

scfw::GlmoResult ClpGlmo::solve(const scfw::Vec& z, const scfw::Jacobian& Vj, const scfw::Vec& y,
                                scfw::Vec& x) {
  // A sparse V: the u-rows' coefficients W = V A from the pattern's entries only.
  const scfw::Jacobian& V = Vj;
  if (!lp_) throw scfw::Error("clp: solve() called before setup()");
  lp::check_solve_sizes("clp", z, V, y, n_, d_);
  if (!cones_.empty()) trim_cuts();
  if (!slots_valid()) locate_slots();
  set_u_rows(z, V, y);
  if (x.size() != d_) x.resize(d_);
  if (!cones_.empty()) return solve_with_cuts(z, V, y, x);

  scfw::GlmoResult result;
  run_lp(true);
  const double* sol = lp_->primalColumnSolution();
  const std::span<const double> values(sol, static_cast<size_t>(lp_->numberColumns()));
  xmap_->evaluate(values, x);
  result.value = objective_.evaluate(values);  // includes the objective's constant
  result.lower_bound = result.value;           // an LP solved to optimality
  result.iterations = capped_iterations_ + lp_->numberIterations();
  return result;
}

// u-row i:  u_i - sum_v (V A)_iv var_v = z_i - sum_j V_ij (y_j - c_j): the coefficients in place
// in Clp's packed matrix, the right-hand sides.
void ClpGlmo::set_u_rows(const scfw::Vec& z, const scfw::Jacobian& Vj, const scfw::Vec& y) {
  if (Vj.is_sparse()) return set_u_rows_sparse(z, Vj, y);
  const scfw::Mat& V = Vj.dense();
  double* element = lp_->matrix()->getMutableElements();
  const size_t n = static_cast<size_t>(n_);
  for (int k = 0; k < xvar_->size(); ++k) {
    for (int i = 0; i < n_; ++i) {
      const double w = xvar_->w(V, i, k);
      // An exact zero would trip Clp's row-copy code (ClpPackedMatrix asserts nonzero stored
      // elements: measured with V = 0 on 1-column x, SIGABRT in gutsOfTransposeTimesByRowGE3),
      // so a zero slot holds a negligible 1e-250 instead (far below every Clp tolerance).
      element[slot_[static_cast<size_t>(k) * n + static_cast<size_t>(i)]] = w != 0.0 ? -w : 1e-250;
    }
  }
  shift_ = y - x_const_;
  rhs_.noalias() = V * shift_;
  for (int i = 0; i < n_; ++i) {
    const double r = z[i] - rhs_[i];
    lp_->setRowBounds(first_u_row_ + i, r, r);
  }
}

// The same from a sparse V: row i's W_ik = sum_j V_ij a_jk over the pattern's columns j of row
// i (ascending, as the dense sum over a column's coordinates), accumulated in w_row_; the
// coordinates outside the pattern contribute exact zeros in the dense sum, so W is the same.
void ClpGlmo::set_u_rows_sparse(const scfw::Vec& z, const scfw::Jacobian& V, const scfw::Vec& y) {
  if (k_of_var_.empty()) {
    // First sparse solve: the inverse of xvar_->var and one row of W (sized once, then reused).
    k_of_var_.assign(static_cast<size_t>(lp_->numberColumns()), -1);
    for (int k = 0; k < xvar_->size(); ++k) k_of_var_[static_cast<size_t>(xvar_->var[static_cast<size_t>(k)])] = k;
    w_row_.assign(static_cast<size_t>(xvar_->size()), 0.0);
  }
  double* element = lp_->matrix()->getMutableElements();
  const size_t n = static_cast<size_t>(n_);
  for (int i = 0; i < n_; ++i) {
    std::fill(w_row_.begin(), w_row_.end(), 0.0);
    const scfw::Jacobian::Row r = V.row(i);
    for (std::int64_t t = 0; t < r.size; ++t) {
      const double v = r.values[t];
      for (const auto& [var, a] : xmap_->xs[static_cast<size_t>(r.col(t))].terms())
        w_row_[static_cast<size_t>(k_of_var_[static_cast<size_t>(var)])] += v * a;
    }
    for (int k = 0; k < xvar_->size(); ++k) {
      const double w = w_row_[static_cast<size_t>(k)];
      element[slot_[static_cast<size_t>(k) * n + static_cast<size_t>(i)]] = w != 0.0 ? -w : 1e-250;
    }
  }
  shift_ = y - x_const_;
  V.multiply(shift_, rhs_);
  for (int i = 0; i < n_; ++i) {
    const double r = z[i] - rhs_[i];
    lp_->setRowBounds(first_u_row_ + i, r, r);
  }
}

// The 2-D cones the LP point violates beyond 1e-3 tolerance (relative to max(1, |t*|)): for each,
// the unit normal of Kelley's cut at the angle phi of (a*, b*) and ||xs*|| - t*, and into `extra`
// the bracket-splitting cuts at phi + j h / kSplit, 0 < |j| < kSplit.
void ClpGlmo::find_violated(std::span<const double> values, Violations& out) const {
  out.violated.clear();
  out.normals.clear();
  out.absolute.clear();
  out.extra.clear();
  std::vector<double> g;
  for (size_t c = 0; c < cones_.size(); ++c) {
    const Cone& cone = cones_[c];
    const double t = cone.t.evaluate(values);
    g.resize(cone.xs.size());
    double norm2 = 0.0;
    for (size_t i = 0; i < cone.xs.size(); ++i) {
      g[i] = cone.xs[i].evaluate(values);
      norm2 += g[i] * g[i];
    }
    const double norm = std::sqrt(norm2);
    // Cut well below the gap tolerance (1e-3 of it): a cone violated by about the tolerance
    // can still leave a relative gap above it (e.g. r s in the chi^2-DRO objective).
    const double violation = (norm - t) / std::max(1.0, std::abs(t));
    if (norm > 0.0 && violation > 1e-3 * tolerance_) {
      out.absolute.push_back(norm - t);
      for (double& gi : g) gi /= norm;
      out.violated.push_back(static_cast<int>(c));
      out.normals.push_back(g);
      // The LP point sits (about) on the bisector of two adjacent cuts at angles phi +- h,
      // h = arccos(t* / ||xs*||): besides Kelley's cut at phi, cut at phi + j h / kSplit,
      // 0 < |j| < kSplit, so the bracket shrinks kSplit-fold per round instead of 2-fold.
      const double h = std::acos(std::clamp(t / norm, -1.0, 1.0));
      const double phi = std::atan2(g[1], g[0]);
      for (int j = 1 - kSplit; j < kSplit; ++j) {
        if (j == 0) continue;
        const double th = phi + j * std::min(h, 0.5 * M_PI) / kSplit;
        out.extra.push_back({static_cast<int>(c), {std::cos(th), std::sin(th)}});
      }
    }
  }
}

// F's exact value at a feasible x: the LP's x (into x_try_), repaired into the domain when it
// is outside.
double ClpGlmo::upper_bound(std::span<const double> values, const scfw::Vec& z,
                            const scfw::Jacobian& V, const scfw::Vec& y) {
  xmap_->evaluate(values, x_try_);
  repair(x_try_);  // also when no cone is violated beyond the tolerance: x must be feasible
  shift_ = x_try_ - y;
  V.multiply(shift_, u_buf_);
  u_buf_ += z;
  const double upper = outer_->value(u_buf_, x_try_);
  if (!std::isfinite(upper))
    throw scfw::Error("clp: the outer function's value() is not finite at the GLMO's point");
  return upper;
}

// Whether some cut of the previous round moved the LP point: it is no longer violated by half
// its violation when added (Clp's feasibility tolerance may accept it as it is).
bool ClpGlmo::cuts_moved(const std::vector<PendingCut>& previous, std::span<const double> values) const {
  bool moved = false;
  for (const PendingCut& pc : previous) {
    const Cone& cone = cones_[static_cast<size_t>(pc.cone)];
    double a = -cone.t.evaluate(values);
    for (size_t i = 0; i < cone.xs.size(); ++i) a += pc.normal[i] * cone.xs[i].evaluate(values);
    if (a < 0.5 * pc.violation) moved = true;
  }
  return moved;
}

// Cones: outer approximation, re-solved warm until the gap closes (see the file comment).
scfw::GlmoResult ClpGlmo::solve_with_cuts(const scfw::Vec& z, const scfw::Jacobian& V,
                                          const scfw::Vec& y, scfw::Vec& x) {
  double best_upper = scfw::inf, lower = -scfw::inf;
  std::vector<PendingCut> previous;
  Violations found;
  int stall_rounds = 0;
  long iterations = 0;
  last_rounds_ = last_cuts_added_ = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    run_lp(round == 0);
    ++last_rounds_;
    iterations += capped_iterations_ + lp_->numberIterations();
    const double* sol = lp_->primalColumnSolution();
    const std::span<const double> values(sol, static_cast<size_t>(lp_->numberColumns()));
    lower = std::max(lower, objective_.evaluate(values));  // more cuts: a tighter relaxation
    find_violated(values, found);
    const double upper = upper_bound(values, z, V, y);
    if (upper < best_upper) {
      best_upper = upper;
      x = x_try_;
    }
    const double scale = std::max(1.0, std::abs(best_upper));
    if (best_upper < lower - 1e-6 * scale)
      throw scfw::Error(
          "clp: the outer function's value() at the GLMO's point is below the lower bound of its "
          "model (value() and model() disagree)");
    if (best_upper - lower <= tolerance_ * scale) break;
    if (found.violated.empty()) break;  // nothing left to cut: the gap is what Clp's tolerances allow
    // Stalled: the cuts of the previous round did not move the LP point, three rounds in a row.
    if (!previous.empty()) {
      stall_rounds = cuts_moved(previous, values) ? 0 : stall_rounds + 1;
      if (stall_rounds >= 3) break;
    }
    previous.clear();
    for (size_t k = 0; k < found.violated.size(); ++k) {
      found.extra.emplace_back(found.violated[k], found.normals[k]);
      previous.push_back(PendingCut{found.violated[k], found.normals[k], found.absolute[k]});
    }
    add_cuts(found.extra);
    last_cuts_added_ += static_cast<long>(found.extra.size());
  }
  scfw::GlmoResult result;
  result.value = best_upper;
  result.lower_bound = std::min(lower, best_upper);
  result.iterations = iterations;
  return result;
}

void register_components(scfw::Registrar& r) {
  r.add<ClpGlmo>(
      "clp",
      "x = argmin_{x in X} F(z + V (x - y), x) as one LP, solved with Clp's simplex and "
      "re-solved warm from the previous basis (Alg. 1 line 7)",
      {scfw::ParamSpec::choice("algorithm", {"dual", "primal"},
                               "simplex variant used for every solve")
           .def("dual"),
       scfw::ParamSpec::boolean("warm_start",
                                "re-solve from the previous optimal basis (false: from the slack "
                                "basis every time)")
           .def(true),
       scfw::ParamSpec::number("tolerance",
                               "second-order cones only: stop the outer-approximation cuts when "
                               "upper - lower <= tolerance * max(1, |upper|) (upper: F at a "
                               "feasible x, lower: the LP bound)")
           .positive()
           .def(1e-7)},
      scfw::Preference{.rank = 20, .hands_over = true});
}

}  // namespace

SCFW_PLUGIN("clp", SCFW_PLUGIN_VERSION, register_components)
