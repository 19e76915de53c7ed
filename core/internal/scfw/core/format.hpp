// scfw core: how the host prints a number. A number with N significant digits (messages, traces,
// solution files) is scfw::format_number(v, N) of scfw/helpers.hpp, the plugins' formatter too;
// a report's fixed or exponent layout ("%.3e", "%10.4f") is format_as().
#pragma once

#include <string>

#include "scfw/helpers.hpp"

namespace scfw {

/// `v` as printf writes it with one conversion for a double, e.g. format_as("%.3e", 1e-7) is
/// "1.000e-07".
std::string format_as(const char* conversion, double v);

}  // namespace scfw
