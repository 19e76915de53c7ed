// scfw core: `scfw validate --check` (see plugin_check.hpp).
#include "scfw/core/plugin_check.hpp"

#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "scfw/conformance.hpp"
#include "scfw/core/checkpoint.hpp"
#include "scfw/core/solver.hpp"
#include "scfw/helpers.hpp"

namespace scfw {

namespace {

using Verdict = PluginCheck::Verdict;

std::string role_plugin(const PluginNames& names, const std::string& role) {
  for (const auto& [r, n] : names)
    if (r == role) return n;
  return "?";
}

void add_report(std::vector<PluginCheck>& out, const std::string& role, const std::string& plugin,
                const conformance::Report& rep) {
  for (const conformance::Check& c : rep.checks) {
    PluginCheck p;
    p.role = role;
    p.plugin = plugin;
    p.name = c.name;
    p.verdict = c.skipped ? Verdict::Skipped : (c.ok ? Verdict::Pass : Verdict::Fail);
    p.discrepancy = c.discrepancy;
    p.allowed = c.allowed;
    p.detail = c.detail;
    out.push_back(std::move(p));
  }
}

PluginCheck failed(const std::string& role, const std::string& plugin, const std::string& name, const std::string& what) {
  PluginCheck p;
  p.role = role;
  p.plugin = plugin;
  p.name = name;
  p.verdict = Verdict::Fail;
  p.detail = what;
  return p;
}

PluginCheck skipped(const std::string& role, const std::string& plugin, const std::string& name, const std::string& why) {
  PluginCheck p = failed(role, plugin, name, why);
  p.verdict = Verdict::Skipped;
  return p;
}

/// Captures the loop state once, after iteration `at`.
class CaptureAt final : public StateHook {
 public:
  CaptureAt(Composition& c, long at) : c_(c), at_(at) {}
  bool due(long done, double, bool) override { return done == at_; }
  void save(const LoopState& state) override { ck = capture_checkpoint(c_, state); }
  Checkpoint ck;

