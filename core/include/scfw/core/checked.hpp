// scfw core: the host's wrappers around plugin objects, as pagmo2 wraps a user problem. Each
// wrapper checks dimensions at every call boundary, counts the calls, and turns an exception
// that is not an scfw error into an scfw::Error that names the plugin.
#pragma once

#include <memory>
#include <string>

#include "scfw/roles.hpp"

namespace scfw {

/// Calls made through the wrappers during a run.
struct CallCounters {
  long draws = 0;          ///< Oracle::draw
  long values = 0;         ///< Oracle::evaluate with f requested
  long jacobians = 0;      ///< Oracle::evaluate with J requested
  long exact = 0;          ///< Oracle::exact
  long hessian = 0;        ///< Oracle::hessian_action
  long glmo_solves = 0;    ///< Glmo::solve (algorithm and gap instances together)
  long outer_values = 0;   ///< OuterFunction::value
  double oracle_seconds = 0;  ///< wall time inside Oracle::draw / evaluate / hessian_action
};

std::unique_ptr<Oracle> wrap_oracle(std::unique_ptr<Oracle> inner, std::string plugin,
                                    std::shared_ptr<CallCounters> counters);
std::unique_ptr<OuterFunction> wrap_outer(std::unique_ptr<OuterFunction> inner, std::string plugin,
                                          int n, int d, std::shared_ptr<CallCounters> counters);
std::unique_ptr<Domain> wrap_domain(std::unique_ptr<Domain> inner, std::string plugin);
std::unique_ptr<Glmo> wrap_glmo(std::unique_ptr<Glmo> inner, std::string plugin,
                                std::shared_ptr<CallCounters> counters);
std::unique_ptr<Tracker> wrap_tracker(std::unique_ptr<Tracker> inner, std::string plugin);
std::unique_ptr<Schedule> wrap_schedule(std::unique_ptr<Schedule> inner, std::string plugin);

}  // namespace scfw
