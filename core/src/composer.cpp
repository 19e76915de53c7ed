// scfw core: the composer — a problem document validated block by block against the declared
// parameters of the plugins it names, then built into wrapped plugin objects (see problem.hpp).
//
// Every bad input ends in one InputError line "<file>: <JSON pointer>: <what>", and every name
// the user may have mistyped (a key, a parameter, a plugin) comes back with the closest known one.
#include "scfw/core/problem.hpp"
#include "scfw/core/factors.hpp"

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

#include "scfw/core/diagnostics.hpp"
#include "scfw/core/distributed.hpp"
#include "scfw/core/format.hpp"
#include "scfw/core/memory_limit.hpp"
#include "scfw/core/plugin_lookup.hpp"
#include "scfw/data_file.hpp"
#include "scfw/error.hpp"
#include "scfw/memory.hpp"
#include "scfw/state.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace scfw {

namespace {

// ---------------------------------------------------------------------------------------------
// Small helpers for messages and values: shared with `scfw compare` (diagnostics.hpp).

using diagnostics::article;
using diagnostics::as_integer;
using diagnostics::child;
using diagnostics::did_you_mean;
using diagnostics::expected;
using diagnostics::input_error;
using diagnostics::quoted_list;
using diagnostics::show;



// ---------------------------------------------------------------------------------------------
// Composition.

struct Role {
  Kind kind;
  const char* key;
  bool chosen;  // absent block: the plugin of the highest Preference::rank (false: the block is required)
};

constexpr Role kOracle{Kind::Oracle, "oracle", false};
constexpr Role kOuter{Kind::Outer, "outer", false};
constexpr Role kDomain{Kind::Domain, "domain", false};
constexpr Role kGlmo{Kind::Glmo, "glmo", true};  // absent: chosen again by build_glmos(), with supports()
constexpr Role kTracker{Kind::Tracker, "tracker", true};
constexpr Role kSchedule{Kind::Schedule, "schedule", true};

const std::vector<std::string> kTopLevelKeys = {"name",   "seed",    "iterations", "report",  "stop",
                                                "oracle", "outer",   "domain",     "glmo",    "tracker",
                                                "schedule", "output", "start"};  // "output", "start": solution.hpp

/// One role's block, resolved to its registered component and validated parameters.
struct Resolved {
  const Registry* registry = nullptr;
  const RegisteredComponent* component = nullptr;
  Params params;
  std::string pointer;  // "/outer"
};

std::vector<std::string> names_of_kind(const Registry& registry, Kind kind) {
  std::vector<std::string> names;
  for (const auto& c : registry.components())
    if (c.info.kind == kind) names.push_back(c.info.name);
  return names;
}

/// The plugins of `kind` the host may pick for an absent block (Preference::rank > 0), most
/// preferred first; equal ranks by name.
std::vector<const RegisteredComponent*> ranked(const Registry& registry, Kind kind) {
  std::vector<const RegisteredComponent*> out;
  for (const auto& c : registry.components())
    if (c.info.kind == kind && c.info.preference.rank > 0) out.push_back(&c);
  std::sort(out.begin(), out.end(), [](const RegisteredComponent* a, const RegisteredComponent* b) {
    if (a->info.preference.rank != b->info.preference.rank) return a->info.preference.rank > b->info.preference.rank;
    return a->info.name < b->info.name;
  });
  return out;
}

Resolved resolve_block(const Registry& registry, const json& block, Kind role_kind, const std::string& pointer,
                       const std::string& source) {
  const RegisteredComponent& component = find_plugin(registry, role_kind, block, source, pointer);
  Resolved r;
  r.registry = &registry;
  r.component = &component;
  r.pointer = pointer;
  r.params = validate_params(component.info.params, block, source, pointer, component.info.name);
  return r;
}

/// A role's block at `pointer`, or (when `block` is null) the block of its most preferred
/// plugin, or an error listing the loaded plugins of the role.
Resolved resolve_role(const Registry& registry, const json* block, const Role& role, const std::string& pointer,
                      const std::string& source) {
  if (block) return resolve_block(registry, *block, role.kind, pointer, source);
  const std::string kind = to_string(role.kind);
  const auto preferred = role.chosen ? ranked(registry, role.kind) : std::vector<const RegisteredComponent*>{};
  if (!preferred.empty())
    return resolve_block(registry, json{{"plugin", preferred.front()->info.name}}, role.kind, pointer, source);
  const auto names = names_of_kind(registry, role.kind);
  if (names.empty())
    input_error(source, pointer,
                "missing block; add {\"plugin\": NAME}; no " + kind +
                    " plugins are loaded (check --plugin-path or SCFW_PLUGIN_PATH)");
  input_error(source, pointer,
              std::string(role.chosen ? "missing block, and no loaded " + kind + " plugin is chosen automatically; "
                                      : "missing block; ") +
                  "add {\"plugin\": NAME} with NAME one of " + quoted_list(names));
}

const json* find_block(const json& doc, const char* key) {
  auto it = doc.find(key);
  return it == doc.end() ? nullptr : &*it;
}

/// Builds a resolved block from the parameters validated when it was resolved (so a typo
/// anywhere is reported before any factory runs, and each block is validated once).
template <class T>
std::unique_ptr<T> make(const Resolved& r, const Context& ctx, const std::string& source) {
  return r.registry->make<T>(*r.component, r.params, ctx, source, r.pointer);
}

/// Charges what the host itself will hold; over the limit: one line at `pointer`.
void charge(MemoryAccount& account, std::uint64_t bytes, const std::string& what, const std::string& src,
            const std::string& pointer) {
  try {
    account.reserve(bytes, what);
  } catch (const MemoryLimitError& e) {
    input_error(src, pointer, e.what());
  }
}

std::string times(std::int64_t a, std::int64_t b) { return std::to_string(a) + " x " + std::to_string(b); }

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
    input_error(source, child("/domain", diagnostics::excerpt(key)), "unknown parameter of product; its parameters are \"factors\"");
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

// --- The problem: oracle, outer, domain ---------------------------------------------------------

/// The problem's blocks, validated. A "product" domain (unless a plugin registers that name) is
/// composed by the host from its factor blocks, each validated like a domain block of its own at
/// /domain/factors/<i>.
struct ProblemBlocks {
  Resolved oracle, outer, domain;
  bool product = false;
  std::vector<Resolved> factors;
};

ProblemBlocks resolve_problem(const Registry& registry, const json& doc, const std::string& src) {
  ProblemBlocks b;
  b.oracle = resolve_role(registry, find_block(doc, "oracle"), kOracle, "/oracle", src);
  b.outer = resolve_role(registry, find_block(doc, "outer"), kOuter, "/outer", src);
  b.product = is_product_block(registry, doc);
  if (b.product) {
    b.factors = resolve_factors(registry, doc["domain"], src);
    b.domain.pointer = "/domain";
  } else {
    b.domain = resolve_role(registry, find_block(doc, "domain"), kDomain, "/domain", src);
  }
  return b;
}

std::string read_name(const json& doc, const std::string& source, const std::string& src) {
  std::string name = fs::path(source).stem().string();
  if (auto it = doc.find("name"); it != doc.end()) {
    if (!it->is_string()) expected(src, "/name", "a string", *it);
    name = it->get<std::string>();
  }
  return name;
}

/// The domain from its block(s), wrapped, with its dimension checked against the oracle's. A
/// product's factors state their own dimension: their context carries no d.
std::unique_ptr<Domain> build_domain(const ProblemBlocks& b, const Context& ctx, const std::string& src,
                                     std::string* described) {
  std::unique_ptr<Domain> domain;
  if (b.product) {
    Context factor_ctx = ctx;
    factor_ctx.dim = -1;
    std::vector<std::unique_ptr<Domain>> factors;
    std::vector<std::string> names;
    for (const auto& fb : b.factors) {
      names.push_back(fb.component->info.name);
      factors.push_back(wrap_domain(make<Domain>(fb, factor_ctx, src), fb.component->info.name));
    }
    auto prod = std::make_unique<ProductDomain>(std::move(factors), names);
    if (described) *described = prod->describe();
    domain = wrap_domain(std::move(prod), "product");
  } else {
    domain = wrap_domain(make<Domain>(b.domain, ctx, src), b.domain.component->info.name);
  }
  if (domain->dim() != ctx.dim)
    input_error(src, "/domain",
                "the domain has dimension " + std::to_string(domain->dim()) + " but the oracle has dimension " +
                    std::to_string(ctx.dim));
  return domain;
}

/// Sets a record of the data files opened on this thread (data_file.hpp) for its lifetime; the
/// problem then keeps each path once, in the order first read, for checkpoints.
struct DataFileRecord {
  std::vector<std::string> read;
  std::vector<std::string>* before;
  DataFileRecord() : before(record_data_files(&read)) {}
  ~DataFileRecord() { record_data_files(before); }
  DataFileRecord(const DataFileRecord&) = delete;
  DataFileRecord& operator=(const DataFileRecord&) = delete;
  void move_to(std::vector<std::string>& files) {
    for (std::string& path : read)
      if (std::find(files.begin(), files.end(), path) == files.end()) files.push_back(std::move(path));
  }
};

std::string coordinate(const Oracle& oracle, int j) {
  const std::vector<std::string> names = oracle.variable_names();
  std::string c = "x[" + std::to_string(j) + "]";
  if (static_cast<size_t>(j) < names.size() && !names[static_cast<size_t>(j)].empty())
    c += " (\"" + diagnostics::excerpt(names[static_cast<size_t>(j)]) + "\")";
  return c;
}

/// Refuses a composition whose variables do not mean what the plugins that read them think they
/// mean (docs/reliability.md): an oracle's auxiliary variable that the outer function does not
/// read, an auxiliary variable the outer function reads but the oracle does not declare, one the
/// domain ties to other coordinates, and a matrix read in another shape than the oracle's.
void check_roles(const Problem& problem, const ProblemBlocks& b, const std::string& src) {
  const Oracle& oracle = *problem.oracle;
  const int d = oracle.dim();
  const std::string& oracle_name = problem.plugins[0].second;
  const std::string& outer_name = problem.plugins[1].second;
  const std::string& domain_name = problem.plugins[2].second;
  const std::string outer_at = b.outer.pointer + "/plugin";
  const std::string domain_at = b.product ? b.domain.pointer + "/factors" : b.domain.pointer + "/plugin";
  const std::vector<AuxiliaryVariable> declared = oracle.auxiliary_variables();
  const std::vector<AuxiliaryVariable> read = problem.outer->reads_auxiliary(d);
  for (const AuxiliaryVariable& a : declared) {
    const bool is_read = std::any_of(read.begin(), read.end(),
                                     [&](const AuxiliaryVariable& r) { return r.index == a.index && r.role == a.role; });
    if (!is_read)
      input_error(src, outer_at,
                  "oracle " + oracle_name + "'s " + coordinate(oracle, a.index) + " is " + a.meaning +
                      ", which outer function " + outer_name +
                      " does not read: it would be a coordinate of x with no meaning; " + a.instead);
  }
  for (const AuxiliaryVariable& r : read) {
    const bool is_declared = std::any_of(declared.begin(), declared.end(), [&](const AuxiliaryVariable& a) {
      return a.index == r.index && a.role == r.role;
    });
    if (!is_declared)
      input_error(src, outer_at,
                  "outer function " + outer_name + " reads x[" + std::to_string(r.index) + "] as " + r.meaning +
                      ", but oracle " + oracle_name + " declares no such variable (its x[" + std::to_string(r.index) +
                      "] is a coordinate of its model); " + r.instead);
  }
  for (const AuxiliaryVariable& a : declared)
    if (!problem.domain->separates(a.index))
      input_error(src, domain_at,
                  "domain " + domain_name + " ties " + coordinate(oracle, a.index) + ", " + a.meaning +
                      ", to the other coordinates; give it bounds of its own: a \"product\" whose factor for it is a "
                      "one-dimensional \"box\"" +
                      (a.index == d - 1 ? std::string(", or \"simplex_interval\" (a simplex over the others, an interval for the last)")
                                         : std::string()));
  const std::vector<int> want = oracle.shape(), have = problem.domain->shape();
  if (!want.empty() && !have.empty() && want != have)
    input_error(src, b.domain.pointer,
                "domain " + domain_name + " is a " + std::to_string(have[0]) + " x " + std::to_string(have[1]) +
                    " matrix, but oracle " + oracle_name + "'s x is a " + std::to_string(want[0]) + " x " +
                    std::to_string(want[1]) + " matrix (row-major): write \"rows\": " + std::to_string(want[0]) +
                    ", \"cols\": " + std::to_string(want[1]));
}

Problem build_problem(const ProblemBlocks& b, const std::string& source, const std::string& name,
                      const fs::path& base_dir, const MemoryAccount* memory, const Ranks* shard,
                      std::shared_ptr<const HostArrays> arrays) {
  const std::string src = source.empty() ? std::string("<input>") : source;
  DataFileRecord record;
  Problem problem;
  problem.source = source;
  problem.name = name;
  problem.base_dir = base_dir;
  problem.plugins = {{"oracle", b.oracle.component->info.name},
                     {"outer", b.outer.component->info.name},
                     {"domain", b.product ? std::string("product") : b.domain.component->info.name}};
  problem.counters = std::make_shared<CallCounters>();

  // The oracle first: its d and n are what every other factory is told.
  problem.memory = memory ? *memory : memory_account();
  Context ctx;
  ctx.base_dir = base_dir.string();
  ctx.memory = Memory(&problem.memory);  // only while building: `problem` is moved when returned
  ctx.shard = shard && shard->size() > 1 ? shard : nullptr;  // null but under `mpirun scfw run`
  problem.arrays = std::move(arrays);
  ctx.arrays = problem.arrays.get();  // the table outlives the problem's objects (shared)
  std::unique_ptr<Oracle> oracle = make<Oracle>(b.oracle, ctx, src);
  if (ctx.shard && oracle->capabilities().has(Capability::Sharded)) oracle = wrap_sharded_oracle(std::move(oracle), *shard);
  ctx.shard = nullptr;
  problem.oracle = wrap_oracle(std::move(oracle), b.oracle.component->info.name, problem.counters);
  ctx.dim = problem.oracle->dim();
  ctx.outputs = problem.oracle->outputs();
  ctx.entries = problem.oracle->matrix_entries();  // for the domain: the oracle sees these entries only
  // What the solver holds for any run on this problem (solver.cpp sizes these before its loop).
  if (problem.oracle->capabilities().has(Capability::SparseJacobian)) {
    const auto pattern = problem.oracle->jacobian_pattern();
    // A sparse Jacobian: V and the gap reports' J hold the pattern's values only.
    const std::int64_t n = ctx.outputs, d = ctx.dim, nnz = pattern->nnz();
    const std::string shape = times(n, d) + ", " + std::to_string(nnz) + " non-zeros";
    charge(problem.memory, bytes_of({nnz, 8}), "V (" + shape + ")", src, "/oracle");
    charge(problem.memory, bytes_of({nnz, 8}), "the Jacobian of the gap reports (" + shape + ")", src, "/oracle");
  } else {
    const std::int64_t n = ctx.outputs, d = ctx.dim;
    charge(problem.memory, bytes_of({n, d, 8}), "V (" + times(n, d) + ")", src, "/oracle");
    charge(problem.memory, bytes_of({n, d, 8}), "the Jacobian of the gap reports (" + times(n, d) + ")", src,
           "/oracle");
  }
  {
    const std::int64_t n = ctx.outputs, d = ctx.dim;
    charge(problem.memory, bytes_of({4, d, 8}), "the iterates y, x and their copies (4 x " + std::to_string(d) + ")",
           src, "/oracle");
    charge(problem.memory, bytes_of({2, n, 8}), "z and the gap reports' f (2 x " + std::to_string(n) + ")", src,
           "/oracle");
    if (const auto entries = problem.oracle->matrix_entries())
      charge(problem.memory, 2 * Factors::bytes(entries->rows, entries->cols),
             "y as factors and the summary's copy (2 x " + std::to_string(Factors::max_columns(entries->rows, entries->cols)) + " x (" +
                 std::to_string(entries->rows) + " + " + std::to_string(entries->cols) + "))",
             src, "/oracle");
  }

  problem.outer = wrap_outer(make<OuterFunction>(b.outer, ctx, src), b.outer.component->info.name, ctx.outputs,
                             ctx.dim, problem.counters);
  problem.domain = build_domain(b, ctx, src, &problem.plugins[2].second);
  check_roles(problem, b, src);
  // Later domains come from the same (already validated) blocks; the components live in the
  // Registry, which outlives every object its plugins made. A renewed domain replaces the one
  // already charged, so its charges go to no account; the gap reports' own domain (below) is
  // charged to the method's.
  problem.make_domain = [b, ctx, src](MemoryAccount* account) {
    Context c = ctx;
    c.memory = Memory(account);
    return build_domain(b, c, src, nullptr);
  };
  record.move_to(problem.data_files);
  return problem;
}

// --- The method: tracker, schedule, GLMO --------------------------------------------------------

struct MethodBlocks {
  Resolved glmo, tracker, schedule;
  json glmo_doc = json::object();  // {"glmo": block} when the block is given, {} when the host chooses
};

MethodBlocks resolve_method(const Registry& registry, const MethodBlock& tracker, const MethodBlock& schedule,
                            const MethodBlock& glmo, const std::string& src) {
  MethodBlocks b;
  b.glmo = resolve_role(registry, glmo.value, kGlmo, glmo.pointer, src);
  if (glmo.value) b.glmo_doc["glmo"] = *glmo.value;
  b.tracker = resolve_role(registry, tracker.value, kTracker, tracker.pointer, src);
  b.schedule = resolve_role(registry, schedule.value, kSchedule, schedule.pointer, src);
  return b;
}

/// The GLMO of the gap reports over a domain of its own, a second instance built from the same
/// block, for a domain that keeps LMO state between calls (Capability::SavedState or
/// UnsavedState: a warm start, a tie-breaking rule, a basis). Shared, the gap solves would move
/// that state and with it the algorithm's next answers, so the iterates would depend on
/// "report": {"every"}. A checkpoint saves this domain's state with the GLMO's.
class OwnDomainGlmo final : public Glmo {
 public:
  OwnDomainGlmo(std::unique_ptr<Glmo> inner, std::unique_ptr<Domain> domain)
      : inner_(std::move(inner)), domain_(std::move(domain)) {}

