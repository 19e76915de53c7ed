// GLMO `column_generation`: x = argmin_{x in X} F(z + V (x - y), x) for domains known only
// through an LMO (e.g. `nuclear_ball`), by Dantzig-Wolfe column generation.
//
// Restricted master LP over the atoms s_1..s_K found so far (points of X returned by the LMO,
// plus the domain's initial point):
//
//   min  F's model objective(u, x)
//   s.t. x_j - sum_a lambda_a s_a[j]          = 0                  (x-rows, pi_x; only when F
//                                                                   depends on x)
//        u_i - sum_a lambda_a (V s_a)_i       = z_i - (V y)_i      (u-rows, pi_u)
//        sum_a lambda_a                       = 1                  (convexity row, pi_0)
//        lambda >= 0, F's epigraph rows on (u, x)
//
// Pricing. With the master's row duals pi (reduced cost = c - A^T pi), a new atom s has reduced
// cost rc(s) = g^T s - pi_0 with g = V^T pi_u + pi_x. Any dual point p = (pi_u, pi_x) gives an
// affine minorant of the GLMO's objective over X,
//   F(rhs + V x, x) >= h + pi_u^T rhs + (V^T pi_u + pi_x)^T x      for every x,
// whenever h <= -F*(pi_u, pi_x) (rhs = z - V y); at the master's duals h = value - pi_0 -
// pi_u^T rhs qualifies (the dual objective of F's rows). Its minimum over X, one LMO call, is a
// valid lower bound (Lagrangian bound; value + min(0, min_s rc(s)) at the master's duals), and
// since -F* is concave, a convex combination of such (p, h) is one too.
//
// In-out separation (stabilisation against the tailing-off of Kelley's method over curved sets such
// as the nuclear ball): the stability centre (in-point) is the dual point of the best bound so far;
// each LMO call is made at sep = a in + (1 - a) out, out the master's duals, a = `smoothing`. The
// bound at sep is computed (valid, as above) and moves the centre when it is better. When the
// atom prices out at out (rc < 0) it joins the master; otherwise (a mis-pricing) the bound at sep
// is at least a (bound at in) + (1 - a) value, so value - bound shrank by the factor a, and the
// LMO is called again at the same master duals with a lowered by 1 - smoothing each time: after
// at most 1 / (1 - smoothing) mis-pricings it prices at the master's own duals (Kelley), where an
// atom of non-negative reduced cost proves the master optimal. The centre is kept across solves
// (`carry_center`): its (pi, h) is a valid dual point for the next GLMO problem too, whose bound
// is unknown until the first LMO call at a point mixed from it. We stop when value - lower_bound
// <= tolerance * max(1, |value|) (certified), or after max_rounds LMO calls (the bound returned is
// then the best one computed), or when the LMO at the master's duals returns an atom already in
// the master (numerical stall).
//
// Atoms are kept across solves (the master of the next iteration starts with them: Frank-Wolfe
// problems drift slowly). When there are more than `max_atoms`, the atoms with zero weight in the
// last solution are dropped, oldest first. Each solve's master is rebuilt (V, z, y changed; all
// atom columns in one addColumns call) and started from the previous solve's optimal basis
// (`warm_start`; dropped atoms are nonbasic, so their status entries are simply removed).
//
// The master LP is solved by one of two back-ends (`master`):
//   * "dense" (plugins/lp/dense_master.hpp): a small dense bounded primal simplex kept alive across rounds
//     and solves; a new atom is one more column and the primal simplex continues from the
//     previous optimal basis (still primal feasible). Its master has the u-variables and u-rows
//     substituted out (u = z - V y + sum_a lambda_a V s_a; each atom's column is then B V s_a on
//     F's rows, B the u-coefficients there): 2n + 1 rows instead of 3n + 1 for an l1 outer. The
//     pricing duals of the u-rows are recovered as pi_u = c_u - B^T y. Used by default ("auto")
//     when that master has at most kDenseMaxRows rows (F does not read x, or d is small) and F's
//     model leaves u free (the substitution needs it). If it ever reports failure (pivot limit,
//     or no verified optimum), that solve is redone with Clp.
//   * "clp": Clp's primal simplex (below); the master is reloaded at each solve.
// The master's fixed part (F's model: u, epigraph variables and rows) is built once, in setup();
// each solve only sets the u-rows' right-hand side z - V y and the atoms' columns.
//
// Speed (the master is small: n + 1 + F's rows; the cost is per pricing round):
//   * within a solve, once the master holds 2 max_atoms atoms, its nonbasic atoms are deleted,
//     oldest first, down to max_atoms (the master stays optimal; the bound prices over all of X);
//   * in-out separation (above): one LMO call per round, fewer rounds than Kelley's method;
//   * (clp) Clp keeps its work areas and factorization between the rounds of a solve (primal(0, 1|2)),
//     and scaling is off: with it, the warm primal sometimes stopped "optimal" on the scaled
//     problem while the new column had a clearly negative unscaled reduced cost (secondary status
//     3), and column generation then stalled on a repeated atom with a large gap;
//   * the repeated-atom test compares fingerprints (a dot product) before whole atoms.

// GlmoResult::iterations = LMO calls + total simplex iterations (pivots) of this solve.
#include <scfw/helpers.hpp>
#include <scfw/scfw.hpp>

#include <ClpSimplex.hpp>

#include "dense_master.hpp"
#include "glmo_lp.hpp"

#include <algorithm>
#include <limits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

// "auto" uses the dense master up to this many rows (its basis inverse is rows x rows).
constexpr int kDenseMaxRows = 256;

namespace lp = scfw::lp;

class ColumnGeneration final : public scfw::Glmo {
 public:
  ColumnGeneration(const scfw::Params& p, const scfw::Context& ctx)
      : memory_(ctx.memory), jacobian_nnz_(ctx.jacobian_nnz), entries_(ctx.entries) {
    tol_ = p.get<double>("tolerance");
    step_tol_ = p.get<double>("step_tolerance");
    max_rounds_ = p.get<int>("max_rounds");
    max_atoms_ = p.get<int>("max_atoms");
    warm_ = p.get<bool>("warm_start");
    smoothing_ = p.get<double>("smoothing");
    carry_ = p.get<bool>("carry_center");
    master_ = p.get<std::string>("master");
    max_pivots_ = p.get<long>("max_pivots");
  }

  // The restricted master is an LP: an outer function whose model has cones is declined.
  bool supports(const scfw::OuterFunction& outer, const scfw::Domain&, int n, int d, std::string* why) const override {
    scfw::Model m;
    std::vector<scfw::Expr> u, xs;
    for (int j = 0; j < d; ++j) xs.emplace_back(m.add_var(-scfw::inf, scfw::inf, "x[" + std::to_string(j) + "]"));
    for (int i = 0; i < n; ++i) u.emplace_back(m.add_var(-scfw::inf, scfw::inf, "u[" + std::to_string(i) + "]"));
    outer.model(m, u, xs);
    if (m.cones().empty()) return true;
    if (why)
      *why = "column_generation: the outer function's model has second-order cones; the restricted master is "
             "solved as a linear program";
    return false;
  }

  void setup(const scfw::OuterFunction& outer, const scfw::Domain& domain, int n, int d) override {
    if (n < 1 || d < 1)
      throw scfw::Error("column_generation: needs n >= 1 and d >= 1, got n = " + std::to_string(n) +
                        ", d = " + std::to_string(d));
    if (domain.dim() != d)
      throw scfw::Error("column_generation: the domain has dimension " + std::to_string(domain.dim()) +
                        ", expected d = " + std::to_string(d));
    // What this GLMO will hold (docs/memory.md): 2 max_atoms atoms, each a d-vector and its image
    // under V, and the master. Compact atoms (a sparse V, a domain with compact atoms, F not
    // reading x): each atom is rows + cols + 1 numbers (a rows x cols domain) or one non-zero (the
    // initial point charged as d non-zeros), plus the index of V's pattern (6 integers and 3
    // gradient values per non-zero) and, for a rows x cols domain, x's factors.
    {
      const std::int64_t atoms = 2 * std::int64_t{max_atoms_};
      std::uint64_t bytes = scfw::bytes_of({atoms + n + 1, atoms + n + 1, 8});
      const bool compact = jacobian_nnz_ > 0 && domain.capabilities().has(scfw::Capability::CompactAtoms) &&
                           !outer.traits().depends_on_x;
      if (!compact) {
        bytes = scfw::add_bytes(bytes, scfw::bytes_of({atoms, std::int64_t{d} + n, 8}));
      } else {
        const std::vector<int> shape = domain.shape();
        const std::int64_t atom = shape.size() == 2 ? std::int64_t{shape[0]} + shape[1] + 1 : 2;
        bytes = scfw::add_bytes(bytes, scfw::bytes_of({atoms, atom + n, 8}));
        bytes = scfw::add_bytes(bytes, scfw::bytes_of({jacobian_nnz_, 6 * 4 + 3 * 8}));
        bytes = scfw::add_bytes(bytes, shape.size() == 2 ? scfw::bytes_of({atoms, atom, 8}) : scfw::bytes_of({d, 12}));
      }
      memory_.reserve(bytes, "column_generation's atoms and master LP (2 x max_atoms = " + std::to_string(atoms) +
                                 " atoms)");
    }
    outer_ = &outer;
    domain_ = &domain;
    n_ = n;
    d_ = d;
    with_x_ = outer.traits().depends_on_x;
    // The form of the atoms is decided by the first solve (it needs V's kind): until then the
    // initial point waits as a dense atom, without a fingerprint.
    mode_ = Mode::Undecided;
    pattern_.reset();
    probe_.resize(0);
    atoms_.clear();
    prints_.clear();
    atoms_.emplace_back();
    atoms_.back().set_dense(domain.initial_point());
    status_.clear();
    if (atoms_.back().dim() != d) throw scfw::Error("column_generation: the domain's initial point has the wrong size");
    build_base();
    dense_ = elim_.u_free && (master_ == "dense" || (master_ == "auto" && elim_.rows <= kDenseMaxRows));
    dense_live_ = false;
    fallbacks_ = 0;
    center_live_ = false;
    p_in_.resize(0);
    h_in_ = 0.0;
  }

