// Shared by the benchmarks: command-line options, clocks, and the methods of the paper's
// experiments composed for a silent run.
//
//   long K = 1000; std::string glmo = "clp";
//   scfw::bench::Options opts;
//   opts.add("--iterations", K).add("--glmo", glmo);
//   if (!opts.parse(argc, argv)) return 2;     // "unknown option --x" on stderr
//
// Options take `--name value` pairs; a list option takes comma-separated values, and for a list
// of names `none` is the empty list.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scfw/core/problem.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/core/solver.hpp"
#include "scfw/error.hpp"

namespace scfw::bench {

/// "a,b,c" -> {"a", "b", "c"}.
inline std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  return out;
}

class Options {
 public:
  Options& add(const std::string& name, int& v) {
    return on(name, [&v](const std::string& s) { v = std::atoi(s.c_str()); });
  }
  Options& add(const std::string& name, long& v) {
    return on(name, [&v](const std::string& s) { v = std::atol(s.c_str()); });
  }
  Options& add(const std::string& name, unsigned& v) {
    return on(name, [&v](const std::string& s) { v = static_cast<unsigned>(std::atoi(s.c_str())); });
  }
  Options& add(const std::string& name, std::uint64_t& v) {
    return on(name, [&v](const std::string& s) { v = std::strtoull(s.c_str(), nullptr, 10); });
  }
  Options& add(const std::string& name, double& v) {
    return on(name, [&v](const std::string& s) { v = std::atof(s.c_str()); });
  }
  Options& add(const std::string& name, bool& v) {
    return on(name, [&v](const std::string& s) { v = std::atoi(s.c_str()) != 0; });
  }
  Options& add(const std::string& name, std::string& v) {
    return on(name, [&v](const std::string& s) { v = s; });
  }
  Options& add(const std::string& name, std::vector<long>& v) {
    return on(name, [&v](const std::string& s) {
      v.clear();
      for (const std::string& item : split(s)) v.push_back(std::atol(item.c_str()));
    });
  }
  Options& add(const std::string& name, std::vector<std::string>& v) {
    return on(name, [&v](const std::string& s) { v = s == "none" ? std::vector<std::string>{} : split(s); });
  }
  /// An option without a value (`--blocked`).
  Options& flag(const std::string& name, bool& v) {
    flags_[name] = &v;
    return *this;
  }

  /// Reads argv; false (with a line on stderr) at an unknown option or one without its value.
  bool parse(int argc, char** argv) const {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (const auto f = flags_.find(a); f != flags_.end()) {
        *f->second = true;
        continue;
      }
      const auto o = setters_.find(a);
      if (o == setters_.end() || i + 1 >= argc) {
        std::fprintf(stderr, o == setters_.end() ? "unknown option %s\n" : "option %s needs a value\n", a.c_str());
        return false;
      }
      o->second(argv[++i]);
    }
    return true;
  }

 private:
  Options& on(const std::string& name, std::function<void(const std::string&)> set) {
    setters_[name] = std::move(set);
    return *this;
  }
  std::map<std::string, std::function<void(const std::string&)>> setters_;
  std::map<std::string, bool*> flags_;
};

/// A bench's work after its options are read: `body(registry)` with the build's plugins loaded.
/// Its exit code, or, when it throws, one line "error: <what>" on stderr and exit 2 for bad input
/// (scfw::InputError), 1 for anything else.
template <class Body>
int with_plugins(Body body) {
  try {
    Registry registry;
    registry.load_path(Registry::search_path());
    return body(registry);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return dynamic_cast<const InputError*>(&e) ? 2 : 1;
  }
}

/// The median of `v` (the upper one for an even count; 0 for none).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// Per-solve times (any unit) summarized: median, 90th percentile, and pivots per solve.
struct SolveStats {
  double median = 0, p90 = 0, pivots = 0;
};
inline SolveStats solve_stats(std::vector<double> t, long pivots) {
  std::sort(t.begin(), t.end());
  SolveStats s;
  s.median = t[t.size() / 2];
  s.p90 = t[t.size() * 9 / 10];
  s.pivots = static_cast<double>(pivots) / static_cast<double>(t.size());
  return s;
}