  Capabilities capabilities() const override {
    Capabilities c = inner_->capabilities();
    const Capabilities dc = domain_->capabilities();
    if (dc.has(Capability::UnsavedState)) c |= Capability::UnsavedState;
    else if (dc.has(Capability::SavedState)) c |= Capability::SavedState;
    return c;
  }
  bool supports(const OuterFunction& outer, const Domain&, int n, int d, std::string* why) const override {
    return inner_->supports(outer, *domain_, n, d, why);
  }
  void setup(const OuterFunction& outer, const Domain&, int n, int d) override { inner_->setup(outer, *domain_, n, d); }
  GlmoResult solve(const Vec& z, const Jacobian& V, const Vec& y, Vec& x) override { return inner_->solve(z, V, y, x); }
  void set_step(double gamma) override { inner_->set_step(gamma); }
  std::string describe() const override { return inner_->describe(); }

  void save_state(StateWriter& w) const override {
    for (const auto& [name, part] : parts()) {
      if (!part->capabilities().has(Capability::SavedState)) continue;
      StateWriter block;
      part->save_state(block);
      w.put(name, block.text());
    }
  }
  void load_state(StateReader& r) override {
    for (const auto& [name, part] : parts()) {
      if (!part->capabilities().has(Capability::SavedState)) continue;
      std::string text;
      r.get(name, text);
      StateReader block(std::move(text), r.owner() + " (" + name + ")");
      part->load_state(block);
      block.expect_end();
    }
  }

