// scfw compare: run_compare, the four stages in order (compare.hpp).
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <system_error>

#include <unistd.h>

#include "scfw/compare/compare.hpp"
#include "scfw/core/distributed.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;

namespace scfw {

void check_output_folder(const fs::path& out) {
  const auto refuse = [&](const std::string& why) {
    throw InputError(out.string() + ": cannot create the output folder (" + why + ")");
  };
  std::error_code ec;
  const fs::path target = fs::absolute(out.empty() ? fs::path(".") : out, ec).lexically_normal();
  if (ec) refuse(ec.message());
  // The folders compare would write into: out and out/traces. The nearest one that exists must
  // be a folder (a file in the way is refused by name) in which a folder can be made.
  fs::path existing = target / "traces";
  while (!fs::exists(fs::status(existing, ec))) {
    if (existing == existing.root_path() || !existing.has_parent_path()) refuse("no part of the path exists");
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, ec)) refuse(existing.string() + " is not a folder");
  // Made and removed again: nothing is left behind, and a read-only file system or a folder
  // without write permission is refused now rather than after the runs.
  std::string probe = (existing / ".scfw-compare-check-XXXXXX").string();
  if (::mkdtemp(probe.data()) == nullptr) refuse(std::strerror(errno));
  ::rmdir(probe.c_str());
}

CompareResult run_compare(const Registry& registry, const Experiment& e, const CompareOptions& options) {
  const fs::path out_arg = options.out.empty() ? fs::path(e.out.empty() ? "compare-" + e.name : e.out) : options.out;
  // Under mpirun rank 0 alone makes the folder and writes the files (run.cpp); a failure there is
  // every rank's error.
  const Ranks& mpi = ranks();
  std::exception_ptr error;
  fs::path out;
  if (mpi.root()) {
    try {
      std::error_code ec;
      fs::create_directories(out_arg / "traces", ec);
      if (ec) throw InputError(out_arg.string() + ": cannot create the output folder (" + ec.message() + ")");
      // Absolute, so that the gnuplot scripts work from any folder.
      out = fs::absolute(out_arg, ec).lexically_normal();
      fs::create_directories(out / "plot", ec);
    } catch (...) {
      error = std::current_exception();
    }
  }
  mpi.agree(error);
  out = mpi.broadcast(out.string());

  CompareResult result;
  run_all(registry, e, out, options, result);
  if (!mpi.root()) return result;  // rank 0 has every run's results
  summarize(e, result);
  write_tables(e, out, result);
  plot(e, out, options, result);
  return result;
}

}  // namespace scfw