  scfw::GlmoResult solve(const scfw::Vec& z, const scfw::Jacobian& Vj, const scfw::Vec& y, scfw::Vec& x) override;
  /// SparseV: V enters only through J s (an atom's column) and J^T pi (the pricing gradient).
  /// SavedState: see save_state().
  scfw::Capabilities capabilities() const override {
    return scfw::Capability::SparseV | scfw::Capability::SavedState;
  }

  // Checkpoints: the atoms kept across solves, the Clp master's last basis (status_; the Clp
  // model itself is rebuilt by every solve) and the dense master, which stays alive across solves.
  // Dense atoms go to "atoms" (d numbers each) as before the compact form; compact ones to the
  // blocks after the dense master's, by kind.
  void save_state(scfw::StateWriter& w) const override {
    std::vector<double> atoms;
    for (const scfw::Atom& a : atoms_)
      if (a.kind() == scfw::Atom::Kind::Dense) atoms.insert(atoms.end(), a.dense().data(), a.dense().data() + a.dense().size());
    w.put("atom_count", static_cast<std::int64_t>(atoms_.size()));
    w.put("atoms", atoms);
    w.put("prints", prints_);
    w.put("clp_status", status_);
    w.put("first_atom", first_atom_);
    w.put("fallbacks", static_cast<std::int64_t>(fallbacks_));
    w.put("dense_live", static_cast<int>(dense_live_));
    if (dense_live_) dm_.save(w);
    std::vector<int> kinds, shapes, index;
    std::vector<std::int64_t> sizes;
    std::vector<double> values, scales, us, vs;
    for (const scfw::Atom& a : atoms_) {
      kinds.push_back(static_cast<int>(a.kind()));
      if (a.kind() == scfw::Atom::Kind::Sparse) {
        sizes.push_back(a.nnz());
        index.insert(index.end(), a.index().begin(), a.index().end());
        values.insert(values.end(), a.value().begin(), a.value().end());
      } else if (a.kind() == scfw::Atom::Kind::RankOne) {
        shapes.push_back(a.rows());
        shapes.push_back(a.cols());
        scales.push_back(a.scale());
        us.insert(us.end(), a.u().data(), a.u().data() + a.u().size());
        vs.insert(vs.end(), a.v().data(), a.v().data() + a.v().size());
      }
    }
    w.put("atom_mode", static_cast<int>(mode_));
    w.put("atom_kinds", kinds);
    w.put("sparse_sizes", sizes);
    w.put("sparse_index", index);
    w.put("sparse_value", values);
    w.put("rank_one_shape", shapes);
    w.put("rank_one_scale", scales);
    w.put("rank_one_u", us);
    w.put("rank_one_v", vs);
    w.put("center_live", static_cast<int>(center_live_));
    w.put("center_p", std::vector<double>(p_in_.data(), p_in_.data() + p_in_.size()));
    w.put("center_h", h_in_);
  }
  void load_state(scfw::StateReader& r) override {
    std::int64_t count = 0;
    r.get("atom_count", count);
    std::vector<double> atoms;
    r.get("atoms", atoms);
    r.check_range("atom_count", std::vector<std::int64_t>{count}, std::int64_t{0}, std::numeric_limits<std::int64_t>::max());
    if (atoms.size() % static_cast<size_t>(d_) != 0)
      r.refuse("atoms", std::to_string(atoms.size()) + " values do not make atoms of dimension " + std::to_string(d_));
    r.check_finite("atoms", atoms);
    r.get("prints", prints_);
    r.check_finite("prints", prints_);
    r.get("clp_status", status_);
    for (size_t i = 0; i < status_.size(); ++i)
      if ((status_[i] & 7) > ClpSimplex::isFixed)
        r.refuse("clp_status", "value " + std::to_string(status_[i]) + " at " + std::to_string(i) + " is not a Clp basis status");
    r.get("first_atom", first_atom_);
    r.check_range("first_atom", std::vector<int>{first_atom_}, 0, std::numeric_limits<int>::max());
    std::int64_t f = 0;
    r.get("fallbacks", f);
    r.check_range("fallbacks", std::vector<std::int64_t>{f}, std::int64_t{0}, std::numeric_limits<std::int64_t>::max());
    fallbacks_ = static_cast<long>(f);
    int live = 0;
    r.get("dense_live", live);
    r.check_range("dense_live", std::vector<int>{live}, 0, 1);
    dense_live_ = live != 0;
    if (dense_live_) {
      dm_.load(r, elim_.rows);
      r.check_range("first_atom", std::vector<int>{first_atom_}, 0, dm_.columns());
    }
    int mode = 0;
    std::vector<int> kinds, shapes, index;
    std::vector<std::int64_t> sizes;
    std::vector<double> values, scales, us, vs;
    r.get("atom_mode", mode);
    r.get("atom_kinds", kinds);
    r.get("sparse_sizes", sizes);
    r.get("sparse_index", index);
    r.get("sparse_value", values);
    r.get("rank_one_shape", shapes);
    r.get("rank_one_scale", scales);
    r.get("rank_one_u", us);
    r.get("rank_one_v", vs);
    r.check_finite("sparse_value", values);
    r.check_finite("rank_one_scale", scales);
    r.check_finite("rank_one_u", us);
    r.check_finite("rank_one_v", vs);
    const auto bad = [&] { return scfw::Error(r.owner() + ": block atom_kinds: the saved atoms are inconsistent"); };
    r.check_range("atom_mode", std::vector<int>{mode}, 0, 2);
    if (kinds.size() != static_cast<size_t>(count) || index.size() != values.size()) throw bad();
    mode_ = static_cast<Mode>(mode);
    atoms_.assign(static_cast<size_t>(count), scfw::Atom());
    size_t dense_at = 0, sparse_at = 0, entry_at = 0, r1_at = 0, u_at = 0, v_at = 0;
    for (std::int64_t a = 0; a < count; ++a) {
      scfw::Atom& at = atoms_[static_cast<size_t>(a)];
      switch (static_cast<scfw::Atom::Kind>(kinds[static_cast<size_t>(a)])) {
        case scfw::Atom::Kind::Dense:
          if (atoms.size() < (dense_at + 1) * static_cast<size_t>(d_)) throw bad();
          at.set_dense(Eigen::Map<const scfw::Vec>(atoms.data() + dense_at * d_, d_));
          ++dense_at;
          break;
        case scfw::Atom::Kind::Sparse: {
          if (sparse_at >= sizes.size() || sizes[sparse_at] < 0 || entry_at + sizes[sparse_at] > index.size()) throw bad();
          at.set_sparse(d_);
          for (std::int64_t k = 0; k < sizes[sparse_at]; ++k, ++entry_at) {
            if (index[entry_at] < 0 || index[entry_at] >= d_) throw bad();
            at.push(index[entry_at], values[entry_at]);
          }
          ++sparse_at;
          break;
        }
        case scfw::Atom::Kind::RankOne: {
          if (2 * r1_at + 1 >= shapes.size() || r1_at >= scales.size()) throw bad();
          const int rows = shapes[2 * r1_at], cols = shapes[2 * r1_at + 1];
          const std::int64_t seen = entries_ ? entries_->size() : std::int64_t{rows} * cols;
          if (rows < 1 || cols < 1 || seen != d_ || (entries_ && (rows != entries_->rows || cols != entries_->cols)) ||
              u_at + rows > us.size() || v_at + cols > vs.size())
            throw bad();
          at.set_rank_one(rows, cols, scales[r1_at], entries_.get());
          at.u() = Eigen::Map<const scfw::Vec>(us.data() + u_at, rows);
          at.v() = Eigen::Map<const scfw::Vec>(vs.data() + v_at, cols);
          u_at += rows;
          v_at += cols;
          ++r1_at;
          break;
        }
        default:
          throw bad();
      }
    }
    if (prints_.size() != atoms_.size() && mode_ != Mode::Undecided) throw bad();
    int center = 0;
    std::vector<double> cp;
    double ch = 0.0;
    r.get("center_live", center);
    r.check_range("center_live", std::vector<int>{center}, 0, 1);
    r.get("center_p", cp);
    r.check_finite("center_p", cp);
    r.get("center_h", ch);
    r.check_finite("center_h", std::vector<double>{ch});
    const size_t pn = static_cast<size_t>(n_) + (with_x_ ? static_cast<size_t>(d_) : 0);
    if (center != 0 && cp.size() != pn)
      r.refuse("center_p", std::to_string(cp.size()) + " values for a dual point of " + std::to_string(pn));
    center_live_ = center != 0;
    p_in_ = Eigen::Map<const scfw::Vec>(cp.data(), static_cast<Eigen::Index>(cp.size()));
    h_in_ = ch;
    pattern_.reset();  // the compact structures are rebuilt from V at the next solve
  }

