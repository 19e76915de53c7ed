#include "scfw/registrar.hpp"
#include "scfw/roles.hpp"

#include <string>

namespace scfw {

Component::~Component() = default;
Sample::~Sample() = default;
Shard::~Shard() = default;
Registrar::~Registrar() = default;

void Oracle::exact(const Vec&, Vec*, Mat*) const {
  throw CapabilityError("this oracle has no exact evaluation (capability \"exact\")");
}

void Oracle::hessian_action(const Sample&, const Vec&, const Vec&, Mat&) const {
  throw CapabilityError("this oracle has no Hessian action (capability \"hessian_action\")");
}

void Oracle::evaluate_sparse(const Sample&, const Vec&, Vec*, double*) const {
  throw CapabilityError("this oracle declares no sparse Jacobian (capability \"sparse Jacobian\")");
}

void Oracle::exact_sparse(const Vec&, Vec*, double*) const {
  throw CapabilityError("this oracle has no sparse exact Jacobian (capabilities \"exact\" and \"sparse Jacobian\")");
}

std::vector<Expr> Domain::model(Model&) const {
  throw CapabilityError("this domain has no LP model; it is known only through its LMO");
}

void Domain::lmo_sparse(const SparseGradient& g, Atom& s) const {
  if (g.dim != dim() || g.index.size() != g.value.size())
    throw Error("lmo_sparse: the gradient has dimension " + std::to_string(g.dim) + " and " +
                std::to_string(g.index.size()) + " indices for " + std::to_string(g.value.size()) +
                " values; the domain has dimension " + std::to_string(dim()));
  Vec dense = Vec::Zero(g.dim);
  for (size_t k = 0; k < g.index.size(); ++k) dense[g.index[k]] = g.value[k];
  Vec x(g.dim);
  lmo(dense, x);
  s.set_dense(x);
}

namespace {
[[noreturn]] void no_state(const char* role) {
  throw CapabilityError(std::string("this ") + role + " cannot save its state (capability \"state\")");
}
}  // namespace

void Domain::save_state(StateWriter&) const { no_state("domain"); }
void Domain::load_state(StateReader&) { no_state("domain"); }
void Glmo::save_state(StateWriter&) const { no_state("GLMO"); }
void Glmo::load_state(StateReader&) { no_state("GLMO"); }
void Tracker::save_state(StateWriter&) const { no_state("tracker"); }
void Tracker::load_state(StateReader&) { no_state("tracker"); }

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

}  // namespace scfw
