// scfw SDK: memory known before it is spent.
//
// The host keeps one account per composed problem and method, with a limit (--memory-limit,
// SCFW_MEMORY_LIMIT, or a fraction of physical memory; docs/memory.md). A factory charges what it
// is about to allocate through its Context, BEFORE the allocation:
//
//   Oracle(const scfw::Params& p, const scfw::Context& ctx) {
//     ctx.memory.reserve(scfw::bytes_of({rows, cols, sizeof(double)}),
//                        "the data (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
//     data_.resize(rows, cols);
//   }
//
// A charge over the limit throws MemoryLimitError; the host reports it as one line at the
// block's JSON pointer ("problem.json: /oracle: needs 16.0 GiB for V (2 x 1073741824); the memory
// limit is ...") and exits with 2, before anything of that size was allocated. A plugin that
// charges nothing still works: only the host's own charges then count.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "scfw/error.hpp"

namespace scfw {

/// The product of the factors, saturated at UINT64_MAX instead of wrapping around (n * d * 8
/// overflows 64 bits for hostile sizes). Negative factors count as 0.
std::uint64_t bytes_of(std::initializer_list<std::int64_t> factors);
/// a + b, saturated at UINT64_MAX.
std::uint64_t add_bytes(std::uint64_t a, std::uint64_t b);
/// "512 B", "1.5 KiB", "16.0 GiB": one decimal from KiB up (binary units).
std::string format_bytes(std::uint64_t bytes);

/// A charge over the memory limit. The message has no location: the host adds the file and
/// JSON pointer of the block whose factory charged it.
class MemoryLimitError : public InputError {
 public:
  explicit MemoryLimitError(const std::string& what);
  ~MemoryLimitError() override;
};

/// What a composed run will hold, charged before it is allocated, against a limit.
class MemoryAccount {
 public:
  static constexpr std::uint64_t kNoLimit = UINT64_MAX;
  struct Charge {
    std::string what;
    std::uint64_t bytes = 0;
  };

  /// `how` follows the limit in messages: "set it with --memory-limit or SCFW_MEMORY_LIMIT".
  explicit MemoryAccount(std::uint64_t limit = kNoLimit, std::string how = {});

  /// Adds `bytes` for `what` ("V (10 x 1000)"). Over the limit: MemoryLimitError "needs 16.0 GiB
  /// for V (2 x 1073741824); the memory limit is 4.0 GiB (<how>)"; when the charge alone would
  /// fit, the message adds what was counted before ("... on top of 3.5 GiB counted before (5.5
  /// GiB)"). The account is left as it was.
  void reserve(std::uint64_t bytes, const std::string& what);

  std::uint64_t held() const { return held_; }
  std::uint64_t limit() const { return limit_; }
  const std::string& how() const { return how_; }
  const std::vector<Charge>& charges() const { return charges_; }

 private:
  std::uint64_t limit_;
  std::uint64_t held_ = 0;
  std::string how_;
  std::vector<Charge> charges_;
};

/// A factory's handle on the host's account (Context::memory). Without an account (a Context
/// made by hand, e.g. in a plugin's own tests) reserve() checks nothing and counts nothing.
class Memory {
 public:
  Memory() = default;
  explicit Memory(MemoryAccount* account) : account_(account) {}
  void reserve(std::uint64_t bytes, const std::string& what) const {
    if (account_) account_->reserve(bytes, what);
  }
  MemoryAccount* account() const { return account_; }

 private:
  MemoryAccount* account_ = nullptr;
};

}  // namespace scfw
