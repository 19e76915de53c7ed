// The memory account (sdk scfw/memory.hpp), the limit (core memory_limit.hpp) and the charges the
// composer and the shipped plugins make before allocating (docs/memory.md).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "scfw/core/memory_limit.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/error.hpp"
#include "scfw/memory.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using scfw::MemoryAccount;

namespace {

const scfw::Registry& plugins() {
  static scfw::Registry* r = [] {
    auto* reg = new scfw::Registry();
    for (const char* name : {"least_squares_tasks", "max", "l1_ball", "clp", "momentum", "storm", "vanilla",
                             "nonconvex", "nuclear_ball", "matrix_completion", "column_generation"})
      reg->load_library(fs::path(SCFW_PLUGIN_DIR) / ("libscfw_" + std::string(name) + ".so"));
    return reg;
  }();
  return *r;
}

std::string error_of(const auto& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

json task1(int tasks, int dim, int rows, int batch, const char* tracker) {
  return json{{"iterations", 5},
              {"oracle",
               {{"plugin", "least_squares_tasks"},
                {"batch", batch},
                {"synthetic", {{"tasks", tasks}, {"dim", dim}, {"rows_per_task", rows}}}}},
              {"outer", {{"plugin", "max"}}},
              {"domain", {{"plugin", "l1_ball"}, {"radius", 2}}},
              {"glmo", {{"plugin", "clp"}}},
              {"tracker", {{"plugin", tracker}}}};
}

std::uint64_t charged(const MemoryAccount& a, const std::string& prefix) {
  for (const auto& c : a.charges())
    if (c.what.rfind(prefix, 0) == 0) return c.bytes;
  return 0;
}

}  // namespace

TEST_CASE("bytes_of saturates instead of wrapping around; add_bytes too") {
  CHECK(scfw::bytes_of({3, 5, 7}) == 105u);
  CHECK(scfw::bytes_of({10, 1073741824, 8}) == 85899345920u);
  CHECK(scfw::bytes_of({std::int64_t{1} << 62, 4}) == UINT64_MAX);  // 2^64 wraps to 0 in plain arithmetic
  CHECK(scfw::bytes_of({2147483647, 2147483647, 2147483647}) == UINT64_MAX);
  CHECK(scfw::bytes_of({5, -1, 8}) == 0u);
  CHECK(scfw::add_bytes(UINT64_MAX - 1, 2) == UINT64_MAX);
  CHECK(scfw::add_bytes(40, 2) == 42u);
}

TEST_CASE("format_bytes: bytes below 1 KiB, then one decimal in binary units") {
  CHECK(scfw::format_bytes(0) == "0 B");
  CHECK(scfw::format_bytes(1023) == "1023 B");
  CHECK(scfw::format_bytes(1024) == "1.0 KiB");
  CHECK(scfw::format_bytes(1536) == "1.5 KiB");
  CHECK(scfw::format_bytes(1048575) == "1.0 MiB");  // 1023.999 KiB rounds up to the next unit
  CHECK(scfw::format_bytes(17179869184) == "16.0 GiB");
  CHECK(scfw::format_bytes(24000000000) == "22.4 GiB");
  CHECK(scfw::format_bytes(UINT64_MAX) == "16.0 EiB");
}

TEST_CASE("an account refuses a charge over its limit with the figure, and keeps what it held") {
  MemoryAccount a(4294967296, "set it with --memory-limit or SCFW_MEMORY_LIMIT");
  a.reserve(1000, "the data");
  CHECK(error_of([&] { a.reserve(17179869184, "V (2 x 1073741824)"); }) ==
        "needs 16.0 GiB for V (2 x 1073741824); the memory limit is 4.0 GiB (set it with --memory-limit or "
        "SCFW_MEMORY_LIMIT)");
  CHECK(error_of([&] { a.reserve(4294967000, "a sample"); }) ==
        "needs 4.0 GiB for a sample on top of 1000 B counted before (4.0 GiB); the memory limit is 4.0 GiB (set it "
        "with --memory-limit or SCFW_MEMORY_LIMIT)");
  CHECK(a.held() == 1000u);
  REQUIRE(a.charges().size() == 1);
  a.reserve(4294966296, "the rest");  // exactly the limit is allowed
  CHECK(a.held() == 4294967296u);
  CHECK_THROWS_AS(a.reserve(1, "one byte"), scfw::MemoryLimitError);
  // A handle without an account (a Context made by hand) counts nothing.
  scfw::Memory none;
  none.reserve(UINT64_MAX, "everything");
}

TEST_CASE("parse_size: bytes, binary and decimal units; anything else is one line") {
  CHECK(scfw::parse_size("512MiB", "--memory-limit") == 536870912u);
  CHECK(scfw::parse_size("8GiB", "--memory-limit") == 8589934592u);
  CHECK(scfw::parse_size("1e9", "--memory-limit") == 1000000000u);
  CHECK(scfw::parse_size("1.5 KiB", "--memory-limit") == 1536u);
  CHECK(scfw::parse_size("2g", "--memory-limit") == 2147483648u);
  CHECK(scfw::parse_size("10MB", "--memory-limit") == 10000000u);
  CHECK(scfw::parse_size("100", "--memory-limit") == 100u);
  CHECK(scfw::parse_size("1e30", "--memory-limit") == MemoryAccount::kNoLimit);
  for (const char* bad : {"abc", "0", "-1", "5 XB", "", "0.5", "nan", "inf", " 1GiB", "1GiB "})
    CHECK(error_of([&] { scfw::parse_size(bad, "--memory-limit"); }) ==
          "--memory-limit: expected a size such as 512MiB, 8GiB or 1e9, got '" + std::string(bad) + "'");
  // The text as the message shows it: cut to 40 bytes, control characters as '?'.
  CHECK(error_of([&] { scfw::parse_size("1\x7fGiB\n" + std::string(50, 'x'), "SCFW_MEMORY_LIMIT"); }) ==
        "SCFW_MEMORY_LIMIT: expected a size such as 512MiB, 8GiB or 1e9, got '1?GiB?" + std::string(34, 'x') +
            "... (56 bytes)'");
}

TEST_CASE("memory_account: the option, SCFW_MEMORY_LIMIT, the default; shared by workers") {
  ::unsetenv("SCFW_MEMORY_LIMIT");
  const MemoryAccount opt = scfw::memory_account(8589934592u);
  CHECK(opt.limit() == 8589934592u);
  CHECK(opt.how() == "set it with --memory-limit or SCFW_MEMORY_LIMIT");
  const MemoryAccount shared = scfw::memory_account(8589934592u, 4);
  CHECK(shared.limit() == 2147483648u);
  CHECK(shared.how() ==
        "a worker's share of 8.0 GiB over 4 workers (--jobs); set it with --memory-limit or SCFW_MEMORY_LIMIT");
  const std::uint64_t machine = scfw::machine_memory();
  REQUIRE(machine > 0);
  const MemoryAccount def = scfw::memory_account();
  CHECK(def.limit() == static_cast<std::uint64_t>(0.8 * static_cast<double>(machine)));
  CHECK(def.how() == "80% of the " + scfw::format_bytes(machine) +
                         " of this machine; set it with --memory-limit or SCFW_MEMORY_LIMIT");
  ::setenv("SCFW_MEMORY_LIMIT", "3GiB", 1);
  CHECK(scfw::memory_account().limit() == 3221225472u);
  ::setenv("SCFW_MEMORY_LIMIT", "lots", 1);
  CHECK(error_of([] { scfw::memory_account(); }) ==
        "SCFW_MEMORY_LIMIT: expected a size such as 512MiB, 8GiB or 1e9, got 'lots'");
  ::unsetenv("SCFW_MEMORY_LIMIT");
}

TEST_CASE("the composer charges V, the iterates, the oracle's data and sample, the tracker and the GLMO") {
  const int m = 4, d = 20, rows = 40, batch = 3;
  scfw::Overrides o;
  o.memory = MemoryAccount(1u << 30);
  const scfw::Composition c = scfw::compose(plugins(), task1(m, d, rows, batch, "storm"), "p.json", ".", o);
  const MemoryAccount& a = c.method.memory;
  CHECK(charged(a, "V (4 x 20)") == 4u * 20 * 8);
  CHECK(charged(a, "the Jacobian of the gap reports") == 4u * 20 * 8);
  CHECK(charged(a, "the iterates") == 4u * 20 * 8);
  CHECK(charged(a, "z and the gap reports' f") == 2u * 4 * 8);
  // Dense rows: column index (4 bytes) and value (8) per entry; x*, indices, a (24 bytes per
  // coordinate); labels and row pointers (16 bytes per row).
  CHECK(charged(a, "the synthetic data") == 4u * 40 * 20 * 12 + 20 * 24 + 4 * 40 * 16);
  CHECK(charged(a, "a sample of batch rows per task (tasks x batch = 4 x 3)") == 4u * 3 * 8);
  CHECK(charged(a, "the tracker's two Jacobians") == 2u * 4 * 20 * 8 + (4 + 20) * 8);
  // The GLMO and its twin for the gap reports, each charged in its setup(): at least W = V A
  // (l1 ball: 2d variables).
  std::vector<std::uint64_t> glmo;
  for (const auto& ch : a.charges())
    if (ch.what.rfind("clp's LP (", 0) == 0) glmo.push_back(ch.bytes);
  REQUIRE(glmo.size() == 2);
  CHECK(glmo[0] == glmo[1]);
  CHECK(glmo[0] > 4u * 2 * 20 * 8);
  std::uint64_t sum = 0;
  for (const auto& ch : a.charges()) sum += ch.bytes;
  CHECK(a.held() == sum);
  // The problem's account holds the problem's charges only; a method adds to a copy.
  CHECK(c.problem.memory.held() < a.held());
  CHECK(charged(c.problem.memory, "the tracker") == 0u);
}

TEST_CASE("momentum charges its Jacobian and z's update; the d-vector y - y_prev only for taylor") {
  const int m = 4, d = 20, rows = 40, batch = 3;
  for (const char* value : {"polyak", "taylor"}) {
    scfw::Overrides o;
    o.memory = MemoryAccount(1u << 30);
    json p = task1(m, d, rows, batch, "momentum");
    p["tracker"]["value"] = value;
    const scfw::Composition c = scfw::compose(plugins(), p, "p.json", ".", o);
    CAPTURE(value);
    const std::uint64_t vectors = std::string(value) == "taylor" ? m + d : m;
    CHECK(charged(c.method.memory, "the tracker's Jacobian (4 x 20)") == 4u * 20 * 8 + vectors * 8);
  }
}

TEST_CASE("a charge over the limit is one line at the block that charged it, before allocating") {
  scfw::Overrides o;
  o.memory = MemoryAccount(1u << 20, "set it with --memory-limit or SCFW_MEMORY_LIMIT");
  // 1000 rows of 1000 coordinates: 12 bytes an entry, 12.04e6 bytes with x* and the labels.
  CHECK(error_of([&] { scfw::compose(plugins(), task1(1, 1000, 1000, 1, "momentum"), "p.json", ".", o); }) ==
        "p.json: /oracle: needs 11.5 MiB for the synthetic data (tasks x rows_per_task x dim = 1 x 1000 x 1000); the "
        "memory limit is 1.0 MiB (set it with --memory-limit or SCFW_MEMORY_LIMIT)");
  // The tracker's copies at /tracker: 100 x 1000 doubles twice for storm (1.5 MiB) over 4 MiB
  // once the problem holds its data (1.2 MiB), V and the gap Jacobian (0.8 MB each).
  o.memory = MemoryAccount(4u << 20, "set it with --memory-limit or SCFW_MEMORY_LIMIT");
  const std::string e = error_of([&] { scfw::compose(plugins(), task1(100, 1000, 1, 1, "storm"), "p.json", ".", o); });
  CHECK(e.rfind("p.json: /tracker: needs 1.5 MiB for the tracker's two Jacobians (2 x 100 x 1000) on top of ", 0) == 0);
}
