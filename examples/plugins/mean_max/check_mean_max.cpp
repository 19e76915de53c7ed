// The SDK's conformance check on mean_max, the way a plugin author tests an outer function:
// for random (u, x), the minimum of mean_max's LP model — solved by the `clp` GLMO over the
// single point {x} (a `box` with lower == upper) — must equal value(u, x), and the claimed
// Lipschitz constant, monotonicity and subhomogeneity must hold.
//
//   check_mean_max <folder of libscfw_mean_max.so>
//
// The GLMO and the box come from the installed scfw plugins (SCFW_PLUGIN_DIR, set by
// find_package(scfw)), loaded through libscfw_core. Exit code 0 when every check passes.
#include <scfw/conformance.hpp>
#include <scfw/core/problem.hpp>
#include <scfw/core/registry.hpp>

#include <iostream>
#include <nlohmann/json.hpp>

namespace {

// Built by the registry: the block is validated against the declarations and completed with the
// defaults, as a problem file's block is.
template <class Role>
std::unique_ptr<Role> make(const scfw::Registry& registry, const std::string& name, const nlohmann::json& params,
                           int n, int d) {
  return registry.make<Role>(name, params, scfw::Context{d, n, "."}, "check_mean_max",
                             std::string("/") + scfw::to_string(scfw::kind_of<Role>()));
}

}  // namespace

int main(int argc, char** argv) try {
  std::vector<std::filesystem::path> extra;
  for (int i = 1; i < argc; ++i) extra.emplace_back(argv[i]);
  extra.emplace_back(SCFW_PLUGIN_DIR);
  scfw::Registry registry;
  registry.load_path(scfw::Registry::search_path(extra));

  bool ok = true;
  for (const int n : {1, 2, 5}) {
    const int d = 3;
    for (const double lambda : {0.0, 0.3, 1.0}) {
      auto outer = make<scfw::OuterFunction>(registry, "mean_max", {{"lambda", lambda}}, n, d);
      auto glmo = make<scfw::Glmo>(registry, "clp", nlohmann::json::object(), n, d);
      auto singleton = [&](const scfw::Vec& x) {
        const std::vector<double> at(x.data(), x.data() + x.size());
        return make<scfw::Domain>(registry, "box", {{"lower", at}, {"upper", at}}, n, d);
      };
      const auto report = scfw::conformance::check_outer_model(*outer, n, d, *glmo, singleton);
      std::cout << "lambda = " << lambda << ": " << report.message << '\n';
      ok = ok && report.ok;
    }
  }
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::cerr << "error: " << e.what() << '\n';
  return 2;
}