  void set_step(double gamma) override { gamma_ = gamma; }

  std::string describe() const override {
    std::ostringstream os;
    os << "column_generation (restricted master LP with " << (dense_ ? "a dense primal simplex" : "Clp")
       << ", pricing by the domain's LMO; tolerance " << tol_;
    if (step_tol_ > 0) os << ", in the loop max(tolerance, " << step_tol_ << " gamma_k)";
    os << ", at most " << max_atoms_ << " atoms kept, " << (warm_ ? "warm" : "cold")
       << " start, in-out separation at smoothing " << smoothing_ << (carry_ ? ", centre carried across solves" : "")
       << ")";
    if (mode_ == Mode::Compact) os << "; compact atoms (V's pattern: " << support_.size() << " columns)";
    if (fallbacks_ > 0) os << "; " << fallbacks_ << " solves redone with Clp";
    return os.str();
  }

 private:
  // V s into vs_: V's product on a dense atom (the path of before), else over V's pattern.
  void image(const scfw::Atom& s, const scfw::Jacobian& V) {
    if (vs_.size() != n_) vs_.resize(n_);
    if (s.kind() == scfw::Atom::Kind::Dense)
      V.multiply(s.dense(), vs_);
    else
      compact_image(s, V, vs_);
  }
  void compact_image(const scfw::Atom& s, const scfw::Jacobian& V, scfw::Vec& out);

  // Atom s's column in the dense master, where u = rhs + sum_a lambda_a V s_a is substituted
  // out: B (V s) on F's rows, -s on the x-rows, 1 on the convexity row; returns its cost
  // c_u^T V s (F's objective terms on u).
  double dense_column(const scfw::Atom& s, const scfw::Jacobian& V) {
    image(s, V);
    Eigen::Map<Eigen::VectorXd> col(col_.data(), elim_.rows);
    col.noalias() = elim_.B * vs_;
    if (with_x_)  // F reads x: the dense path only
      for (int j = 0; j < d_; ++j) col_[static_cast<size_t>(elim_.x_row + j)] = -s.dense()[j];
    col_[static_cast<size_t>(elim_.conv_row)] = 1.0;
    return elim_.cu.dot(vs_);
  }

  // Appends atom s's column (rows, values) to the sparse column buffers (Clp).
  void column_of(const scfw::Atom& s, const scfw::Jacobian& V) {
    if (with_x_)
      for (int j = 0; j < d_; ++j)
        if (s.dense()[j] != 0.0) {
          rows_.push_back(x_row_ + j);
          vals_.push_back(-s.dense()[j]);
        }
    image(s, V);
    for (int i = 0; i < n_; ++i)
      if (vs_[i] != 0.0) {
        rows_.push_back(u_row_ + i);
        vals_.push_back(-vs_[i]);
      }
    rows_.push_back(conv_row_);
    vals_.push_back(1.0);
  }

  // Adds atom s's column to the master in use.
  void add_column(const scfw::Atom& s, const scfw::Jacobian& V) {
    if (dense_live_) {
      const double cost = dense_column(s, V);
      dm_.add_column(col_.data(), 0.0, scfw::inf, cost);
      return;
    }
    rows_.clear();
    vals_.clear();
    column_of(s, V);
    lp_->addColumn(static_cast<int>(rows_.size()), rows_.data(), vals_.data(), 0.0, COIN_DBL_MAX, 0.0);
  }

  // The fingerprint's probe at coordinate j: a fixed, seed-independent pseudo-random number in
  // [0.5, 1.5) (splitmix64 of j).
  static double probe_at(std::int64_t j) {
    std::uint64_t w = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(j + 2);
    w = (w ^ (w >> 30)) * 0xBF58476D1CE4E5B9ull;
    w = (w ^ (w >> 27)) * 0x94D049BB133111EBull;
    w ^= w >> 31;
    return 0.5 + static_cast<double>(w >> 11) * 0x1.0p-53;
  }
  void ensure_probe() {
    if (probe_.size() == d_) return;
    probe_.resize(d_);
    for (int j = 0; j < d_; ++j) probe_[j] = probe_at(j);
  }

  // A fingerprint of an atom (its dot product with a fixed pseudo-random vector): atoms with
  // different fingerprints differ, so the duplicate test compares whole vectors only on a match.
  double fingerprint(const scfw::Vec& s) const { return probe_.dot(s); }
  // The same for a compact atom, with the probe of a rank-one atom itself rank-one (p_r p_c^T,
  // the probes of rows .. and of rows + cols ..) so that both cost the atom's size; `mag` gets
  // the sum of the terms' magnitudes (for the rounding allowance).
  double compact_fingerprint(const scfw::Atom& s, double* mag) const;
  double atom_inf_norm(const scfw::Atom& s) const {
    switch (s.kind()) {
      case scfw::Atom::Kind::Dense:
        return s.dense().lpNorm<Eigen::Infinity>();
      case scfw::Atom::Kind::Sparse: {
        double m = 0.0;
        for (double v : s.value()) m = std::max(m, std::abs(v));
        return m;
      }
      case scfw::Atom::Kind::RankOne:
        return std::abs(s.scale()) * s.u().lpNorm<Eigen::Infinity>() * s.v().lpNorm<Eigen::Infinity>();
    }
    return 0.0;
  }

  // Whether s is (numerically) one of the atoms.
  bool known_atom(const scfw::Vec& s) const {
    const double f = fingerprint(s), scale = std::max(1.0, s.lpNorm<Eigen::Infinity>());
    const double ftol = 1e-12 * scale * probe_.lpNorm<1>();
    for (size_t a = 0; a < atoms_.size(); ++a)
      if (std::abs(prints_[a] - f) <= ftol && (atoms_[a].dense() - s).lpNorm<Eigen::Infinity>() <= 1e-12 * scale)
        return true;
    return false;
  }
  // The same on compact atoms: max |entry difference| <= 1e-12 max(1, ||s||_inf) (an upper bound
  // of it for rank-one atoms, Atom::max_distance); the fingerprints of two such atoms differ by at
  // most 1e-12 scale ||probe over the two supports||_1 plus rounding.
  bool known_compact_atom(const scfw::Atom& s) const {
    double mag = 0.0;
    const double f = compact_fingerprint(s, &mag), scale = std::max(1.0, atom_inf_norm(s));
    for (size_t a = 0; a < atoms_.size(); ++a) {
      const scfw::Atom& t = atoms_[a];
      double reach = 0.0;  // the probe's l1 norm over the two atoms' supports
      if (s.kind() == scfw::Atom::Kind::RankOne && t.kind() == scfw::Atom::Kind::RankOne)
        reach = probe_rows_l1_ * probe_cols_l1_;
      else if (s.kind() == scfw::Atom::Kind::Sparse && t.kind() == scfw::Atom::Kind::Sparse)
        reach = 1.5 * static_cast<double>(s.nnz() + t.nnz());
      else
        reach = 1.5 * static_cast<double>(d_);
      if (std::abs(prints_[a] - f) <= 1e-12 * scale * reach + 4e-12 * mag &&
          scfw::Atom::max_distance(t, s) <= 1e-12 * scale)
        return true;
    }
    return false;
  }

  void push_atom(const scfw::Vec& s) {
    prints_.push_back(fingerprint(s));
    atoms_.emplace_back();
    atoms_.back().set_dense(s);
  }
  void push_compact_atom(const scfw::Atom& s) {
    prints_.push_back(compact_fingerprint(s, nullptr));
    atoms_.push_back(s);
  }
  // The first solve: the atoms' form (compact when V is sparse, the domain answers compactly and
  // F does not read x), and the fingerprints of the atoms so far.
  void decide_mode(const scfw::Jacobian& V);
  // The compact path's index structures over V's pattern (rebuilt when the pattern changes).
  void index_pattern(const scfw::Jacobian& V);
  // The compact path's view of this solve's V: its non-zero entries and the columns that hold one.
  void index_active(const scfw::Jacobian& V);
  // One pricing round's LMO on the compact path: the gradient V^T pi_u over those columns.
  void compact_gradient(const scfw::Jacobian& V, const double* pi_u, double* g) const;

