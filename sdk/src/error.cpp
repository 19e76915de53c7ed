#include "scfw/error.hpp"

namespace scfw {

Error::Error(const std::string& what) : std::runtime_error(what) {}
Error::~Error() = default;
InputError::InputError(const std::string& what) : Error(what) {}
InputError::~InputError() = default;
CapabilityError::CapabilityError(const std::string& what) : InputError(what) {}
CapabilityError::~CapabilityError() = default;

}  // namespace scfw
