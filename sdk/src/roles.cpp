#include "scfw/registrar.hpp"
#include "scfw/roles.hpp"

#include "scfw/memory.hpp"

#include <string>

namespace scfw {

Component::~Component() = default;
Sample::~Sample() = default;
Shard::~Shard() = default;
Registrar::~Registrar() = default;

Capabilities Component::capabilities() const { return {}; }

const char* to_string(Capability c) {
  switch (c) {
    case Capability::Exact: return "exact";
    case Capability::HessianAction: return "hessian_action";
    case Capability::Sharded: return "sharded";
    case Capability::SparseJacobian: return "sparse_jacobian";
    case Capability::LpModel: return "lp_model";
    case Capability::CompactAtoms: return "compact_atoms";
    case Capability::SparseV: return "sparse_v";
    case Capability::SavedState: return "saved_state";
    case Capability::UnsavedState: return "unsaved_state";
  }
  return "?";
}

std::string to_string(Capabilities c) {
  std::string out;
  for (std::uint32_t bit = 1; bit != 0 && bit <= c.bits(); bit <<= 1)
    if (c.bits() & bit) out += (out.empty() ? "" : ", ") + std::string(to_string(static_cast<Capability>(bit)));
  return out;
}

void Oracle::exact(const Vec&, Vec*, Jacobian*) const {
  throw CapabilityError("this oracle has no exact evaluation (capability \"exact\")");
}

void Oracle::hessian_action(const Sample&, const Vec&, const Vec&, Mat&) const {
  throw CapabilityError("this oracle has no Hessian action (capability \"hessian_action\")");
}

std::shared_ptr<const JacobianPattern> Oracle::jacobian_pattern() const {
  throw CapabilityError("this oracle declares no sparse Jacobian (capability \"sparse_jacobian\")");
}

std::vector<Expr> Domain::model(Model&) const {
  throw CapabilityError("this domain has no LP model; it is known only through its LMO (capability \"lp_model\")");
}

namespace {
[[noreturn]] void no_state() {
  throw CapabilityError("this component cannot save its state (capability \"saved_state\")");
}
}  // namespace

void Stateful::save_state(StateWriter&) const { no_state(); }
void Stateful::load_state(StateReader&) { no_state(); }

bool Glmo::supports(const OuterFunction&, const Domain&, int, int, std::string*) const { return true; }

const char* to_string(Kind k) {
  switch (k) {
    case Kind::Oracle: return "oracle";
    case Kind::Outer: return "outer";
    case Kind::Domain: return "domain";
    case Kind::Glmo: return "glmo";
    case Kind::Tracker: return "tracker";
    case Kind::Schedule: return "schedule";
  }
  return "?";
}

std::uint64_t glmo_lp_bytes(const Domain& domain, int n, std::int64_t* rows) {
  Model m;
  const std::vector<Expr> x = domain.model(m);
  std::int64_t nnz = 0;
  for (const Row& r : m.rows()) nnz += static_cast<std::int64_t>(r.expr.terms().size());
  for (const Expr& e : x) nnz += static_cast<std::int64_t>(e.terms().size());
  const std::int64_t vars = m.num_vars();
  const std::int64_t cols = vars + 2 * std::int64_t{n};                                      // and u
  const std::int64_t all_rows = static_cast<std::int64_t>(m.rows().size()) + 2 * std::int64_t{n};  // the outer's
  if (rows) *rows = all_rows;
  std::uint64_t bytes = bytes_of({n, vars, 8});                    // W = V A
  bytes = add_bytes(bytes, bytes_of({n * vars + nnz + cols, 16}));  // the LP by columns: index + value
  return add_bytes(bytes, bytes_of({cols + all_rows, 64}));        // bounds, costs, solutions, statuses
}

}  // namespace scfw