  void build_base();
  void load_dense(const scfw::Vec& rhs, const scfw::Jacobian& V);
  void load_clp(const scfw::Vec& rhs, const scfw::Jacobian& V);
  // One master solve in the back-end in use: the value, or false when the dense one failed.
  bool solve_master(long& simplex_iterations, double& value);
  // The master's row duals in the layout of the full master (x-, u-, convexity rows); for the
  // dense master, whose u-rows were substituted out, pi_u = c_u - B^T y.
  const double* master_duals() {
    if (!dense_live_) return lp_->dualRowSolution();
    const Eigen::Map<const Eigen::VectorXd> y(dm_.duals(), elim_.rows);
    pi_.assign(static_cast<size_t>(base_.num_rows), 0.0);
    Eigen::Map<Eigen::VectorXd>(pi_.data() + u_row_, n_).noalias() = elim_.cu - elim_.B.transpose() * y;
    if (with_x_)
      for (int j = 0; j < d_; ++j) pi_[static_cast<size_t>(x_row_ + j)] = y[elim_.x_row + j];
    pi_[static_cast<size_t>(conv_row_)] = y[elim_.conv_row];
    return pi_.data();
  }
  bool atom_basic(int a) const {
    return dense_live_ ? dm_.is_basic(first_atom_ + a) : lp_->getColumnStatus(first_lambda_ + a) == ClpSimplex::basic;
  }
  double atom_weight(int a) const {
    return dense_live_ ? dm_.value(first_atom_ + a) : lp_->primalColumnSolution()[first_lambda_ + a];
  }
  int atoms_in_master() const { return dense_live_ ? dm_.columns() - first_atom_ : lp_->numberColumns() - first_lambda_; }
  void delete_atoms(const std::vector<int>& atoms);  // ascending; from the master and atoms_
  // The pricing gradient of the dual point p (pi_u, then pi_x when F reads x): V^T pi_u + pi_x,
  // over the pattern's columns on the compact path.
  void gradient(const scfw::Jacobian& V, const double* p, double* g) const {
    if (mode_ == Mode::Compact) {
      compact_gradient(V, p, g);
      return;
    }
    Eigen::Map<scfw::Vec> gm(g, d_);
    V.transpose_multiply(Eigen::Map<const scfw::Vec>(p, n_), gm);
    if (with_x_) gm += Eigen::Map<const scfw::Vec>(p + n_, d_);
  }
  // Pricing: the master's duals (out-point) p_out_, the stability centre (in-point) p_in_ with
  // h_in_ (a lower bound on -F*(p_in_); the centre's minorant is h_in_ + pi_u^T rhs + g_in^T x),
  // their mix p_sep_; the gradients of the three.
  scfw::Vec p_out_, p_in_, p_sep_, g_out_, g_in_, g_sep_, s_;
  double h_in_ = 0.0;
  bool center_live_ = false;  // p_in_, h_in_ hold a centre (kept across solves)
  bool carry_ = true;         // start each solve from the previous solve's centre
  scfw::Atom catom_;          // the compact path's LMO answer
  scfw::Atom lmo_atom_;                           // the dense path's LMO answer, read as a d-vector
  scfw::Vec su_;                                  // scale u of the rank-one atom being multiplied
  // solve() in steps.
  void prune_master();
  std::vector<double> weights_and_x(scfw::Vec& x);
  void write_combination();
  void set_shape();
  void drop_unused_dense(const std::vector<double>& lambda);
  void drop_unused_clp(const std::vector<double>& lambda);

  double tol_ = 1e-7;
  double step_tol_ = 0.0;  // "step_tolerance": delta; this solve stops at max(tol_, delta gamma_k)
  double gamma_ = 0.0;     // the step of the next loop solve (set_step); 0 for a gap report's
  /// The relative tolerance of this solve: `tolerance`, loosened to step_tolerance * gamma_k in
  /// the loop (docs/formulations.md, "A GLMO tolerance tied to the step").
  double tolerance() const { return std::max(tol_, step_tol_ * gamma_); }
  int max_rounds_ = 500;
  int max_atoms_ = 50;
  scfw::Memory memory_;           // the run's account, charged in setup()
  std::int64_t jacobian_nnz_ = -1;  // V's non-zeros when sparse (Context::jacobian_nnz)
  std::string master_ = "auto";
  long max_pivots_ = 0;  // dense master pivots per master solve before Clp takes over (0: automatic)
  const scfw::OuterFunction* outer_ = nullptr;
  const scfw::Domain* domain_ = nullptr;
  int n_ = 0, d_ = 0;
  bool with_x_ = false;
  std::vector<scfw::Atom> atoms_;  // dense atoms (Mode::Dense) or compact ones (Mode::Compact)
  std::vector<double> prints_;     // fingerprint(atoms_[a])
  scfw::Vec probe_;                // the fingerprint's vector (the dense path; built at its first solve)
  enum class Mode { Undecided = 0, Dense = 1, Compact = 2 };
  Mode mode_ = Mode::Undecided;
  // The compact path's view of V's pattern: its columns in increasing order (the support of the
  // pricing gradient), and per stored entry k its row, its place among those columns and, for
  // rank-one atoms of a rows x cols domain, its matrix row and column; by support column, the
  // entries of that column (CSC order), for sparse atoms.
  std::shared_ptr<const scfw::JacobianPattern> pattern_;
  std::vector<int> support_, entry_row_, entry_pos_, entry_i_, entry_j_, csc_start_, csc_entry_;
  // This solve's V without its zero values (index_active), built only when V has a zero
  // (all_active_ false; otherwise the pattern's own structures serve): the support columns that
  // hold a non-zero (act_support_, the pricing gradients' and the LMO's index), a support column's
  // place among them (act_pos_, -1 for none), and the non-zero entries by rows (act_row_start_;
  // act_entry_: pattern entry k, act_gpos_: its place in act_support_, act_val_: V's value).
  bool all_active_ = true;
  std::vector<int> act_support_, act_pos_, act_entry_, act_gpos_;
  std::vector<double> act_val_;
  std::vector<std::int64_t> act_row_start_;
  // The columns the pricing gradients are given on.
  const std::vector<int>& priced_support() const { return all_active_ ? support_ : act_support_; }
  int shape_rows_ = 0, shape_cols_ = 0;
  scfw::Vec probe_rows_, probe_cols_;  // rank-one fingerprints' probe factors
  double probe_rows_l1_ = 0.0, probe_cols_l1_ = 0.0;
  std::vector<unsigned char> status_;  // the last optimal basis (Clp status array)
  bool warm_ = true;
  double smoothing_ = 0.5;
  lp::SparseLp base_;  // the master's fixed part: F's model over (x, u), the x-, u- and convexity rows
  // The dense master's form of base_: the n u-variables and u-rows substituted out
  // (u = rhs + sum_a lambda_a V s_a), which takes n rows and n columns off the dense simplex.
  struct Eliminated {
    int rows = 0;                 // dense master rows: base rows minus the u-rows
    std::vector<int> row_of;      // base row -> dense row (-1 for a u-row)
    std::vector<int> col_of;      // base variable -> dense column (-1 for a u-variable)
    Eigen::MatrixXd B;            // rows x n: coefficient of u_i in dense row r
    Eigen::VectorXd cu;           // n: F's objective coefficient of u_i
    int x_row = 0, conv_row = 0;  // dense rows of x_0 and of the convexity row
    int columns = 0;              // fixed dense columns (before the atoms)
    bool u_free = true;           // F's model left every u_i free (else: no substitution, Clp)
  } elim_;
  std::vector<double> pi_;
  bool dense_ = false;       // the dense master is the back-end of choice
  bool dense_live_ = false;  // dm_ holds the current master (false: lp_ does)
  long fallbacks_ = 0;       // solves redone with Clp after the dense master failed
  double dense_constant_ = 0.0;  // the dense master's objective constant for this solve
  lp::DenseMaster dm_;
  int first_atom_ = 0;  // dm_ structural index of atom 0
  std::unique_ptr<ClpSimplex> lp_;
  int x_row_ = 0, u_row_ = 0, conv_row_ = 0, first_lambda_ = 0;
  int clp_start_ = 1 | 2;  // Clp primal() start options for the next master solve
  std::vector<int> rows_;
  std::vector<int> prune_;
  // x's combination of atoms (GlmoResult::combination): the atoms of positive weight, as indices
  // while the unused atoms are dropped (removed_: the indices dropped since x was written), then
  // as pointers into atoms_.
  std::vector<int> comb_index_, removed_;
  std::vector<double> comb_weight_;
  scfw::AtomCombination comb_;
  std::shared_ptr<const scfw::MatrixEntries> entries_;  // Context::entries: the oracle's matrix entries
  std::vector<double> vals_;
  std::vector<double> col_;
  scfw::Vec vs_;
};

