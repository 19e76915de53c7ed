#include "scfw/core/format.hpp"

#include <cstdio>

namespace scfw {

std::string format_as(const char* conversion, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, conversion, v);
  return buf;
}

}  // namespace scfw
