// scfw SDK: a declared parameter bound as a reader writes it, in messages and in `scfw describe`.
#pragma once

#include <string>

namespace scfw {

/// The shorter of the plain form (format_number, helpers.hpp) and the shortest exponent form that
/// reads back as the same double: 1e10 prints as "1e10" (not "10000000000"), 1e-6 as "1e-6",
/// while 100, 0.5 and 2147483647 stay as they are.
std::string format_bound(double v);

}  // namespace scfw