void ColumnGeneration::build_base() {
  // Model: the x variables (free), the u variables (free), the rows, then F's epigraph. The lambda
  // columns come after these.
  scfw::Model m;
  std::vector<scfw::Expr> u;
  std::vector<scfw::Expr> xs;
  xs.reserve(static_cast<size_t>(d_));
  std::vector<scfw::Var> xv;
  for (int j = 0; j < d_ && with_x_; ++j) {
    xv.push_back(m.add_var(-scfw::inf, scfw::inf, "x[" + std::to_string(j) + "]"));
    xs.emplace_back(xv.back());
  }
  if (!with_x_) xs.assign(static_cast<size_t>(d_), scfw::Expr(0.0));  // F does not read x
  for (int i = 0; i < n_; ++i) u.emplace_back(m.add_var(-scfw::inf, scfw::inf, "u[" + std::to_string(i) + "]"));
  x_row_ = 0;
  if (with_x_)
    for (int j = 0; j < d_; ++j) m.add_row(scfw::Expr(xv[static_cast<size_t>(j)]), 0.0, 0.0);
  u_row_ = static_cast<int>(m.rows().size());
  for (int i = 0; i < n_; ++i) m.add_row(u[static_cast<size_t>(i)], 0.0, 0.0);  // rhs set per solve
  conv_row_ = static_cast<int>(m.rows().size());
  m.add_row(scfw::Expr(0.0), 1.0, 1.0);
  const int outer_var = m.num_vars(), outer_row = static_cast<int>(m.rows().size());
  scfw::Expr objective = outer_->model(m, u, xs);
  lp::check_model("column_generation", "the outer function's model", m, outer_var, outer_row, 0, {}, "",
                       &objective);
  if (!m.cones().empty())
    throw scfw::CapabilityError("column_generation: the outer function's model has second-order cones; the "
                                "restricted master is solved as a linear program");
  objective.normalize();

  base_ = lp::SparseLp::from_model(m, objective);

  // The eliminated form for the dense master. The u-variables are free and each u-row is
  // u_i - sum_a lambda_a (V s_a)_i = rhs_i, so u is defined by the atoms' weights: substituting
  // it is exact.
  std::vector<int> u_var(static_cast<size_t>(n_));
  for (int i = 0; i < n_; ++i) u_var[static_cast<size_t>(i)] = u[static_cast<size_t>(i)].terms()[0].first;
  std::vector<char> drop(static_cast<size_t>(base_.num_rows), 0);
  for (int i = 0; i < n_; ++i) drop[static_cast<size_t>(u_row_ + i)] = 1;
  const lp::UElimination elim(base_, u_var, drop);
  Eliminated& e = elim_;
  e.rows = elim.rows;
  e.row_of = elim.row_of;
  e.col_of = elim.col_of;
  e.columns = elim.columns;
  e.u_free = elim.u_free;
  e.x_row = e.row_of[static_cast<size_t>(x_row_)] >= 0 ? e.row_of[static_cast<size_t>(x_row_)] : 0;
  e.conv_row = e.row_of[static_cast<size_t>(conv_row_)];
  e.B = Eigen::MatrixXd::Zero(e.rows, n_);
  e.cu = Eigen::VectorXd::Zero(n_);
  for (const lp::UElimination::UTerm& t : elim.uterms) {
    if (t.row < e.rows)
      e.B(t.row, t.i) += t.coef;
    else
      e.cu[t.i] = t.coef;
  }
}

void ColumnGeneration::load_dense(const scfw::Vec& rhs, const scfw::Jacobian& V) {
  const int K = static_cast<int>(atoms_.size());
  const Eliminated& e = elim_;
  col_.resize(static_cast<size_t>(e.rows));
  const bool keep = warm_ && dense_live_ && dm_.rows() == e.rows && dm_.columns() == first_atom_ + K;
  if (!keep) {
    // From scratch: the fixed columns, then the atoms; all-logical basis.
    dm_.reset(e.rows);
    for (int v = 0; v < base_.num_vars; ++v) {
      if (e.col_of[static_cast<size_t>(v)] < 0) continue;
      std::fill(col_.begin(), col_.end(), 0.0);
      for (const auto& [r, a] : base_.cols[static_cast<size_t>(v)]) {
        const int dr = e.row_of[static_cast<size_t>(r)];
        if (dr >= 0) col_[static_cast<size_t>(dr)] += a;
      }
      dm_.add_column(col_.data(), base_.col_lo[static_cast<size_t>(v)], base_.col_up[static_cast<size_t>(v)],
                     base_.cost[static_cast<size_t>(v)]);
    }
    first_atom_ = e.columns;
    for (int a = 0; a < K; ++a) {
      const double cost = dense_column(atoms_[static_cast<size_t>(a)], V);
      dm_.add_column(col_.data(), 0.0, scfw::inf, cost);
    }
  } else {
    // Warm: same columns and basis; V changed the atoms' columns and costs.
    for (int a = 0; a < K; ++a) {
      const double cost = dense_column(atoms_[static_cast<size_t>(a)], V);
      dm_.set_column(first_atom_ + a, col_.data(), cost);
    }
  }
  // Row bounds shift by B rhs (the substituted u's constant part); F's objective gains c_u^T rhs.
  const Eigen::VectorXd shift = e.B * rhs;
  for (int r = 0; r < base_.num_rows; ++r) {
    const int dr = e.row_of[static_cast<size_t>(r)];
    if (dr < 0) continue;
    dm_.set_row_bounds(dr, base_.row_lo[static_cast<size_t>(r)] - shift[dr], base_.row_up[static_cast<size_t>(r)] - shift[dr]);
  }
  dense_constant_ = base_.objective_constant + e.cu.dot(rhs);
  dense_live_ = true;
}

void ColumnGeneration::load_clp(const scfw::Vec& rhs, const scfw::Jacobian& V) {
  for (int i = 0; i < n_; ++i)
    base_.row_lo[static_cast<size_t>(u_row_ + i)] = base_.row_up[static_cast<size_t>(u_row_ + i)] = rhs[i];
  lp_ = std::make_unique<ClpSimplex>();
  lp_->setLogLevel(0);
  lp::load_clp(*lp_, base_);
  lp_->setLogLevel(0);
  // No scaling: the master is small and well scaled, and with Clp's scaling the warm-started
  // primal sometimes stopped "optimal" on the scaled problem while a new column still had a
  // clearly negative unscaled reduced cost (secondary status 3): the pricing then returned the
  // same atom again and column generation stalled with a large gap.
  lp_->scaling(0);
  first_lambda_ = base_.num_vars;
  // All atoms' columns in one addColumns call (one at a time re-copies the matrix each time).
  rows_.clear();
  vals_.clear();
  std::vector<CoinBigIndex> col_start(1, 0);
  for (const scfw::Atom& a : atoms_) {
    column_of(a, V);
    col_start.push_back(static_cast<CoinBigIndex>(rows_.size()));
  }
  const int K = static_cast<int>(atoms_.size());
  const std::vector<double> lam_lo(static_cast<size_t>(K), 0.0), lam_up(static_cast<size_t>(K), COIN_DBL_MAX),
      lam_cost(static_cast<size_t>(K), 0.0);
  lp_->addColumns(K, lam_lo.data(), lam_up.data(), lam_cost.data(), col_start.data(), rows_.data(), vals_.data());
  // Warm start: the master has the same rows and columns as at the end of the previous solve
  // when no atom was dropped since; start from that solve's optimal basis.
  if (warm_ && static_cast<int>(status_.size()) == lp_->numberRows() + lp_->numberColumns())
    lp_->copyinStatus(status_.data());
  dense_live_ = false;
}

bool ColumnGeneration::solve_master(long& simplex_iterations, double& value) {
  if (dense_live_) {
    // Enough pivots for any sane master; beyond it the solve is redone with Clp.
    const long limit = max_pivots_ > 0 ? max_pivots_ : 50L * (dm_.rows() + dm_.columns()) + 1000;
    const lp::PrimalExit st = dm_.solve(limit);
    simplex_iterations += dm_.pivots();
    if (st == lp::PrimalExit::kInfeasible)
      throw scfw::Error(lp::infeasible_lp_message("column_generation", "the restricted master LP"));
    if (st == lp::PrimalExit::kUnbounded)
      throw scfw::Error("column_generation: the restricted master LP is unbounded (the outer function's model is unbounded below)");
    if (st == lp::PrimalExit::kFailed) return false;
    value = dm_.objective() + dense_constant_;
    return true;
  }
  lp_->primal(0, clp_start_);
  clp_start_ = 1 | 2;
  simplex_iterations += lp_->numberIterations();
  const int status = lp_->status();
  if (status == 1) throw scfw::Error(lp::infeasible_lp_message("column_generation", "the restricted master LP"));
  if (status == 2) throw scfw::Error("column_generation: the restricted master LP is unbounded (the outer function's model is unbounded below)");
  if (status != 0)
    throw scfw::Error("column_generation: the restricted master LP solve failed (Clp status " + std::to_string(status) + ")");
  value = lp_->objectiveValue() + base_.objective_constant;
  return true;
}

void ColumnGeneration::write_combination() {
  comb_.clear();
  for (size_t c = 0; c < comb_index_.size(); ++c) {
    const int a = comb_index_[c];
    const int shift = static_cast<int>(std::lower_bound(removed_.begin(), removed_.end(), a) - removed_.begin());
    comb_.atom.push_back(&atoms_[static_cast<size_t>(a - shift)]);
    comb_.weight.push_back(comb_weight_[c]);
  }
}

void ColumnGeneration::delete_atoms(const std::vector<int>& atoms) {
  if (atoms.empty()) return;
  removed_.insert(removed_.end(), atoms.begin(), atoms.end());
  std::vector<int> cols(atoms.size());
  if (dense_live_) {
    for (size_t i = 0; i < atoms.size(); ++i) cols[i] = first_atom_ + atoms[i];
    dm_.delete_columns(cols);
  } else {
    for (size_t i = 0; i < atoms.size(); ++i) cols[i] = first_lambda_ + atoms[i];
    lp_->deleteColumns(static_cast<int>(cols.size()), cols.data());
    clp_start_ = 0;  // the column indices changed: Clp starts afresh from the status array
  }
  std::vector<scfw::Atom> kept;
  std::vector<double> kept_prints;
  kept.reserve(atoms_.size());
  size_t next = 0;
  for (size_t a = 0; a < atoms_.size(); ++a) {
    if (next < atoms.size() && atoms[next] == static_cast<int>(a)) {
      ++next;
      continue;
    }
    kept.push_back(std::move(atoms_[a]));
    kept_prints.push_back(prints_[a]);
  }
  atoms_ = std::move(kept);
  prints_ = std::move(kept_prints);
}

