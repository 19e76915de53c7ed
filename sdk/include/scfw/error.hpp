// scfw SDK: the one error family. Defined out of line in libscfw_sdk so that the type identity
// (catch clauses, dynamic_cast) is one thing in the host and in every plugin.
#pragma once

#include <stdexcept>
#include <string>

namespace scfw {

/// A failure of the run itself (solver breakdown, numerical trouble). The host exits with 1.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what);
  ~Error() override;
};

/// Bad input: a problem file, a parameter, a data file. The message is one line that says where
/// (file, JSON pointer, line) and what. The host exits with 2.
class InputError : public Error {
 public:
  explicit InputError(const std::string& what);
  ~InputError() override;
};

/// A capability asked for by name that a component does not have (e.g. a tracker that needs the
/// Hessian action of an oracle that has none). Raised at composition time: exit 2.
class CapabilityError : public InputError {
 public:
  explicit CapabilityError(const std::string& what);
  ~CapabilityError() override;
};

}  // namespace scfw
