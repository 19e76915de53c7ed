// scfw compare: run_compare, the four stages in order (compare.hpp).
#include <system_error>

#include "scfw/compare/compare.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;

namespace scfw {

CompareResult run_compare(const Registry& registry, const Experiment& e, const CompareOptions& options) {
  const fs::path out_arg = options.out.empty() ? fs::path(e.out.empty() ? "compare-" + e.name : e.out) : options.out;
  std::error_code ec;
  fs::create_directories(out_arg / "traces", ec);
  if (ec) throw InputError(out_arg.string() + ": cannot create the output folder (" + ec.message() + ")");
  // Absolute, so that the gnuplot scripts work from any folder.
  const fs::path out = fs::absolute(out_arg, ec).lexically_normal();
  fs::create_directories(out / "plot", ec);

  CompareResult result;
  run_all(registry, e, out, options, result);
  summarize(e, result);
  write_tables(e, out, result);
  plot(e, out, options, result);
  return result;
}

}  // namespace scfw
