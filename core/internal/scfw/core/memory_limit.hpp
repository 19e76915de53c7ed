// scfw core: the memory limit of a run (docs/memory.md).
//
// The limit is, first found: --memory-limit, the environment variable SCFW_MEMORY_LIMIT, or
// kDefaultMemoryFraction of the machine's memory (physical memory, or the cgroup's memory.max
// when that is smaller). The composer charges every run's large buffers to a MemoryAccount
// (sdk: scfw/memory.hpp) with that limit, before allocating them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "scfw/memory.hpp"

namespace scfw {

/// The default limit is this fraction of the machine's memory.
inline constexpr double kDefaultMemoryFraction = 0.8;

/// "512MiB", "8GiB", "1.5 GiB", "1e9", "2G": a number of bytes, optionally followed by a unit
/// B, KiB, MiB, GiB, TiB (powers of 1024; K, M, G, T alike) or KB, MB, GB, TB (powers of 1000),
/// case-insensitive. Anything else, or a size below 1 byte: InputError "<what>: expected a size
/// such as 512MiB, 8GiB or 1e9, got '<text>'".
std::uint64_t parse_size(const std::string& text, const std::string& what);

/// The machine's memory in bytes: physical memory, or the cgroup (v2) memory.max when smaller.
/// 0 when unknown.
std::uint64_t machine_memory();

/// The account a composed run is charged to. `option`: --memory-limit when given. The limit is
/// divided by `workers` (scfw compare's --jobs: each worker composes its own problem).
MemoryAccount memory_account(std::optional<std::uint64_t> option = std::nullopt, unsigned workers = 1);

}  // namespace scfw
