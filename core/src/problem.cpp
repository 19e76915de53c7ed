// scfw core: the composer — a problem document validated block by block against the declared
// parameters of the plugins it names, then built into wrapped plugin objects (see problem.hpp).
//
// Every bad input ends in one InputError line "<file>: <JSON pointer>: <what>", and every name
// the user may have mistyped (a key, a parameter, a plugin) comes back with the closest known one.
#include "scfw/core/problem.hpp"

#include "product_domain.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <utility>

#include "scfw/error.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace scfw {

namespace {

// The message helpers and parameter validation are shared with the registry (params_json.hpp).
using namespace json_input;

// ---------------------------------------------------------------------------------------------
// Composition.

struct Role {
  Kind kind;
  const char* key;
  const char* default_plugin;  // nullptr: the block is required
};

constexpr Role kRoles[] = {
    {Kind::Oracle, "oracle", nullptr},       {Kind::Outer, "outer", nullptr},
    {Kind::Domain, "domain", nullptr},       {Kind::Glmo, "glmo", "clp"},  // absent: chosen in compose()
    {Kind::Tracker, "tracker", "momentum"}, {Kind::Schedule, "schedule", "nonconvex"},
};

const std::vector<std::string> kTopLevelKeys = {"name",    "seed",   "iterations", "report",
                                                "oracle",  "outer",  "domain",     "glmo",
                                                "tracker", "schedule"};

/// One role's block, resolved to its registered component and validated parameters.
struct Resolved {
  const Registry* registry = nullptr;
  const RegisteredComponent* component = nullptr;
  json block;           // the block as written, built by Registry::make
  Params params;
  std::string pointer;  // "/outer"
};

std::vector<std::string> names_of_kind(const Registry& registry, Kind kind) {
  std::vector<std::string> names;
  for (const auto& c : registry.components())
    if (c.info.kind == kind) names.push_back(c.info.name);
  return names;
}

Resolved resolve_block(const Registry& registry, const json& block, Kind role_kind, const std::string& pointer,
                       const std::string& source);

Resolved resolve(const Registry& registry, const json& doc, const Role& role, const std::string& source) {
  const std::string kind = to_string(role.kind);
  const std::string pointer = std::string("/") + role.key;
  json block;
  auto it = doc.find(role.key);
  if (it == doc.end()) {
    if (!role.default_plugin) {
      const auto names = names_of_kind(registry, role.kind);
      if (names.empty())
        input_error(source, pointer,
                    "missing block; add {\"plugin\": NAME}; no " + kind +
                        " plugins are loaded (check --plugin-path or SCFW_PLUGIN_PATH)");
      input_error(source, pointer, "missing block; add {\"plugin\": NAME} with NAME one of " + quoted_list(names));
    }
    if (!registry.find(role.kind, role.default_plugin)) {
      const auto names = names_of_kind(registry, role.kind);
      std::string what = std::string("missing block, and the default {\"plugin\": \"") + role.default_plugin +
                         "\"} is not loaded; ";
      what += names.empty() ? "no " + kind + " plugins are loaded (check --plugin-path or SCFW_PLUGIN_PATH)"
                            : "add {\"plugin\": NAME} with NAME one of " + quoted_list(names);
      input_error(source, pointer, what);
    }
    block = json{{"plugin", role.default_plugin}};
  } else {
    block = *it;
  }
  return resolve_block(registry, block, role.kind, pointer, source);
}

Resolved resolve_block(const Registry& registry, const json& block, Kind role_kind, const std::string& pointer,
                       const std::string& source) {
  const std::string kind = to_string(role_kind);
  if (!block.is_object()) input_error(source, pointer, "expected an object {\"plugin\": NAME, ...}");

  const std::string plugin_ptr = pointer + "/plugin";
  auto p = block.find("plugin");
  if (p == block.end()) input_error(source, plugin_ptr, "missing; expected the name of " + std::string(article(kind)) + " " + kind + " plugin");
  if (!p->is_string()) expected(source, plugin_ptr, "the name of " + std::string(article(kind)) + " " + kind + " plugin", *p);
  const std::string name = p->get<std::string>();

  const RegisteredComponent* component = registry.find(role_kind, name);
  if (!component) {
    const auto others = registry.find_any_kind(name);
    if (!others.empty()) {
      const std::string other = to_string(others.front()->info.kind);
      input_error(source, plugin_ptr,
                  "\"" + name + "\" is " + article(other) + " " + other + " plugin, not " + article(kind) + " " +
                      kind + " plugin");
    }
    const auto closest = registry.closest(role_kind, name);
    std::string what = "unknown " + kind + " plugin \"" + name + "\"";
    if (closest.empty()) {
      what += "; no " + kind + " plugins are loaded (check --plugin-path or SCFW_PLUGIN_PATH)";
    } else {
      what += "; closest: ";
      for (size_t i = 0; i < closest.size(); ++i) what += (i ? ", \"" : "\"") + closest[i] + "\"";
    }
    input_error(source, plugin_ptr, what);
  }
  Resolved r;
  r.registry = &registry;
  r.component = component;
  r.block = block;
  r.pointer = pointer;
  r.params = validate_params(component->info.params, block, source, pointer, name);
  return r;
}

/// Builds a resolved block through the registry's one validating make (the block's parameters
/// were validated when it was resolved, so a typo anywhere is reported before any factory runs).
template <class T>
std::unique_ptr<T> make(const Resolved& r, const Context& ctx, const std::string& source) {
  return r.registry->make<T>(r.component->info.name, r.block, ctx, source, r.pointer);
}

bool is_product_block(const Registry& registry, const json& doc) {
  auto it = doc.find("domain");
  if (it == doc.end() || !it->is_object()) return false;
  auto p = it->find("plugin");
  return p != it->end() && p->is_string() && p->get<std::string>() == "product" &&
         !registry.find(Kind::Domain, "product");
}

std::vector<Resolved> resolve_factors(const Registry& registry, const json& block, const std::string& source) {
  for (const auto& [key, v] : block.items()) {
    if (key == "plugin" || key == "factors") continue;
    input_error(source, child("/domain", key), "unknown parameter of product; its parameters are \"factors\"");
  }
  auto f = block.find("factors");
  if (f == block.end())
    input_error(source, "/domain/factors", "missing required parameter (the factor domains, an array of blocks)");
  if (!f->is_array() || f->empty())
    expected(source, "/domain/factors", "a non-empty array of domain blocks {\"plugin\": NAME, ...}", *f);
  std::vector<Resolved> out;
  for (size_t i = 0; i < f->size(); ++i)
    out.push_back(resolve_block(registry, (*f)[i], Kind::Domain, "/domain/factors/" + std::to_string(i), source));
  return out;
}

std::int64_t top_integer(const json& v, const std::string& source, const std::string& pointer, std::int64_t min) {
  std::int64_t i = 0;
  if (!as_integer(v, i) || i < min) expected(source, pointer, "an integer >= " + std::to_string(min), v);
  return i;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

json read_json_file(const fs::path& file) {
  const std::string name = file.string();
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw InputError(name + ": cannot open file (it is a directory)");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(name + ": cannot open file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(name + ": cannot open file");
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte counts the characters read, the offending one included; lines and columns are
    // counted the way the parser counts them (a newline starts a new line at column 0).
    const size_t end = std::min<size_t>(e.byte, text.size());
    size_t line = 1, column = 0;
    for (size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 0;
      } else {
        ++column;
      }
    }
    if (e.byte > text.size()) column += e.byte - text.size();  // end of input
    // Keep the parser's explanation without its "[json.exception.parse_error.101] parse error
    // at line L, column C: " prefix.
    std::string what = e.what();
    const size_t head = what.find("parse error");
    const size_t colon = head == std::string::npos ? std::string::npos : what.find(": ", head);
    if (colon != std::string::npos) what = what.substr(colon + 2);
    throw InputError(name + ": line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what);
  }
}

Problem compose(const Registry& registry, const json& doc, const std::string& source,
                const fs::path& base_dir, const Overrides& overrides) {
  const std::string src = source.empty() ? std::string("<input>") : source;
  if (!doc.is_object())
    throw InputError(src + ": expected an object at the top level, got " + article(doc.type_name()) + " " +
                     doc.type_name());

  for (const auto& [key, v] : doc.items()) {
    if (std::find(kTopLevelKeys.begin(), kTopLevelKeys.end(), key) != kTopLevelKeys.end()) continue;
    const std::string guess = did_you_mean(key, kTopLevelKeys);
    input_error(src, child("", key),
                guess.empty() ? "unknown key; expected one of " + quoted_list(kTopLevelKeys)
                              : "unknown key; did you mean \"" + guess + "\"?");
  }

  Problem problem;
  problem.source = source;
  problem.name = fs::path(source).stem().string();
  if (auto it = doc.find("name"); it != doc.end()) {
    if (!it->is_string()) expected(src, "/name", "a string", *it);
    problem.name = it->get<std::string>();
  }
  if (auto it = doc.find("seed"); it != doc.end())
    problem.seed = static_cast<std::uint64_t>(top_integer(*it, src, "/seed", 0));
  if (auto it = doc.find("iterations"); it != doc.end())
    problem.iterations = static_cast<long>(top_integer(*it, src, "/iterations", 1));
  if (auto it = doc.find("report"); it != doc.end()) {
    static const std::vector<ParamSpec> report_specs = {
        ParamSpec::integer("every", "exact gap every this many iterations (0: only at the end)").nonnegative().def(0),
        ParamSpec::string("trace", "CSV file of the reported iterations (\"\": none)").def(""),
    };
    const Params rp = validate_object(report_specs, *it, src, "/report", "report");
    problem.report.every = static_cast<long>(rp.integer("every"));
    problem.report.trace = rp.string("trace");
  }

  // Command-line overrides win over the file.
  if (overrides.iterations) {
    if (*overrides.iterations < 1)
      throw InputError("--iterations: expected an integer >= 1, got " + std::to_string(*overrides.iterations));
    problem.iterations = *overrides.iterations;
  }
  if (overrides.seed) problem.seed = *overrides.seed;
  if (overrides.trace) problem.report.trace = *overrides.trace;

  // Validate every block before any factory runs: a typo in the schedule is reported before an
  // oracle spends seconds reading its data.
  // A "product" domain (unless a plugin registers that name) is composed here from its factor
  // blocks, each validated like a domain block of its own at /domain/factors/<i>.
  std::vector<Resolved> factor_blocks;
  const bool product = is_product_block(registry, doc);
  std::vector<Resolved> blocks;
  for (const Role& role : kRoles) {
    if (role.kind == Kind::Domain && product) {
      factor_blocks = resolve_factors(registry, doc["domain"], src);
      Resolved r;
      r.pointer = "/domain";
      blocks.push_back(std::move(r));
      continue;
    }
    blocks.push_back(resolve(registry, doc, role, src));
  }
  const Resolved& oracle_block = blocks[0];
  const Resolved& outer_block = blocks[1];
  const Resolved& domain_block = blocks[2];
  Resolved glmo_block = blocks[3];
  const Resolved& tracker_block = blocks[4];
  const Resolved& schedule_block = blocks[5];
  for (size_t i = 0; i < blocks.size(); ++i)
    problem.plugins.emplace_back(kRoles[i].key, blocks[i].component ? blocks[i].component->info.name : "product");

  problem.counters = std::make_shared<CallCounters>();
  const auto& counters = problem.counters;

  // The oracle first: its d and n are what every other factory is told.
  Context ctx;
  ctx.base_dir = base_dir.string();
  {
    auto oracle = make<Oracle>(oracle_block, ctx, src);
    problem.oracle = wrap_oracle(std::move(oracle), oracle_block.component->info.name, counters);
  }
  const int d = problem.oracle->dim();
  const int n = problem.oracle->outputs();
  ctx.dim = d;
  ctx.outputs = n;

  problem.outer = wrap_outer(make<OuterFunction>(outer_block, ctx, src), outer_block.component->info.name, n, d,
                             counters);
  if (product) {
    // Each factor states its own dimension: its context carries no d.
    Context factor_ctx = ctx;
    factor_ctx.dim = -1;
    std::vector<std::unique_ptr<Domain>> factors;
    std::vector<std::string> names;
    for (const auto& fb : factor_blocks) {
      names.push_back(fb.component->info.name);
      factors.push_back(wrap_domain(make<Domain>(fb, factor_ctx, src), fb.component->info.name));
    }
    auto prod = std::make_unique<ProductDomain>(std::move(factors), names);
    problem.plugins[2].second = prod->describe();
    problem.domain = wrap_domain(std::move(prod), "product");
  } else {
    problem.domain = wrap_domain(make<Domain>(domain_block, ctx, src), domain_block.component->info.name);
  }
  if (problem.domain->dim() != d)
    input_error(src, "/domain",
                "the domain has dimension " + std::to_string(problem.domain->dim()) +
                    " but the oracle has dimension " + std::to_string(d));

  problem.tracker = wrap_tracker(make<Tracker>(tracker_block, ctx, src), tracker_block.component->info.name);
  try {
    problem.tracker->bind(*problem.oracle);
  } catch (const CapabilityError& e) {
    throw CapabilityError(src + ": /tracker: " + e.what());
  } catch (const InputError& e) {
    throw InputError(src + ": /tracker: " + e.what());
  }

  problem.schedule = wrap_schedule(make<Schedule>(schedule_block, ctx, src), schedule_block.component->info.name);

  // No glmo block: the host picks the solver. A domain known only through its LMO goes to column
  // generation; a small LP to the dense simplex that keeps its basis between iterations; any
  // other LP (too large for the dense solver, or with cones) to clp. An explicit "clp" over an
  // LMO-only domain also hands over to column generation. The summary says what was chosen.
  const bool glmo_auto = doc.find("glmo") == doc.end();
  auto use_glmo = [&](const char* name) -> bool {
    const RegisteredComponent* c = registry.find(Kind::Glmo, name);
    if (!c) return false;
    glmo_block.component = c;
    glmo_block.block = json::object();  // the chosen solver with its defaults
    glmo_block.params = validate_object(c->info.params, glmo_block.block, src, "/glmo", c->info.name);
    problem.plugins[3].second = name;
    return true;
  };
  auto build_glmos = [&]() {
    // Two instances from one block: the gap reports never disturb the algorithm's warm starts.
    const std::string& glmo_name = glmo_block.component->info.name;
    problem.glmo = wrap_glmo(make<Glmo>(glmo_block, ctx, src), glmo_name, counters);
    problem.gap_glmo = wrap_glmo(make<Glmo>(glmo_block, ctx, src), glmo_name, counters);
    for (Glmo* g : {problem.glmo.get(), problem.gap_glmo.get()}) {
      try {
        g->setup(*problem.outer, *problem.domain, n, d);
      } catch (const CapabilityError& e) {
        throw CapabilityError(src + ": /glmo: " + e.what());
      } catch (const Error& e) {
        throw InputError(src + ": /glmo: " + e.what());
      }
    }
  };

  // Asks the GLMO of glmo_block, before any setup, whether it handles this problem.
  auto supported = [&](std::string& why) {
    const auto probe = wrap_glmo(make<Glmo>(glmo_block, ctx, src), glmo_block.component->info.name, counters);
    return probe->supports(*problem.outer, *problem.domain, n, d, &why);
  };
  std::string why;
  if (!problem.domain->has_model() && (glmo_auto || (glmo_block.component->info.name == "clp" && !supported(why)))) {
    if (use_glmo("column_generation"))
      problem.notes.push_back(std::string("glmo: the domain has no LP model, so ") +
                              (glmo_auto ? "column_generation was selected" : "clp handed over to column_generation") +
                              " (a restricted master LP over the domain's LMO atoms)");
    build_glmos();
  } else if (glmo_auto && use_glmo("dense_simplex")) {
    if (supported(why)) {
      build_glmos();
      problem.notes.push_back("glmo: dense_simplex selected automatically (the GLMO LP is small enough for the dense "
                              "simplex that keeps its basis between iterations)");
    } else {
      // Too large for the dense solver, or cones: Clp instead.
      use_glmo("clp");
      build_glmos();
      problem.notes.push_back("glmo: clp selected automatically; dense_simplex declined: " + why);
    }
  } else {
    build_glmos();
  }

  return problem;
}

Problem load_problem(const Registry& registry, const fs::path& file, const Overrides& overrides) {
  const json doc = read_json_file(file);
  return compose(registry, doc, file.string(), file.parent_path(), overrides);
}

}  // namespace scfw