 private:
  Composition& c_;
  long at_;
};

/// The components that declare saved state, as "glmo NAME, domain NAME".
std::string saved_state_owners(const Composition& c) {
  std::string out;
  auto add = [&](const Stateful* o, const std::string& name) {
    if (o && o->capabilities().has(Capability::SavedState)) out += (out.empty() ? "" : ", ") + name;
  };
  add(c.method.glmo.get(), "glmo " + role_plugin(c.method.plugins, "glmo"));
  add(c.problem.domain.get(), "domain " + role_plugin(c.problem.plugins, "domain"));
  add(c.method.tracker.get(), "tracker " + role_plugin(c.method.plugins, "tracker"));
  return out;
}

/// A run of K iterations against the same run stopped after K / 2, its plugin states saved and
/// loaded into a freshly composed problem, and continued.
void check_state(std::vector<PluginCheck>& out, const Registry& registry, const nlohmann::json& doc,
                 const std::string& source, const std::filesystem::path& base_dir, const Overrides& overrides) {
  constexpr long K = 6, half = 3;
  Overrides o = overrides;
  o.iterations = K;
  o.trace = std::string();
  o.gap_tolerance = 0.0;
  o.time_limit = 0.0;
  auto compose_short = [&] {
    Composition c = compose(registry, doc, source, base_dir, o);
    c.options.trace.clear();
    const bool exact = c.problem.oracle->capabilities().has(Capability::Exact);
    // Gap reports every other iteration, so that the gap GLMO's state is saved and loaded too.
    c.options.report_every = exact ? 2 : 0;
    c.options.final_report = exact;
    return c;
  };
  std::string owners;
  const std::string name = "save / load / continue: y_" + std::to_string(K) + " of a run resumed after iteration " +
                           std::to_string(half) + " vs the run not stopped (bitwise)";
  try {
    Vec y_full, y_again, y_resumed;
    Checkpoint ck;
    {
      Composition a = compose_short();
      owners = saved_state_owners(a);
      const std::string unsaved = unsaveable_state(a);
      if (!unsaved.empty()) {
        out.push_back(skipped("state", unsaved, name, unsaved + " keeps state it cannot save (capability \"unsaved_state\")"));
        return;
      }
      y_full = Solver(a, a.options).run().y;
    }
    {
      Composition b = compose_short();
      Solver s(b, b.options);
      CaptureAt hook(b, half);
      s.set_state_hook(hook);
      y_again = s.run().y;
      ck = std::move(hook.ck);
    }
    {
      Composition c = compose_short();
      restore_components(source, ck, c);
      Solver s(c, c.options);
      s.resume_from(ck.state);
      y_resumed = s.run().y;
    }
    PluginCheck p;
    p.role = "state";
    p.plugin = owners.empty() ? "no plugin declares saved state" : owners;
    p.name = name;
    const double again = (y_again - y_full).cwiseAbs().maxCoeff();
    const double resumed = (y_resumed - y_full).cwiseAbs().maxCoeff();
    p.discrepancy = std::max(again, resumed);
    long differ = 0;
    for (Eigen::Index j = 0; j < y_full.size(); ++j) differ += y_resumed[j] != y_full[j] ? 1 : 0;
    if (y_again != y_full) {
      p.verdict = Verdict::Fail;
      p.detail = "two runs of the same problem and seed differ (max |difference| " + format_number(again, 3) +
                 "): a plugin's results depend on something other than its inputs and its declared state";
    } else if (differ > 0) {
      p.verdict = Verdict::Fail;
      p.detail = std::to_string(differ) + " of " + std::to_string(y_full.size()) +
                 " coordinates differ (max |difference| " + format_number(resumed, 3) + "): " +
                 (owners.empty() ? std::string("a plugin keeps state between calls that it does not declare")
                                 : "the state saved by " + owners +
                                       " does not continue the run, or a plugin keeps state it does not declare");
    }
    out.push_back(std::move(p));
  } catch (const std::exception& e) {
    out.push_back(failed("state", owners.empty() ? std::string("the run") : owners, name, e.what()));
  }
}

}  // namespace

std::vector<PluginCheck> check_plugins(const Registry& registry, const nlohmann::json& doc, const std::string& source,
                                       const std::filesystem::path& base_dir, const Overrides& overrides) {
  std::vector<PluginCheck> out;
  Composition c = compose(registry, doc, source, base_dir, overrides);
  Problem& problem = c.problem;
  const int n = problem.outputs(), d = problem.dim();
  const std::string oracle_name = role_plugin(problem.plugins, "oracle");
  const std::string outer_name = role_plugin(problem.plugins, "outer");
  const std::string domain_name = role_plugin(problem.plugins, "domain");
  Context context;
  context.dim = d;
  context.outputs = n;
  context.base_dir = base_dir.string();
  auto make_clp = [&]() -> std::unique_ptr<Glmo> {
    if (!registry.find(Kind::Glmo, "clp")) return nullptr;
    return registry.make<Glmo>("clp", nlohmann::json::object(), context, source, "/glmo");
  };

  // The point the oracle is checked at: inside the domain, off its start (often a vertex or the
  // centre) towards the LMO's answer to a random direction.
  Vec x;
  try {
    x = problem.domain->initial_point();
    Rng rng(7);
    std::normal_distribution<double> normal;
    Vec g(d);
    for (int j = 0; j < d; ++j) g[j] = normal(rng);
    Atom atom;
    problem.domain->lmo(Gradient(g), atom);
    Vec s;
    atom.to_dense(s);
    x = 0.75 * x + 0.25 * s;
  } catch (const std::exception& e) {
    out.push_back(failed("domain", domain_name, "initial point and one LMO call", e.what()));
    return out;
  }

  conformance::OracleCheckOptions oracle_options;
  oracle_options.samples = 2000;
  oracle_options.z_limit = 6.0;
  if (problem.oracle->capabilities().has(Capability::Exact))
    add_report(out, "oracle", oracle_name, conformance::check_oracle(*problem.oracle, x, oracle_options));
  else
    add_report(out, "oracle", oracle_name, conformance::check_oracle_sample(*problem.oracle, x, oracle_options));

  const std::string model_check = "the model's minimum over a single point vs value(u, x)";
  try {
    auto glmo = make_clp();
    if (!glmo || !registry.find(Kind::Domain, "box")) {
      out.push_back(skipped("outer", outer_name, model_check, "the clp GLMO and the box domain are not loaded"));
    } else {
      const auto singleton = [&](const Vec& at) {
        const std::vector<double> v(at.data(), at.data() + at.size());
        return registry.make<Domain>("box", {{"lower", v}, {"upper", v}}, context, source, "/domain");
      };
      conformance::OuterCheckOptions outer_options;
      outer_options.points = 20;
      add_report(out, "outer", outer_name,
                 conformance::check_outer_model(*problem.outer, n, d, *glmo, singleton, outer_options));
    }
  } catch (const std::exception& e) {
    out.push_back(failed("outer", outer_name, model_check, e.what()));
  }

  try {
    auto glmo = make_clp();
    add_report(out, "domain", domain_name, conformance::check_domain(*problem.domain, glmo.get()));
  } catch (const std::exception& e) {
    out.push_back(failed("domain", domain_name, "the LMO against contains() and the LP model", e.what()));
  }

  check_state(out, registry, doc, source, base_dir, overrides);
  return out;
}

std::string format_check(const PluginCheck& c) {
  std::string s = c.role + " " + c.plugin + ": " + c.name + ": ";
  const std::string numbers =
      "worst discrepancy " + format_number(c.discrepancy, 3) + " (allowed " + format_number(c.allowed, 3) + ")";
  switch (c.verdict) {
    case PluginCheck::Verdict::Pass: return s + (c.allowed > 0 || c.discrepancy > 0 ? "ok, " + numbers : "ok");
    case PluginCheck::Verdict::Skipped: return s + "skipped: " + c.detail;
    case PluginCheck::Verdict::Fail: break;
  }
  return s + "FAILED" + (c.allowed > 0 || c.discrepancy > 0 ? ", " + numbers : std::string());
}

}  // namespace scfw