/// What the GLMO benches compare on one LP: the registry of the build's plugins, the outer
/// function and the domain (blocks "/outer", "/domain" of `source`), and three solvers set up on
/// them: the GLMO `glmo` with its defaults, Clp warm, and Clp cold.
struct GlmoBench {
  GlmoBench(const std::string& source, const std::string& outer_name, const nlohmann::json& outer_block,
            const std::string& domain_name, const nlohmann::json& domain_block, const std::string& glmo, int n, int d) {
    registry.load_path(Registry::search_path());
    Context ctx;
    ctx.dim = d;
    ctx.outputs = n;
    domain = registry.make<Domain>(domain_name, domain_block, ctx, source, "/domain");
    outer = registry.make<OuterFunction>(outer_name, outer_block, ctx, source, "/outer");
    tested = registry.make<Glmo>(glmo, nlohmann::json::object(), ctx, source, "/glmo");
    clp_warm = registry.make<Glmo>("clp", nlohmann::json::object(), ctx, source, "/glmo");
    clp_cold = registry.make<Glmo>("clp", {{"warm_start", false}}, ctx, source, "/glmo");
    for (Glmo* g : {tested.get(), clp_warm.get(), clp_cold.get()}) g->setup(*outer, *domain, n, d);
  }
  Registry registry;  // first: the objects below come from its libraries
  std::unique_ptr<Domain> domain;
  std::unique_ptr<OuterFunction> outer;
  std::unique_ptr<Glmo> tested, clp_warm, clp_cold;
};

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The drift of the GLMO benches (bench_glmo, bench_task2_glmo): the LP's data move as under
/// momentum, V_{k+1} = (1 - b) V_k + b G_k and z likewise, for `steps` steps, with the noise of G
/// drawn from `seed`; b = K^{-1/2} (K = 10^4: b = 0.01).
struct Drift {
  int steps = 3000;
  double b = 0.01;
  unsigned seed = 1;
  /// --steps S, --b B, --seed N.
  void add_to(Options& opts) { opts.add("--steps", steps).add("--b", b).add("--seed", seed); }
};

/// A GLMO's inputs (z_k, V_k, y_k), k = 0 .. steps - 1, recorded once so that every solver is
/// timed on the same sequence.
struct Trajectory {
  std::vector<scfw::Jacobian> V;  // dense: solve() takes them without a copy
  std::vector<Vec> z, y;
};

/// The trajectory of `drift` from (z, V, y): each step moves z and V by `advance(z, V, y)`,
/// records the point, has `glmo` answer x there and moves y to (1 - b) y + b x.
template <class Advance>
Trajectory record_trajectory(Glmo& glmo, const Drift& drift, Vec z, Mat V, Vec y, Advance advance) {
  Trajectory t;
  t.V.reserve(static_cast<size_t>(drift.steps));
  Vec x(y.size());
  for (int k = 0; k < drift.steps; ++k) {
    advance(z, V, y);
    t.V.emplace_back(V);
    t.z.push_back(z);
    t.y.push_back(y);
    glmo.solve(z, t.V.back(), y, x);
    y = (1 - drift.b) * y + drift.b * x;
  }
  return t;
}

/// `g` solves step k of `t` into x; the microseconds it took are appended to `times`.
inline GlmoResult timed_solve(Glmo& g, const Trajectory& t, int k, Vec& x, std::vector<double>& times) {
  const size_t s = static_cast<size_t>(k);
  const auto t0 = Clock::now();
  const GlmoResult r = g.solve(t.z[s], t.V[s], t.y[s], x);
  times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  return r;
}

/// CPU seconds of this process (the machine is shared: wall time carries other people's load).
inline double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// The tracker and schedule blocks of a method of the paper's experiments at budget K:
/// vanilla and clipped (constant gamma = K^-3/4, beta = rho = 1), variant1 / variant2 (momentum
/// polyak / taylor, Theorem 1's nonconvex schedule), storm, and variant1_convex /
/// variant2_convex (Theorem 2's convex schedule).
inline nlohmann::json method_blocks(const std::string& m, long K, double threshold) {
  const double gamma = std::pow(static_cast<double>(K), -0.75);
  const nlohmann::json constant = {{"plugin", "constant"}, {"gamma", gamma}, {"beta", 1}, {"rho", 1}};
  const auto momentum = [](const char* value, const char* schedule) {
    return nlohmann::json{{"tracker", {{"plugin", "momentum"}, {"value", value}}},
                          {"schedule", {{"plugin", schedule}, {"r", 2}}}};
  };
  if (m == "vanilla") return {{"tracker", {{"plugin", "vanilla"}}}, {"schedule", constant}};
  if (m == "clipped") return {{"tracker", {{"plugin", "clipped"}, {"threshold", threshold}}}, {"schedule", constant}};
  if (m == "variant1") return momentum("polyak", "nonconvex");
  if (m == "variant2") return momentum("taylor", "nonconvex");
  if (m == "storm") return {{"tracker", {{"plugin", "storm"}}}, {"schedule", {{"plugin", "storm"}, {"r", 2}}}};
  if (m == "variant1_convex") return momentum("polyak", "convex");
  if (m == "variant2_convex") return momentum("taylor", "convex");
  throw std::runtime_error("unknown method " + m +
                           " (vanilla, clipped, variant1, variant2, storm, variant1_convex, variant2_convex)");
}

/// `method_blocks(m, K, threshold)` composed on `problem`, with the host's GLMO choice.
inline Method paper_method(const Registry& registry, Problem& problem, const std::string& m, long K,
                           double threshold) {
  const nlohmann::json blocks = method_blocks(m, K, threshold);
  return compose_method(registry, problem, {&blocks["tracker"], "/tracker"}, {&blocks["schedule"], "/schedule"},
                        {nullptr, "/glmo"});
}

/// K iterations from `seed` without any gap report, not even after the last iteration.
inline SolverOptions silent_run(long K, std::uint64_t seed) {
  SolverOptions o;
  o.iterations = K;
  o.seed = seed;
  o.report_every = 0;
  o.final_report = false;
  return o;
}

}  // namespace scfw::bench
