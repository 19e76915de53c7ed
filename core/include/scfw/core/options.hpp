// scfw core: the settings of one run, apart from the problem and the method.
//
// A problem file gives them at its top level ("seed", "iterations"), in its "report" block
// ("every", "trace") and in its "stop" block ("gap_tolerance", "time_limit"); the command line
// overrides them (Overrides, problem.hpp). They are read once, by read_options(), and handed to
// Solver as they are; Solver checks them with IsValidFor().
#pragma once

#include <cstdint>
#include <string>

namespace scfw {

class Oracle;

struct SolverOptions {
  long iterations = 1000;       ///< K
  std::uint64_t seed = 1;       ///< seeds the one Rng of the run
  long report_every = 0;        ///< exact gap every this many iterations (0: only at the end)
  std::string trace;            ///< CSV path of the gap reports ("" = none), relative to the current directory
  double gap_tolerance = 0;     ///< stop when a reported gap is <= this (0: never)
  double time_limit = 0;        ///< stop after this many seconds (0: none)
  bool final_report = true;     ///< compute the exact gap after the last iteration
  /// Keep y as factors when the oracle sees matrix entries (factors.hpp). `scfw compare` turns
  /// it off unless the runs' solutions are kept: the iterates do not depend on it.
  bool factors = true;

  /// True when every field is in range; otherwise false, with `*why` (when given) one line
  /// naming the field and what it expects, e.g. "iterations: expected an integer >= 1, got 0".
  bool IsValid(std::string* why) const;
  /// IsValid, then what a run on `oracle` needs of a gap tolerance: an exact evaluation (else no
  /// gap is ever computed; not checked when `oracle` is null) and gap reports before the last
  /// iteration. The Solver's one check (the composer says the same at the file's pointers).
  bool IsValidFor(const Oracle* oracle, std::string* why) const;
};

}  // namespace scfw