scfw::GlmoResult ColumnGeneration::solve(const scfw::Vec& z, const scfw::Jacobian& Vj, const scfw::Vec& y, scfw::Vec& x) {
  // V through its products only (J s per atom, J^T pi per pricing round): a sparse V is taken as
  // it is, never densified.
  const scfw::Jacobian& V = Vj;
  if (!outer_) throw scfw::Error("column_generation: solve() called before setup()");
  lp::check_solve_sizes("column_generation", z, V, y, n_, d_);
  if (mode_ == Mode::Undecided) decide_mode(V);
  const bool compact = mode_ == Mode::Compact;
  if (compact) {
    if (!V.is_sparse()) throw scfw::Error("column_generation: keeps compact atoms from a sparse V, and got a dense one");
    index_pattern(V);
    index_active(V);
  } else {
    ensure_probe();
  }
  scfw::Vec Vy(n_);
  V.multiply(y, Vy);
  const scfw::Vec rhs = z - Vy;
  if (dense_)
    load_dense(rhs, V);
  else
    load_clp(rhs, V);
  clp_start_ = 1 | 2;

  scfw::GlmoResult result;
  long simplex_iterations = 0;
  int calls = 0;  // LMO calls of this solve (max_rounds bounds them)
  // Gradients: d-vectors on the dense path, vectors over the pattern's columns on the compact one.
  const int gn = compact ? static_cast<int>(priced_support().size()) : d_;
  const int pn = n_ + (with_x_ ? d_ : 0);  // a dual point's pi_u, then pi_x
  g_out_.resize(gn);
  g_in_.resize(gn);
  g_sep_.resize(gn);
  p_out_.resize(pn);
  p_sep_.resize(pn);
  // The stability centre (the in-point): the dual point of the best Lagrangian bound so far, as
  // its affine minorant c_in + g_in^T x of the GLMO's objective over X. A centre carried over from
  // the previous solve (its duals p_in_, h_in_) is valid for this one too, with a bound unknown
  // until an LMO call at a point mixed from it.
  bool have_center = false;
  double c_in = 0.0;
  if (carry_ && center_live_ && p_in_.size() == pn) {
    const Eigen::Map<const scfw::Vec> pu(p_in_.data(), n_);
    c_in = h_in_ + pu.dot(rhs);
    gradient(V, p_in_.data(), g_in_.data());
    have_center = true;
  }
  double value = 0.0, bound = -scfw::inf;
  bool solved = false;  // the master is optimal for the atoms it holds
  int mispriced = 0;    // consecutive mis-pricings at the current master duals
  double c_out = 0.0, pi0 = 0.0;
  while (true) {
    if (!solved) {
      // After new columns: from the previous basis (warm). Clp keeps its work areas and
      // factorization between the rounds of this solve (1 | 2: the rows do not change).
      if (!solve_master(simplex_iterations, value)) {
        // The dense master gave up: this solve continues with Clp, from its current atoms.
        ++fallbacks_;
        status_.clear();
        load_clp(rhs, V);
        clp_start_ = 1 | 2;
        solve_master(simplex_iterations, value);
      }
      solved = true;
      mispriced = 0;
      if (value - bound <= tolerance() * std::max(1.0, std::abs(value))) break;
      if (calls >= max_rounds_) break;
      // The out-point: the master's duals, and their minorant value - pi_0 + g_out^T x.
      const double* pi = master_duals();
      std::copy(pi + u_row_, pi + u_row_ + n_, p_out_.data());
      if (with_x_) std::copy(pi + x_row_, pi + x_row_ + d_, p_out_.data() + n_);
      pi0 = pi[conv_row_];
      c_out = value - pi0;
      gradient(V, p_out_.data(), g_out_.data());
    }
    if (calls >= max_rounds_) break;
    // The separation point: alpha in + (1 - alpha) out, alpha lowered after each mis-pricing at
    // these duals (Wentges' rule made safe: after 1 / (1 - alpha) of them it prices at the
    // master's own duals, where an atom of non-negative reduced cost proves optimality).
    const double a = have_center ? std::max(0.0, 1.0 - (1.0 + mispriced) * (1.0 - smoothing_)) : 0.0;
    const double c_sep = have_center ? a * c_in + (1.0 - a) * c_out : c_out;
    if (have_center)
      g_sep_ = a * g_in_ + (1.0 - a) * g_out_;
    else
      g_sep_ = g_out_;
    ++calls;
    // The LMO at the separation point: the minorant's minimum over X is a valid lower bound.
    double lb = 0.0, rc = 0.0;
    if (compact) {
      const scfw::Gradient gs = scfw::Gradient::sparse(d_, priced_support(), std::span<const double>(g_sep_.data(), gn));
      domain_->lmo(gs, catom_);
      const double dsep = catom_.dot(gs);
      lb = c_sep + dsep;
      rc = (a == 0.0 ? dsep : catom_.dot(scfw::Gradient::sparse(d_, priced_support(), std::span<const double>(g_out_.data(), gn)))) - pi0;
    } else {
      domain_->lmo(g_sep_, lmo_atom_);
      lmo_atom_.to_dense(s_);
      const double dsep = g_sep_.dot(s_);
      lb = c_sep + dsep;
      rc = (a == 0.0 ? dsep : g_out_.dot(s_)) - pi0;
    }
    if (lb > bound) {
      // The centre moves to the separation point.
      const double h_out = c_out - Eigen::Map<const scfw::Vec>(p_out_.data(), n_).dot(rhs);
      if (have_center) {
        p_sep_ = a * p_in_ + (1.0 - a) * p_out_;
        h_in_ = a * h_in_ + (1.0 - a) * h_out;
        p_in_ = p_sep_;
      } else {
        p_in_ = p_out_;
        h_in_ = h_out;
      }
      c_in = c_sep;
      g_in_ = g_sep_;
      have_center = true;
      center_live_ = true;
      bound = lb;
    }
    if (value - bound <= tolerance() * std::max(1.0, std::abs(value))) break;
    // The atom prices out at the master's duals: it joins the master, unless it is already there
    // (a stall when the master cannot improve with it: at the master's own duals, stop).
    const bool known = rc < 0.0 ? (compact ? known_compact_atom(catom_) : known_atom(s_)) : true;
    if (!known) {
      if (compact)
        push_compact_atom(catom_);
      else
        push_atom(s_);
      add_column(atoms_.back(), V);
      if (static_cast<int>(atoms_.size()) > 2 * max_atoms_) prune_master();
      solved = false;
      continue;
    }
    // A mis-pricing: the bound at the separation point moved the centre towards the master's
    // value ((value - bound) shrank by the factor a at least); price again, closer to the duals.
    if (a == 0.0) break;  // the master's own duals and no improving atom: a stall
    ++mispriced;
  }
  if (bound == -scfw::inf) bound = value;  // max_rounds reached before any pricing (never with >= 1)

  // x and the atoms' weights; then the unused atoms beyond max_atoms go.
  const std::vector<double> lambda = weights_and_x(x);
  if (dense_live_)
    drop_unused_dense(lambda);
  else
    drop_unused_clp(lambda);

  write_combination();
  result.value = value;
  result.lower_bound = std::min(bound, value);
  result.iterations = calls + simplex_iterations;
  result.combination = &comb_;
  return result;
}

// The matrix's shape, for rank-one atoms: the oracle's entries', or the domain's grid.
void ColumnGeneration::set_shape() {
  if (entries_) {
    shape_rows_ = entries_->rows;
    shape_cols_ = entries_->cols;
    return;
  }
  const std::vector<int> shape = domain_->shape();
  if (shape.size() == 2) {
    shape_rows_ = shape[0];
    shape_cols_ = shape[1];
  }
}

void ColumnGeneration::decide_mode(const scfw::Jacobian& V) {
  const bool compact = V.is_sparse() && !with_x_ && domain_->capabilities().has(scfw::Capability::CompactAtoms);
  mode_ = compact ? Mode::Compact : Mode::Dense;
  if (!compact) ensure_probe();
  if (compact) set_shape();
  prints_.clear();
  for (scfw::Atom& a : atoms_) {
    if (compact && a.kind() == scfw::Atom::Kind::Dense) {
      const scfw::Vec x = a.dense();
      a.set_sparse_from(x);
    }
    prints_.push_back(compact ? compact_fingerprint(a, nullptr) : fingerprint(a.dense()));
  }
}

