// scfw compare: run_compare, the four stages in order (compare.hpp).
#include <exception>
#include <system_error>

#include "scfw/compare/compare.hpp"
#include "scfw/core/distributed.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;

namespace scfw {

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
