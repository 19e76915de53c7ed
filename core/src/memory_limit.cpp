#include "scfw/core/memory_limit.hpp"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

namespace scfw {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::uint64_t parse_size(const std::string& text, const std::string& what) {
  auto bad = [&]() -> std::uint64_t {
    throw InputError(what + ": expected a size such as 512MiB, 8GiB or 1e9, got '" + excerpt(text) + "'");
  };
  const char* begin = text.c_str();
  char* end = nullptr;
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || text[0] == '+' || text[0] == '-') return bad();
  const double number = std::strtod(begin, &end);
  if (end == begin) return bad();
  std::string unit(end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  unit = lower(unit);
  double scale = 0;
  struct Unit {
    const char* name;
    double scale;
  };
  static const Unit units[] = {{"", 1},
                               {"b", 1},
                               {"k", 1024.0},
                               {"kib", 1024.0},
                               {"kb", 1e3},
                               {"m", 1048576.0},
                               {"mib", 1048576.0},
                               {"mb", 1e6},
                               {"g", 1073741824.0},
                               {"gib", 1073741824.0},
                               {"gb", 1e9},
                               {"t", 1099511627776.0},
                               {"tib", 1099511627776.0},
                               {"tb", 1e12}};
  for (const Unit& u : units)
    if (unit == u.name) scale = u.scale;
  if (scale == 0 || !std::isfinite(number)) return bad();
  const double bytes = std::floor(number * scale);
  if (!(bytes >= 1)) return bad();
  if (bytes >= 18446744073709551616.0) return MemoryAccount::kNoLimit;  // 2^64 and up: no limit
  return static_cast<std::uint64_t>(bytes);
}

std::uint64_t machine_memory() {
  std::uint64_t bytes = 0;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) bytes = bytes_of({pages, page});
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  std::string max;
  if (cgroup >> max && max != "max") {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(max.c_str(), &end, 10);
    if (end && *end == '\0' && v > 0 && (bytes == 0 || v < bytes)) bytes = v;
  }
  return bytes;
}

MemoryAccount memory_account(std::optional<std::uint64_t> option, unsigned workers) {
  std::uint64_t limit = MemoryAccount::kNoLimit;
  std::string how = "set it with --memory-limit or SCFW_MEMORY_LIMIT";
  if (option) {
    limit = *option;
  } else if (const char* env = std::getenv("SCFW_MEMORY_LIMIT"); env && *env) {
    limit = parse_size(env, "SCFW_MEMORY_LIMIT");
  } else if (const std::uint64_t machine = machine_memory(); machine > 0) {
    limit = static_cast<std::uint64_t>(kDefaultMemoryFraction * static_cast<double>(machine));
    how = std::to_string(static_cast<int>(kDefaultMemoryFraction * 100 + 0.5)) + "% of the " +
          format_bytes(machine) + " of this machine; " + how;
  }
  if (workers > 1 && limit != MemoryAccount::kNoLimit) {
    how = "a worker's share of " + format_bytes(limit) + " over " + std::to_string(workers) + " workers (--jobs); " + how;
    limit /= workers;
  }
  return MemoryAccount(limit, how);
}

}  // namespace scfw