void ColumnGeneration::index_pattern(const scfw::Jacobian& V) {
  if (pattern_ && (pattern_ == V.pattern_ptr() || pattern_->same_as(V.pattern()))) return;
  if (shape_rows_ == 0) set_shape();
  pattern_ = V.pattern_ptr();
  const scfw::JacobianPattern& P = *pattern_;
  const std::vector<int>& col = P.col();
  const size_t nnz = col.size();
  // The support: the distinct columns, by a counting pass over d (one byte a coordinate), or by
  // sorting when the pattern is much smaller than d.
  std::vector<int> order(nnz);
  for (size_t k = 0; k < nnz; ++k) order[k] = static_cast<int>(k);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return col[static_cast<size_t>(a)] < col[static_cast<size_t>(b)]; });
  support_.clear();
  csc_start_.clear();
  csc_entry_.assign(order.begin(), order.end());
  entry_pos_.assign(nnz, 0);
  for (size_t t = 0; t < nnz; ++t) {
    const int k = order[t];
    if (support_.empty() || support_.back() != col[static_cast<size_t>(k)]) {
      support_.push_back(col[static_cast<size_t>(k)]);
      csc_start_.push_back(static_cast<int>(t));
    }
    entry_pos_[static_cast<size_t>(k)] = static_cast<int>(support_.size()) - 1;
  }
  csc_start_.push_back(static_cast<int>(nnz));
  entry_row_.assign(nnz, 0);
  for (int r = 0; r < P.rows(); ++r)
    for (std::int64_t k = P.row_start()[static_cast<size_t>(r)]; k < P.row_start()[static_cast<size_t>(r) + 1]; ++k)
      entry_row_[static_cast<size_t>(k)] = r;
  entry_i_.clear();
  entry_j_.clear();
  if (shape_cols_ > 0) {
    entry_i_.resize(nnz);
    entry_j_.resize(nnz);
    for (size_t k = 0; k < nnz; ++k) {
      if (entries_) {  // the columns are the oracle's entries
        entry_i_[k] = entries_->row[static_cast<size_t>(col[k])];
        entry_j_[k] = entries_->col[static_cast<size_t>(col[k])];
        continue;
      }
      entry_i_[k] = col[k] / shape_cols_;
      entry_j_[k] = col[k] - entry_i_[k] * shape_cols_;
    }
    probe_rows_.resize(shape_rows_);
    probe_cols_.resize(shape_cols_);
    for (int i = 0; i < shape_rows_; ++i) probe_rows_[i] = probe_at(i);
    for (int j = 0; j < shape_cols_; ++j) probe_cols_[j] = probe_at(std::int64_t{shape_rows_} + j);
    probe_rows_l1_ = probe_rows_.lpNorm<1>();
    probe_cols_l1_ = probe_cols_.lpNorm<1>();
  }
}

// A V with few non-zeros (a batch-1 sample's under vanilla or clipped SCFW, a momentum average
// before every entry was sampled) then costs its non-zeros per LMO call, not its pattern's size:
// the gradients, the LMO's input and the rank-one atoms' images run over these. Rebuilt at every
// solve when V has a zero (one pass over the pattern); the vectors keep their capacity. A V without
// one (a momentum average once every entry was sampled) is priced over the pattern's own
// structures, at no cost beyond the test.
void ColumnGeneration::index_active(const scfw::Jacobian& V) {
  const double* val = V.data();
  const scfw::JacobianPattern& P = *pattern_;
  const size_t nnz = P.col().size();
  all_active_ = std::find(val, val + nnz, 0.0) == val + nnz;
  if (all_active_) return;
  act_pos_.assign(support_.size(), -1);
  for (size_t k = 0; k < nnz; ++k)
    if (val[k] != 0.0) act_pos_[static_cast<size_t>(entry_pos_[k])] = 0;
  act_support_.clear();
  for (size_t m = 0; m < support_.size(); ++m)
    if (act_pos_[m] == 0) {
      act_pos_[m] = static_cast<int>(act_support_.size());
      act_support_.push_back(support_[m]);
    }
  act_row_start_.assign(static_cast<size_t>(P.rows()) + 1, 0);
  act_entry_.clear();
  act_gpos_.clear();
  act_val_.clear();
  for (int r = 0; r < P.rows(); ++r) {
    for (std::int64_t k = P.row_start()[static_cast<size_t>(r)]; k < P.row_start()[static_cast<size_t>(r) + 1]; ++k)
      if (val[k] != 0.0) {
        act_entry_.push_back(static_cast<int>(k));
        act_gpos_.push_back(act_pos_[static_cast<size_t>(entry_pos_[static_cast<size_t>(k)])]);
        act_val_.push_back(val[k]);
      }
    act_row_start_[static_cast<size_t>(r) + 1] = static_cast<std::int64_t>(act_entry_.size());
  }
}

// The sums of V^T pi_u over the non-zero entries only: the pattern's zero entries added +-0, so
// this is the sum over the whole pattern, bit for bit, at the columns that hold a non-zero.
void ColumnGeneration::compact_gradient(const scfw::Jacobian& V, const double* pi_u, double* g) const {
  std::fill(g, g + priced_support().size(), 0.0);
  const scfw::JacobianPattern& P = *pattern_;
  const bool all = all_active_;
  const std::int64_t* start = all ? P.row_start().data() : act_row_start_.data();
  const int* pos = all ? entry_pos_.data() : act_gpos_.data();
  const double* val = all ? V.data() : act_val_.data();
  for (int r = 0; r < P.rows(); ++r) {
    const double p = pi_u[r];
    if (p == 0.0) continue;
    for (std::int64_t e = start[r]; e < start[r + 1]; ++e) g[pos[e]] += val[e] * p;
  }
}

void ColumnGeneration::compact_image(const scfw::Atom& s, const scfw::Jacobian& V, scfw::Vec& out) {
  const double* val = V.data();
  const scfw::JacobianPattern& P = *pattern_;
  out.setZero(n_);
  switch (s.kind()) {
    case scfw::Atom::Kind::Dense:
      V.multiply(s.dense(), out);
      return;
    case scfw::Atom::Kind::Sparse: {
      // Each of the atom's coordinates that is a pattern column: its column's entries.
      for (std::int64_t t = 0; t < s.nnz(); ++t) {
        const int j = s.index()[static_cast<size_t>(t)];
        const auto it = std::lower_bound(support_.begin(), support_.end(), j);
        if (it == support_.end() || *it != j) continue;
        const size_t m = static_cast<size_t>(it - support_.begin());
        const double sv = s.value()[static_cast<size_t>(t)];
        for (int e = csc_start_[m]; e < csc_start_[m + 1]; ++e) {
          const int k = csc_entry_[static_cast<size_t>(e)];
          out[entry_row_[static_cast<size_t>(k)]] += val[k] * sv;
        }
      }
      return;
    }
    case scfw::Atom::Kind::RankOne: {
      if (s.rows() != shape_rows_ || s.cols() != shape_cols_)
        throw scfw::Error("column_generation: a rank-one atom of " + std::to_string(s.rows()) + " x " +
                          std::to_string(s.cols()) + " from a domain of shape " + std::to_string(shape_rows_) + " x " +
                          std::to_string(shape_cols_));
      // The entries of the atom the dense path would hold, (scale u_i) v_j, times V's non-zero
      // entries of the row, summed as V's own product sums a row (scfw::sparse_row_sum).
      su_ = s.scale() * s.u();
      const double* u = su_.data();
      const double* v = s.v().data();
      const int* ei = entry_i_.data();
      const int* ej = entry_j_.data();
      // Row r sums over the non-zeros start[r] .. start[r + 1] - 1; the e-th is V's entry entry(e)
      // of value vals[e]: the pattern's own rows when V has no zero, else the non-zeros' index.
      auto rows = [&](const std::int64_t* start, const double* vals, auto entry) {
        for (int r = 0; r < P.rows(); ++r)
          out[r] = scfw::sparse_row_sum(start[r], start[r + 1], [&](std::int64_t e) {
            const std::int64_t k = entry(e);
            return vals[e] * (u[ei[k]] * v[ej[k]]);
          });
      };
      if (all_active_) {
        rows(P.row_start().data(), val, [](std::int64_t e) { return e; });
      } else {
        const int* act = act_entry_.data();
        rows(act_row_start_.data(), act_val_.data(), [act](std::int64_t e) { return std::int64_t{act[e]}; });
      }
      return;
    }
  }
}

double ColumnGeneration::compact_fingerprint(const scfw::Atom& s, double* mag) const {
  double f = 0.0, m = 0.0;
  switch (s.kind()) {
    case scfw::Atom::Kind::Dense:
      for (int j = 0; j < d_; ++j) {
        const double t = probe_at(j) * s.dense()[j];
        f += t;
        m += std::abs(t);
      }
      break;
    case scfw::Atom::Kind::Sparse:
      for (std::int64_t k = 0; k < s.nnz(); ++k) {
        const double t = probe_at(s.index()[static_cast<size_t>(k)]) * s.value()[static_cast<size_t>(k)];
        f += t;
        m += std::abs(t);
      }
      break;
    case scfw::Atom::Kind::RankOne: {
      if (probe_rows_.size() != s.rows() || probe_cols_.size() != s.cols())
        throw scfw::Error("column_generation: a rank-one atom of " + std::to_string(s.rows()) + " x " +
                          std::to_string(s.cols()) + " from a domain of shape " + std::to_string(shape_rows_) + " x " +
                          std::to_string(shape_cols_));
      f = s.scale() * probe_rows_.dot(s.u()) * probe_cols_.dot(s.v());
      m = std::abs(s.scale()) * probe_rows_.dot(s.u().cwiseAbs()) * probe_cols_.dot(s.v().cwiseAbs());
      break;
    }
  }
  if (mag) *mag = m;
  return f;
}