 private:
  std::vector<std::pair<std::string, Stateful*>> parts() const {
    return {{"glmo", inner_.get()}, {"domain", domain_.get()}};
  }
  std::unique_ptr<Glmo> inner_;
  std::unique_ptr<Domain> domain_;
};

bool keeps_state(const Domain& domain) {
  const Capabilities c = domain.capabilities();
  return c.has(Capability::SavedState) || c.has(Capability::UnsavedState);
}

/// What the GLMO choice below reads and writes, under the names it has always used: the
/// method's two GLMO slots and notes, the problem's outer function and domain, and the six
/// roles' plugin names in file order (entry 3 is the GLMO's).
struct GlmoTarget {
  std::unique_ptr<Glmo>& glmo;
  std::unique_ptr<Glmo>& gap_glmo;
  const std::unique_ptr<OuterFunction>& outer;
  const std::unique_ptr<Domain>& domain;
  PluginNames& plugins;
  std::vector<std::string>& notes;
  /// A second domain from the same block, for the gap GLMO (null: none can be built, or the
  /// domain keeps no state and one instance serves both GLMOs).
  std::function<std::unique_ptr<Domain>()> make_gap_domain;
};

/// Builds the GLMO and its twin for the gap reports from `glmo_block`, or picks the solver when
/// `doc` has no "glmo" block. Returns the target it filled.
GlmoTarget build_glmos(GlmoTarget problem, const Registry& registry, const json& doc, Resolved glmo_block,
                       const std::string& src, const Context& ctx, int n, int d,
                       const std::shared_ptr<CallCounters>& counters) {
  // No glmo block: the host asks the GLMOs that declare a preference, most preferred first
  // (registrar.hpp, Preference), and builds the first whose supports() accepts the problem. A
  // GLMO named in the file that declines a domain with no LP model gives way to the same choice
  // when it declares hands_over. The summary says what was chosen and why.
  const bool glmo_auto = doc.find("glmo") == doc.end();
  const bool lp_model = problem.domain->capabilities().has(Capability::LpModel);
  auto use_glmo = [&](const RegisteredComponent* c) {
    glmo_block.component = c;
    glmo_block.params = validate_object(c->info.params, json::object(), src, "/glmo", c->info.name);  // its defaults
    problem.plugins[3].second = c->info.name;
  };
  // Asks the GLMO of glmo_block, before any setup, whether it handles this problem; the instance
  // asked is kept as the algorithm's GLMO when it is the one chosen.
  std::unique_ptr<Glmo> chosen;
  std::string why;  // the reason of the last GLMO that declined
  auto supported = [&]() {
    chosen = wrap_glmo(make<Glmo>(glmo_block, ctx, src), glmo_block.component->info.name, counters);
    if (chosen->supports(*problem.outer, *problem.domain, n, d, &why)) return true;
    chosen.reset();
    return false;
  };

  const RegisteredComponent* named = glmo_block.component;
  const bool hand_over = !glmo_auto && !lp_model && named->info.preference.hands_over && !supported();
  if (glmo_auto || hand_over) {
    std::string declined = hand_over ? named->info.name : std::string();
    for (const RegisteredComponent* c : ranked(registry, Kind::Glmo)) {
      if (c == named && hand_over) continue;  // it declined already
      use_glmo(c);
      if (supported()) break;
      declined = c->info.name;
    }
    if (!chosen) throw CapabilityError(src + ": /glmo: " + why);  // none of them takes the problem
    const std::string& name = glmo_block.component->info.name;
    const std::string& reason = glmo_block.component->info.preference.reason;
    if (!lp_model)
      problem.notes.push_back("glmo: the domain has no LP model, so " +
                              (hand_over ? named->info.name + " handed over to " + name : name + " was selected") +
                              (reason.empty() ? std::string() : " (" + reason + ")"));
    else if (!reason.empty())
      problem.notes.push_back("glmo: " + name + " selected automatically (" + reason + ")");
    else if (!declined.empty())
      problem.notes.push_back("glmo: " + name + " selected automatically; " + declined + " declined: " + why);
  }

  // Two instances from one block: the gap reports never disturb the algorithm's warm starts.
  // Each charges what it holds to the memory account in its setup().
  const std::string& glmo_name = glmo_block.component->info.name;
  problem.glmo = chosen ? std::move(chosen) : wrap_glmo(make<Glmo>(glmo_block, ctx, src), glmo_name, counters);
  problem.gap_glmo = wrap_glmo(make<Glmo>(glmo_block, ctx, src), glmo_name, counters);
  if (problem.make_gap_domain && keeps_state(*problem.domain))
    problem.gap_glmo = std::make_unique<OwnDomainGlmo>(std::move(problem.gap_glmo), problem.make_gap_domain());
  for (Glmo* g : {problem.glmo.get(), problem.gap_glmo.get()}) {
    try {
      g->setup(*problem.outer, *problem.domain, n, d);
    } catch (const CapabilityError& e) {
      throw CapabilityError(src + ": /glmo: " + e.what());
    } catch (const InputError& e) {
      throw InputError(src + ": /glmo: " + e.what());
    } catch (const Error& e) {  // a numerical failure is no bad input: exit 1, not 2
      throw Error(src + ": /glmo: " + e.what());
    }
  }
  return problem;
}

Method build_method(const Registry& registry, Problem& problem, const MethodBlocks& b, const std::string& src) {
  Method method;
  method.plugins = {{"glmo", b.glmo.component->info.name},
                    {"tracker", b.tracker.component->info.name},
                    {"schedule", b.schedule.component->info.name}};
  const int d = problem.oracle->dim();
  const int n = problem.oracle->outputs();
  method.memory = problem.memory;  // the problem's charges, then the method's own
  Context ctx;
  ctx.base_dir = problem.base_dir.string();
  ctx.dim = d;
  ctx.outputs = n;
  ctx.memory = Memory(&method.memory);  // only while building: `method` is moved when returned
  const auto pattern = problem.oracle->capabilities().has(Capability::SparseJacobian) ? problem.oracle->jacobian_pattern() : nullptr;
  if (pattern) ctx.jacobian_nnz = pattern->nnz();
  ctx.entries = problem.oracle->matrix_entries();

  method.tracker = wrap_tracker(make<Tracker>(b.tracker, ctx, src), b.tracker.component->info.name);
  try {
    method.tracker->bind(*problem.oracle);
  } catch (const CapabilityError& e) {
    throw CapabilityError(src + ": " + b.tracker.pointer + ": " + e.what());
  } catch (const InputError& e) {
    throw InputError(src + ": " + b.tracker.pointer + ": " + e.what());
  }

  method.schedule = wrap_schedule(make<Schedule>(b.schedule, ctx, src), b.schedule.component->info.name);

  PluginNames all = problem.plugins;
  all.insert(all.end(), method.plugins.begin(), method.plugins.end());
  std::function<std::unique_ptr<Domain>()> make_gap_domain;
  if (problem.make_domain) make_gap_domain = [&problem, &method] { return problem.make_domain(&method.memory); };
  build_glmos(GlmoTarget{method.glmo, method.gap_glmo, problem.outer, problem.domain, all, method.notes,
                         make_gap_domain},
              registry,
              b.glmo_doc, b.glmo, src, ctx, n, d, problem.counters);
  method.plugins[0].second = all[3].second;
  // A sparse V for a GLMO that takes only a dense one: the solver copies it into one dense
  // n x d buffer before each solve (solver.cpp), charged here and said in the summary.
  if (pattern && !(method.glmo->capabilities().has(Capability::SparseV) &&
                   method.gap_glmo->capabilities().has(Capability::SparseV))) {
    const std::uint64_t bytes = bytes_of({n, d, 8});
    charge(method.memory, bytes,
           "a dense copy of V for the GLMO " + method.plugins[0].second + ", which takes no sparse V (" + times(n, d) + ")",
           src, "/glmo");
    method.notes.push_back("glmo: " + method.plugins[0].second + " takes no sparse V, so the host copies V (" +
                           times(n, d) + ", " + format_bytes(bytes) + ") into a dense buffer before each solve");
  }
  return method;
}

// --- The options --------------------------------------------------------------------------------

[[noreturn]] void bad_override(const std::string& option, const std::string& what, const std::string& got) {
  throw InputError(option + ": expected " + what + ", got " + got);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

void Problem::renew_domain() {
  if (!make_domain) throw Error("this problem was not composed by compose_problem(): it cannot renew its domain");
  domain = make_domain(nullptr);
}

PluginNames Composition::plugins() const {
  PluginNames all = problem.plugins;
  all.insert(all.end(), method.plugins.begin(), method.plugins.end());
  return all;
}

std::vector<std::string> Composition::notes() const {
  std::vector<std::string> all = problem.notes;
  all.insert(all.end(), method.notes.begin(), method.notes.end());
  return all;
}

Problem compose_problem(const Registry& registry, const json& doc, const std::string& source,
                        const fs::path& base_dir, const MemoryAccount* memory, const Ranks* shard,
                        std::shared_ptr<const HostArrays> arrays) {
  const std::string src = source.empty() ? std::string("<input>") : source;
  if (!doc.is_object())
    throw InputError(src + ": expected an object at the top level, got " + article(doc.type_name()) + " " +
                     doc.type_name());
  const std::string name = read_name(doc, source, src);
  return build_problem(resolve_problem(registry, doc, src), source, name, base_dir, memory, shard, std::move(arrays));
}

Method compose_method(const Registry& registry, Problem& problem, const MethodBlock& tracker,
                      const MethodBlock& schedule, const MethodBlock& glmo) {
  const std::string src = problem.source.empty() ? std::string("<input>") : problem.source;
  return build_method(registry, problem, resolve_method(registry, tracker, schedule, glmo, src), src);
}

SolverOptions read_options(const json& doc, const std::string& source, const Overrides& overrides) {
  const std::string src = source.empty() ? std::string("<input>") : source;
  SolverOptions options;
  if (auto it = doc.find("seed"); it != doc.end())
    options.seed = static_cast<std::uint64_t>(diagnostics::integer_at_least(*it, src, "/seed", 0));
  if (auto it = doc.find("iterations"); it != doc.end())
    options.iterations = static_cast<long>(diagnostics::integer_at_least(*it, src, "/iterations", 1));
  if (auto it = doc.find("report"); it != doc.end()) {
    static const std::vector<ParamSpec> report_specs = {
        ParamSpec::integer("every", "exact gap every this many iterations (0: only at the end)").nonnegative().def(0),
        ParamSpec::string("trace", "CSV file of the reported iterations (\"\": none)").def(""),
    };
    const Params rp = validate_object(report_specs, *it, src, "/report", "report");
    options.report_every = static_cast<long>(rp.integer("every"));
    options.trace = rp.string("trace");
    diagnostics::check_file_name(src, "/report/trace", options.trace);
  }
  if (auto it = doc.find("stop"); it != doc.end()) {
    static const std::vector<ParamSpec> stop_specs = {
        ParamSpec::number("gap_tolerance", "stop when a reported gap is at most this (0: never)").nonnegative().def(0.0),
        ParamSpec::number("time_limit", "stop after this many seconds (0: no limit)").nonnegative().def(0.0),
    };
    const Params sp = validate_object(stop_specs, *it, src, "/stop", "stop");
    options.gap_tolerance = sp.number("gap_tolerance");
    options.time_limit = sp.number("time_limit");
  }

  // Command-line overrides win over the file.
  if (overrides.iterations) {
    if (*overrides.iterations < 1) bad_override("--iterations", "an integer >= 1", std::to_string(*overrides.iterations));
    options.iterations = *overrides.iterations;
  }
  if (overrides.seed) options.seed = *overrides.seed;
  if (overrides.trace) options.trace = *overrides.trace;
  if (overrides.gap_tolerance) {
    if (!(*overrides.gap_tolerance >= 0) || !std::isfinite(*overrides.gap_tolerance))
      bad_override("--gap-tolerance", "a number >= 0", format_number(*overrides.gap_tolerance));
    options.gap_tolerance = *overrides.gap_tolerance;
  }
  if (overrides.report_every) {
    if (*overrides.report_every < 0) bad_override("--report-every", "an integer >= 0", std::to_string(*overrides.report_every));
    options.report_every = *overrides.report_every;
  }
  if (overrides.time_limit) {
    if (!(*overrides.time_limit >= 0) || std::isnan(*overrides.time_limit))
      bad_override("--time-limit", "a number of seconds >= 0", format_number(*overrides.time_limit));
    options.time_limit = *overrides.time_limit;
  }
  // A gap tolerance is checked at gap reports: with none before the last iteration it could
  // never stop the run.
  if (options.gap_tolerance > 0 && (options.report_every == 0 || options.report_every >= options.iterations)) {
    const std::string what = "a gap tolerance needs gap reports during the run, but \"report\": {\"every\"} is " +
                             std::to_string(options.report_every) + " with " + std::to_string(options.iterations) +
                             " iterations, so the gap is computed only after the last one; set \"report\": "
                             "{\"every\": N} with N < " + std::to_string(options.iterations);
    if (overrides.gap_tolerance) throw InputError("--gap-tolerance: " + what);
    input_error(src, "/stop/gap_tolerance", what);
  }
  std::string why;
  if (!options.IsValid(&why)) throw InputError(src + ": " + why);
  return options;
}

Composition compose(const Registry& registry, const json& doc, const std::string& source, const fs::path& base_dir,
                    const Overrides& overrides) {
  const std::string src = source.empty() ? std::string("<input>") : source;
  if (!doc.is_object())
    throw InputError(src + ": expected an object at the top level, got " + article(doc.type_name()) + " " +
                     doc.type_name());
  // An experiment file (scfw compare's input) names its methods and seeds; the unknown-key
  // message would send its author looking for a typo.
  for (const char* key : {"methods", "seeds"})
    if (doc.contains(key))
      input_error(src, child("", key),
                  "an experiment file's key: `scfw compare` runs experiment files (scfw.compare in Python); "
                  "`scfw run` takes a problem file, without \"methods\" or \"seeds\"");
  for (const auto& [key, v] : doc.items()) {
    if (std::find(kTopLevelKeys.begin(), kTopLevelKeys.end(), key) != kTopLevelKeys.end()) continue;
    const std::string guess = did_you_mean(key, kTopLevelKeys);
    input_error(src, child("", diagnostics::excerpt(key)),
                guess.empty() ? "unknown key; expected one of " + quoted_list(kTopLevelKeys)
                              : "unknown key; did you mean \"" + guess + "\"?");
  }
  const std::string name = read_name(doc, source, src);
  SolverOptions options = read_options(doc, source, overrides);

  // Validate every block before any factory runs: a typo in the schedule is reported before an
  // oracle spends seconds reading its data.
  const ProblemBlocks problem_blocks = resolve_problem(registry, doc, src);
  const MethodBlocks method_blocks =
      resolve_method(registry, MethodBlock{find_block(doc, "tracker"), "/tracker"},
                     MethodBlock{find_block(doc, "schedule"), "/schedule"}, MethodBlock{find_block(doc, "glmo"), "/glmo"},
                     src);

  Composition c;
  c.problem = build_problem(problem_blocks, source, name, base_dir, overrides.memory ? &*overrides.memory : nullptr,
                            overrides.shard, overrides.arrays);
  if (options.gap_tolerance > 0 && !c.problem.oracle->capabilities().has(Capability::Exact)) {
    const std::string what = "the oracle " + problem_blocks.oracle.component->info.name +
                             " has no exact evaluation, so no gap is ever computed and a gap tolerance cannot stop the run";
    if (overrides.gap_tolerance) throw InputError("--gap-tolerance: " + what);
    input_error(src, "/stop/gap_tolerance", what);
  }
  c.method = build_method(registry, c.problem, method_blocks, src);
  c.options = std::move(options);
  return c;
}

Composition load_problem(const Registry& registry, const fs::path& file, const Overrides& overrides) {
  const json doc = read_json_file(file);
  return compose(registry, doc, file.string(), file.parent_path(), overrides);
}

}  // namespace scfw
