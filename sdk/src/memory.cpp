#include "scfw/memory.hpp"

#include <cstdio>

namespace scfw {

std::uint64_t bytes_of(std::initializer_list<std::int64_t> factors) {
  std::uint64_t p = 1;
  for (const std::int64_t f : factors) {
    if (f <= 0) return 0;
    const auto u = static_cast<std::uint64_t>(f);
    if (p > UINT64_MAX / u) return UINT64_MAX;
    p *= u;
  }
  return p;
}

std::uint64_t add_bytes(std::uint64_t a, std::uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

std::string format_bytes(std::uint64_t bytes) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes) / 1024.0;
  int u = 0;
  // Round first so that 1023.96 KiB prints as "1.0 MiB", not "1024.0 KiB".
  while (u < 5 && v >= 1023.95) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

MemoryLimitError::MemoryLimitError(const std::string& what) : InputError(what) {}
MemoryLimitError::~MemoryLimitError() = default;

MemoryAccount::MemoryAccount(std::uint64_t limit, std::string how) : limit_(limit), how_(std::move(how)) {}

void MemoryAccount::reserve(std::uint64_t bytes, const std::string& what) {
  const std::uint64_t total = add_bytes(held_, bytes);
  if (total > limit_) {
    std::string msg = "needs " + format_bytes(bytes) + " for " + what;
    // What was counted before matters only when this charge alone would fit.
    if (bytes <= limit_) msg += " on top of " + format_bytes(held_) + " counted before (" + format_bytes(total) + ")";
    msg += "; the memory limit is " + format_bytes(limit_);
    if (!how_.empty()) msg += " (" + how_ + ")";
    throw MemoryLimitError(msg);
  }
  held_ = total;
  charges_.push_back({what, bytes});
}

}  // namespace scfw