// Column deletion within a solve: when the master has grown to 2 max_atoms atoms, drop nonbasic
// atoms (weight 0 in the current optimal master, so its value and basis stay optimal), oldest
// first, down to max_atoms. The bound is unaffected (it prices over all of X).
void ColumnGeneration::prune_master() {
  prune_.clear();
  const int K = static_cast<int>(atoms_.size());
  int excess = K - max_atoms_;
  const int already = atoms_in_master();  // == K: every atom has a column
  for (int a = 0; a < K && excess > 0; ++a)
    if (a < already - 2 && !atom_basic(a)) {  // the newest two have not been solved yet
      prune_.push_back(a);
      --excess;
    }
  delete_atoms(prune_);
}

// The atoms' weights (clamped at 0) and x = sum_a lambda_a s_a / sum_a lambda_a.
std::vector<double> ColumnGeneration::weights_and_x(scfw::Vec& x) {
  const int K = static_cast<int>(atoms_.size());
  std::vector<double> lambda(static_cast<size_t>(K));
  for (int a = 0; a < K; ++a) lambda[static_cast<size_t>(a)] = std::max(0.0, atom_weight(a));
  double total = 0.0;
  for (double l : lambda) total += l;
  // x's combination (write_combination() turns the indices into pointers after the drops).
  comb_index_.clear();
  comb_weight_.clear();
  removed_.clear();
  for (int a = 0; a < K; ++a)
    if (lambda[static_cast<size_t>(a)] > 0.0) {
      comb_index_.push_back(a);
      comb_weight_.push_back(lambda[static_cast<size_t>(a)] / total);
    }
  if (mode_ == Mode::Compact) {
    // x written once: the rank-one atoms of positive weight as one product U W V^T (which writes
    // every entry), the others scattered, then divided by the weights' total (the dense path's
    // sums for one-entry atoms). With only rank-one atoms carrying entries, 1 / total goes into W
    // instead: one pass over x in all.
    int r1 = 0;
    bool scattered = false;
    for (int a = 0; a < K; ++a) {
      const scfw::Atom& at = atoms_[static_cast<size_t>(a)];
      if (!(lambda[static_cast<size_t>(a)] > 0.0)) continue;
      if (at.kind() == scfw::Atom::Kind::RankOne)
        ++r1;
      else if (at.kind() == scfw::Atom::Kind::Dense || at.nnz() > 0)
        scattered = true;
    }
    const double fold = !scattered && total > 0.0 ? 1.0 / total : 1.0;
    if (r1 > 0) {
      Eigen::MatrixXd Uw(shape_rows_, r1), Vf(shape_cols_, r1);
      int c = 0;
      for (int a = 0; a < K; ++a) {
        const scfw::Atom& at = atoms_[static_cast<size_t>(a)];
        if (!(lambda[static_cast<size_t>(a)] > 0.0) || at.kind() != scfw::Atom::Kind::RankOne) continue;
        Uw.col(c) = (lambda[static_cast<size_t>(a)] * fold * at.scale()) * at.u();
        Vf.col(c) = at.v();
        ++c;
      }
      x.resize(d_);
      if (entries_) {
        // x is the matrix at the oracle's entries only: one short sum each, over the atoms in
        // order as the product U W V^T sums them, so that x is the whole matrix's x at the entries.
        const Eigen::MatrixXd Ut = Uw.transpose(), Vt = Vf.transpose();
        const int* ri = entries_->row.data();
        const int* ci = entries_->col.data();
        for (int k = 0; k < d_; ++k) {
          const double* a = Ut.col(ri[k]).data();
          const double* b = Vt.col(ci[k]).data();
          double sum = 0.0;
          for (int c = 0; c < r1; ++c) sum += a[c] * b[c];
          x[k] = sum;
        }
      } else {
        Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> X(x.data(), shape_rows_, shape_cols_);
        X.noalias() = Uw * Vf.transpose();
      }
    } else {
      x.setZero(d_);
    }
    if (!scattered) return lambda;
    for (int a = 0; a < K; ++a) {
      const scfw::Atom& at = atoms_[static_cast<size_t>(a)];
      if (lambda[static_cast<size_t>(a)] > 0.0 && at.kind() != scfw::Atom::Kind::RankOne)
        at.add_to(lambda[static_cast<size_t>(a)], x);
    }
    if (total > 0.0) x /= total;
    return lambda;
  }
  x.setZero(d_);
  for (int a = 0; a < K; ++a)
    if (lambda[static_cast<size_t>(a)] > 0.0) x += lambda[static_cast<size_t>(a)] * atoms_[static_cast<size_t>(a)].dense();
  if (total > 0.0) x /= total;
  return lambda;
}

// Drop unused atoms, oldest first, beyond max_atoms; the dense master keeps its basis (a
// dropped basic column of weight 0 is replaced by its row's logical at the next solve).
void ColumnGeneration::drop_unused_dense(const std::vector<double>& lambda) {
  const int K = static_cast<int>(atoms_.size());
  if (K <= max_atoms_) return;
  int excess = K - max_atoms_;
  prune_.clear();
  for (int a = 0; a < K && excess > 0; ++a)
    if (lambda[static_cast<size_t>(a)] <= 0.0) {
      prune_.push_back(a);
      --excess;
    }
  delete_atoms(prune_);
}

// Keep Clp's final basis for the next solve's warm start, and drop unused atoms, oldest first,
// beyond max_atoms. A dropped atom has weight 0, so it is nonbasic (or a degenerate basic): its
// status entry is removed; when a dropped column was basic, the basis would lose a member, so
// the next solve starts cold instead.
void ColumnGeneration::drop_unused_clp(const std::vector<double>& lambda) {
  const int K = static_cast<int>(atoms_.size());
  const unsigned char* st = lp_->statusArray();
  status_.assign(st, st + lp_->numberRows() + lp_->numberColumns());
  if (K <= max_atoms_) return;
  int excess = K - max_atoms_;
  std::vector<scfw::Atom> kept;
  std::vector<double> kept_prints;
  kept.reserve(static_cast<size_t>(K));
  // Status layout (Clp): the columns first, then the rows.
  const int ncols = lp_->numberColumns();
  std::vector<unsigned char> cols_status(status_.begin(), status_.begin() + ncols), rows_status(status_.begin() + ncols, status_.end());
  std::vector<unsigned char> new_status(cols_status.begin(), cols_status.begin() + first_lambda_);
  bool basis_ok = true;
  for (int a = 0; a < K; ++a) {
    const unsigned char col_st = cols_status[static_cast<size_t>(first_lambda_ + a)];
    if (excess > 0 && lambda[static_cast<size_t>(a)] <= 0.0) {
      --excess;
      removed_.push_back(a);
      if ((col_st & 7) == ClpSimplex::basic) basis_ok = false;
      continue;
    }
    kept.push_back(std::move(atoms_[static_cast<size_t>(a)]));
    kept_prints.push_back(prints_[static_cast<size_t>(a)]);
    new_status.push_back(col_st);
  }
  atoms_ = std::move(kept);
  prints_ = std::move(kept_prints);
  new_status.insert(new_status.end(), rows_status.begin(), rows_status.end());
  if (basis_ok)
    status_ = std::move(new_status);
  else
    status_.clear();
}

void register_components(scfw::Registrar& r) {
  using scfw::ParamSpec;
  r.add<ColumnGeneration>(
      "column_generation",
      "x = argmin_{x in X} F(z + V (x - y), x) by column generation: a master LP over LMO atoms (dense primal "
      "simplex or Clp), priced with its duals; certified lower bound (for domains known only through an LMO)",
      {ParamSpec::number("tolerance", "stop when value - lower_bound <= tolerance * max(1, |value|)").positive().def(1e-7),
       ParamSpec::number("step_tolerance",
                         "in the algorithm's loop, stop at max(tolerance, step_tolerance * gamma_k) * max(1, |value|) "
                         "instead (gap reports keep tolerance); 0: off")
           .at_least(0)
           .def(0.0),
       ParamSpec::integer("max_rounds", "at most this many pricing rounds (LMO calls) per solve").at_least(1).def(500),
       ParamSpec::integer("max_atoms",
                          "atoms kept across solves; beyond it unused atoms are dropped, oldest first (within a solve: "
                          "when the master reaches 2 max_atoms atoms, its nonbasic ones, down to max_atoms)")
           .at_least(1)
           .def(50),
       ParamSpec::boolean("warm_start", "start each solve's master from the previous solve's optimal basis").def(true),
       ParamSpec::number("smoothing",
                         "in-out separation: the LMO prices at smoothing * (duals of the best bound) + (1 - smoothing) "
                         "* (master duals), lowered after each mis-pricing (0: Kelley, at the master duals)")
           .at_least(0)
           .below(1)
           .def(0.5),
       ParamSpec::boolean("carry_center",
                          "start each solve's in-out separation from the previous solve's best dual point")
           .def(true),
       ParamSpec::choice("master", {"auto", "dense", "clp"},
                         "the master LP's solver: \"dense\" (a dense primal simplex kept warm across rounds and solves), "
                         "\"clp\", or \"auto\" (dense up to 256 master rows, else clp)")
           .def("auto"),
       ParamSpec::integer("max_pivots",
                          "pivots the dense master may take in one master solve before that GLMO solve is handed to "
                          "Clp (0: 50 (rows + columns) + 1000)")
           .at_least(0)
           .def(0)},
      scfw::Preference{.rank = 10, .reason = "a restricted master LP over the domain's LMO atoms"});
}

}  // namespace

SCFW_PLUGIN("column_generation", SCFW_PLUGIN_VERSION, register_components)
