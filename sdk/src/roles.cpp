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
