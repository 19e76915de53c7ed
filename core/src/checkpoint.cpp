#include "scfw/core/checkpoint.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <system_error>
#include <type_traits>
#include <utility>

#include "scfw/core/output_file.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/data_file.hpp"
#include "scfw/error.hpp"
#include "scfw/state.hpp"

namespace scfw {

namespace {

// Format 2 added the checksum line; a format 1 file has none, so its contents cannot be checked,
// and it is refused (docs/checkpoint.md).
constexpr const char* kMagic = "scfw-checkpoint 2";
constexpr const char* kMagicV1 = "scfw-checkpoint 1";
constexpr const char* kChecksum = "checksum fnv1a64 ";
// The largest checkpoint written or read: 4 GiB (a Jacobian estimate V of 5e8 doubles).
constexpr std::uintmax_t kMaxCheckpointBytes = std::uintmax_t{4} << 30;

std::string hex64(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

/// Where the checksum line of `text` starts (npos when it has none before its end line).
std::size_t checksum_line(const std::string& text) {
  // "...\nchecksum fnv1a64 <hex>\nend\n": the line that ends just before "end".
  if (text.size() < 6 || text.compare(text.size() - 5, 5, "\nend\n") != 0) return std::string::npos;
  const std::size_t line = text.rfind('\n', text.size() - 6);
  const std::size_t start = line == std::string::npos ? 0 : line + 1;
  return text.compare(start, std::strlen(kChecksum), kChecksum) == 0 ? start : std::string::npos;
}
// The blocks of a problem file that determine the iterates, and the settings, in file order.
const char* const kProblemKeys[] = {"oracle", "outer", "domain", "glmo", "tracker", "schedule", "seed", "iterations"};

std::string role_plugin(const PluginNames& names, const std::string& role) {
  for (const auto& [r, n] : names)
    if (r == role) return n;
  return "?";
}

/// The role's component, with its name for messages.
struct StatefulPart {
  const char* role;
  Stateful* object;
  std::string name;
};

std::vector<StatefulPart> stateful_parts(Composition& c) {
  const std::string glmo = role_plugin(c.method.plugins, "glmo");
  std::vector<StatefulPart> parts{{"glmo", c.method.glmo.get(), "glmo " + glmo},
                              {"gap_glmo", c.method.gap_glmo.get(), "glmo " + glmo + " (gap reports)"},
                              {"domain", c.problem.domain.get(), "domain " + role_plugin(c.problem.plugins, "domain")},
                              {"tracker", c.method.tracker.get(), "tracker " + role_plugin(c.method.plugins, "tracker")}};
  return parts;
}

bool saves_state(const Stateful* o) { return o->capabilities().has(Capability::SavedState); }

std::string save_of(const Stateful* o) {
  StateWriter w;
  o->save_state(w);
  return w.text();
}

std::string* component_text(Checkpoint& ck, const std::string& role) {
  if (role == "glmo") return &ck.algorithm_glmo;
  if (role == "gap_glmo") return &ck.gap_glmo;
  if (role == "domain") return &ck.domain;
  return &ck.tracker;
}

/// Writes the trace header only when asked (a resumed run's capture already holds it).
class TraceCapture final : public Callback {
 public:
  explicit TraceCapture(std::ostream& out) : trace_(out) {}
  void on_begin(const RunInfo& info) override {
    if (header_) trace_.on_begin(info);
  }
  CallbackResult on_iteration(const IterationState& s) override { return trace_.on_iteration(s); }
  bool header_ = true;

 private:
  TraceCsv trace_;
};

}  // namespace

namespace {

/// The fingerprint of a passed array: its kind and shape, then its values (and a CSR matrix's
/// structure, indices as 64-bit integers), hashed as bytes.
RunIdentity::DataFile array_fingerprint(const HostArray& a) {
  RunIdentity::DataFile f{a.name, 0, fnv1a64({})};
  const auto add = [&f](const void* p, std::size_t bytes) {
    f.hash = fnv1a64(std::string_view(static_cast<const char*>(p), bytes), f.hash);
    f.size += bytes;
  };
  const auto add_int = [&add](std::int64_t v) { add(&v, sizeof v); };
  if (a.is_dense()) {
    const DenseView& v = a.dense;
    add_int(v.vector ? 1 : 2);
    add_int(v.rows);
    add_int(v.cols);
    add(v.data, static_cast<std::size_t>(v.size()) * sizeof(double));
  } else {
    const CsrView& v = a.csr;
    add_int(3);
    add_int(v.rows);
    add_int(v.cols);
    for (std::int64_t r = 0; r <= v.rows; ++r) add_int(v.ptr(r));
    for (std::int64_t k = 0, n = v.nnz(); k < n; ++k) add_int(v.index(k));
    add(v.values, static_cast<std::size_t>(v.nnz()) * sizeof(double));
  }
  return f;
}

}  // namespace

RunIdentity run_identity(const Registry& registry, const nlohmann::json& doc, const Composition& c,
                         const std::string& scfw_version) {
  RunIdentity id;
  id.scfw_version = scfw_version;
  id.problem = nlohmann::json::object();
  for (const char* key : kProblemKeys) {
    if (std::string(key) == "seed") id.problem[key] = c.options.seed;
    else if (std::string(key) == "iterations") id.problem[key] = c.options.iterations;
    else id.problem[key] = doc.is_object() && doc.contains(key) ? doc[key] : nlohmann::json(nullptr);
  }
  for (const auto& [role, name] : c.plugins()) {
    RunIdentity::Plugin p{role, name, "?", "?"};
    for (const auto& comp : registry.components())
      if (to_string(comp.info.kind) == role && comp.info.name == name) {
        p.library = comp.library_name;
        p.version = comp.library_version;
      }
    if (name == "product") p.library = p.version = "host";  // composed by the host, not a plugin
    id.plugins.push_back(std::move(p));
  }
  for (const std::string& path : c.problem.data_files) {
    RunIdentity::DataFile f{path, 0, fnv1a64({})};
    check_data_path(path);
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open file" + open_failure(errno));
    std::vector<char> buf(1 << 16);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
      const auto got = static_cast<std::size_t>(in.gcount());
      f.hash = fnv1a64(std::string_view(buf.data(), got), f.hash);
      f.size += got;
    }
    if (in.bad()) throw InputError(path + ": cannot read file");
    id.data.push_back(std::move(f));
  }
  if (c.problem.arrays)
    for (const HostArray& a : c.problem.arrays->all()) id.arrays.push_back(array_fingerprint(a));
  return id;
}

std::string unsaveable_state(const Composition& c) {
  std::string out;
  for (const StatefulPart& p : stateful_parts(const_cast<Composition&>(c))) {
    if (!p.object || !p.object->capabilities().has(Capability::UnsavedState)) continue;
    if (std::string(p.role) == "gap_glmo") continue;  // named with the algorithm's GLMO
    out += (out.empty() ? "" : ", ") + p.name;
  }
  return out;
}

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h) {
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string reseal_checkpoint(const std::string& text) {
  const std::size_t at = checksum_line(text);
  if (at == std::string::npos) return text;
  const std::string body = text.substr(0, at);
  return body + kChecksum + hex64(fnv1a64(body)) + "\nend\n";
}

namespace {

/// The text blocks that end a checkpoint, in the order of the file: the GLMO's description, the
/// trace, and the components' saved states. (`Ck` is Checkpoint, const when writing.)
template <class Ck>
auto text_blocks(Ck& ck) {
  using Text = std::conditional_t<std::is_const_v<Ck>, const std::string, std::string>;
  return std::array<std::pair<const char*, Text*>, 6>{{{"glmo_solver", &ck.state.glmo_solver},
                                                      {"trace", &ck.trace},
                                                      {"state_glmo", &ck.algorithm_glmo},
                                                      {"state_gap_glmo", &ck.gap_glmo},
                                                      {"state_domain", &ck.domain},
                                                      {"state_tracker", &ck.tracker}}};
}

}  // namespace

std::string checkpoint_text(const Checkpoint& ck) {
  StateWriter w;
  const LoopState& s = ck.state;
  w.put("iteration", static_cast<std::int64_t>(s.done));
  w.put("y", s.y);
  w.put("y_prev", s.y_prev);
  w.put("z", s.z);
  {
    // y as factors (factors.hpp): the shape (0 x 0 when not kept) and the compressions so far,
    // then the columns in use.
    std::vector<double> coef, u, v;
    s.factors.save(coef, u, v);
    w.put("factor_shape", std::vector<std::int64_t>{s.factors.rows(), s.factors.cols(), s.factors.compressions()});
    w.put("factor_coef", coef);
    w.put("factor_u", u);
    w.put("factor_v", v);
  }
  w.put("V_rows", static_cast<std::int64_t>(s.V.rows()));
  w.put("V_cols", static_cast<std::int64_t>(s.V.cols()));
  if (s.V.is_sparse()) {
    // A sparse V: its pattern (checked against the oracle's on resume) and its values.
    w.put("V_row_start", s.V.pattern().row_start());
    w.put("V_col", s.V.pattern().col());
    w.put_raw("V_values", "f64", static_cast<std::size_t>(s.V.size()), s.V.data(),
              static_cast<std::size_t>(s.V.size()) * sizeof(double));
  } else {
    w.put("V", s.V.dense());
  }
  std::ostringstream rng;
  rng << s.rng;
  w.put("rng", rng.str());
  w.put("best_gap", s.best_gap);
  w.put("has_gap", static_cast<std::uint8_t>(s.has_gap));
  w.put("final_gap", s.final_gap);
  w.put("final_objective", s.final_objective);
  w.put("gap_slack", s.gap_slack);
  w.put("glmo_iterations", static_cast<std::int64_t>(s.glmo_iterations));
  w.put("glmo_max_iterations", static_cast<std::int64_t>(s.glmo_max_iterations));
  w.put("times", std::vector<double>{s.times.oracle, s.times.tracker, s.times.glmo, s.times.update, s.times.gap});
  w.put("calls", std::vector<std::int64_t>{s.calls.draws, s.calls.values, s.calls.jacobians, s.calls.exact,
                                           s.calls.hessian, s.calls.glmo_solves, s.calls.outer_values});
  w.put("oracle_seconds", s.calls.oracle_seconds);
  w.put("seconds", s.seconds);
  for (const auto& [name, text] : text_blocks(ck)) w.put(name, *text);

  std::string text = std::string(kMagic) + "\n";
  text += "scfw " + ck.identity.scfw_version + "\n";
  text += "problem " + ck.identity.problem.dump() + "\n";
  for (const auto& p : ck.identity.plugins)
    text += "plugin " + p.role + " " + p.library + " " + p.version + " " + p.name + "\n";  // a name may have spaces
  for (const auto& f : ck.identity.data)  // the path last: it may have spaces
    text += "data " + std::to_string(f.size) + " " + hex64(f.hash) + " " + f.path + "\n";
  for (const auto& a : ck.identity.arrays)  // the name last: it may have spaces
    text += "array " + std::to_string(a.size) + " " + hex64(a.hash) + " " + a.path + "\n";
  text += "state\n" + w.text();
  // The checksum covers every byte before its line: header, loop state and plugin states.
  text += kChecksum + hex64(fnv1a64(text)) + "\nend\n";
  return text;
}

void write_checkpoint(const std::filesystem::path& file, const Checkpoint& ck) {
  const std::string text = checkpoint_text(ck);
  if (text.size() > kMaxCheckpointBytes)  // it could not be resumed
    throw Error(file.string() + ": the checkpoint would have " + std::to_string(text.size()) +
                " bytes; checkpoints are limited to " + std::to_string(kMaxCheckpointBytes) + " bytes (4 GiB)");
  write_output_file(file, "checkpoint", [&](std::ostream& out) { out << text; });
}

Checkpoint read_checkpoint(const std::filesystem::path& file) {
  const std::string where = file.string() + ": ";
  check_data_path(file.string());  // a FIFO or a device would be read without end
  check_file_size(file.string(), kMaxCheckpointBytes, "checkpoints are");
  errno = 0;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(where + "cannot open checkpoint" + open_failure(errno));
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_checkpoint(all, file.string());
}

Checkpoint parse_checkpoint(const std::string& all, const std::string& file) {
  const std::string where = file + ": ";
  if (all.rfind(std::string(kMagicV1) + "\n", 0) == 0)
    throw InputError(where + "checkpoint format 1 (an earlier scfw, without a checksum) is not resumed; "
                             "run again from the start to write a format 2 checkpoint");
  if (all.rfind(std::string(kMagic) + "\n", 0) != 0) throw InputError(where + "not an scfw checkpoint");
  if (all.size() < 4 || all.compare(all.size() - 4, 4, "end\n") != 0)
    throw InputError(where + "truncated checkpoint (no end line)");
  // The checksum first: nothing of a damaged file is read.
  const std::size_t sum_at = checksum_line(all);
  if (sum_at == std::string::npos) throw InputError(where + "checkpoint is damaged: no checksum line before its end");
  const std::string recorded = all.substr(sum_at + std::strlen(kChecksum), all.size() - 5 - sum_at - std::strlen(kChecksum));
  const std::string computed = hex64(fnv1a64(std::string_view(all).substr(0, sum_at)));
  if (recorded != computed)
    throw InputError(where + "checkpoint is damaged: checksum " + excerpt(recorded) + " recorded, " + computed +
                     " computed over its contents");
  Checkpoint ck;
  size_t pos = std::string(kMagic).size() + 1;
  auto next_line = [&]() -> std::string {
    const size_t eol = all.find('\n', pos);
    std::string line = all.substr(pos, eol - pos);
    pos = eol + 1;
    return line;
  };
  for (;;) {
    if (pos >= sum_at) throw InputError(where + "malformed checkpoint (no state)");
    const std::string line = next_line();
    if (line == "state") break;
    // Versions, plugin names and data paths are quoted in messages: never a control character
    // (scfw writes none there: a data path holding one is refused before it is read).
    if (line.rfind("problem ", 0) != 0 && has_control_character(line))
      throw InputError(where + "malformed checkpoint line \"" + excerpt(line) + "\"");
    if (line.rfind("scfw ", 0) == 0) {
      ck.identity.scfw_version = line.substr(5);
    } else if (line.rfind("problem ", 0) == 0) {
      try {
        // Bounded nesting: a problem line nested millions deep would exhaust the stack.
        ck.identity.problem = parse_json_text(std::string_view(line).substr(8), where.substr(0, where.size() - 2));
      } catch (const std::exception&) {
        throw InputError(where + "malformed checkpoint (problem line)");
      }
    } else if (line.rfind("plugin ", 0) == 0) {
      std::istringstream is(line.substr(7));
      RunIdentity::Plugin p;
      if (!(is >> p.role >> p.library >> p.version) || !std::getline(is >> std::ws, p.name) || p.name.empty())
        throw InputError(where + "malformed plugin line");
      ck.identity.plugins.push_back(std::move(p));
    } else if (line.rfind("data ", 0) == 0 || line.rfind("array ", 0) == 0) {
      const std::string kind = line.substr(0, line.find(' '));  // "data": a file, "array": a passed array
      std::istringstream is(line.substr(kind.size() + 1));
      RunIdentity::DataFile f;
      std::string hash;
      char* end = nullptr;
      if (!(is >> f.size >> hash) || hash.size() != 16 || !std::getline(is >> std::ws, f.path) || f.path.empty() ||
          (f.hash = std::strtoull(hash.c_str(), &end, 16), end != hash.c_str() + 16))
        throw InputError(where + "malformed " + kind + " line \"" + excerpt(line) + "\"");
      (kind == "data" ? ck.identity.data : ck.identity.arrays).push_back(std::move(f));
    } else {
      throw InputError(where + "malformed checkpoint line \"" + excerpt(line) + "\"");
    }
  }
  // The blocks, each checked against its declared count and type before it is decoded
  // (StateReader::get_raw), and the loop state against what a run can hold.
  StateReader r(all.substr(pos, sum_at - pos), file);
  try {
    LoopState& s = ck.state;
    std::int64_t i64 = 0, rows = 0, cols = 0;
    r.get("iteration", i64);
    r.check_range("iteration", std::vector<std::int64_t>{i64}, std::int64_t{1}, std::int64_t{1} << 40);
    s.done = static_cast<long>(i64);
    const auto vec = [&](const char* name, Vec& v) {
      std::vector<double> values;
      r.get(name, values);
      r.check_finite(name, values);
      v = Eigen::Map<const Vec>(values.data(), static_cast<Eigen::Index>(values.size()));
    };
    vec("y", s.y);
    vec("y_prev", s.y_prev);
    vec("z", s.z);
    {
      std::vector<std::int64_t> shape;
      std::vector<double> coef, u, v;
      r.get("factor_shape", shape);
      if (shape.size() != 3) r.refuse("factor_shape", "expected 3 numbers (rows, cols, compressions)");
      r.check_range("factor_shape", shape, std::int64_t{0}, std::int64_t{1} << 30);
      r.get("factor_coef", coef);
      r.get("factor_u", u);
      r.get("factor_v", v);
      r.check_finite("factor_coef", coef);
      r.check_finite("factor_u", u);
      r.check_finite("factor_v", v);
      s.factors = Factors();
      if (shape[0] > 0 || shape[1] > 0) {
        if (shape[0] < 1 || shape[1] < 1) r.refuse("factor_shape", "a shape of 0 in one direction only");
        s.factors = Factors(static_cast<int>(shape[0]), static_cast<int>(shape[1]));
        if (!s.factors.load(static_cast<int>(shape[0]), static_cast<int>(shape[1]), coef, u, v, static_cast<long>(shape[2])))
          r.refuse("factor_coef", "the factors' sizes do not fit a " + std::to_string(shape[0]) + " x " +
                                      std::to_string(shape[1]) + " matrix");
      }
    }
    r.get("V_rows", rows);
    r.check_range("V_rows", std::vector<std::int64_t>{rows}, std::int64_t{0}, std::int64_t{1} << 24);
    r.get("V_cols", cols);
    r.check_range("V_cols", std::vector<std::int64_t>{cols}, std::int64_t{0}, std::int64_t{1} << 30);
    if (r.next_name() == "V_row_start") {
      std::vector<std::int64_t> row_start;
      std::vector<int> col;
      std::vector<double> values;
      r.get("V_row_start", row_start);
      r.get("V_col", col);
      r.get("V_values", values);
      r.check_finite("V_values", values);
      try {
        s.V = Jacobian(std::make_shared<const JacobianPattern>(static_cast<int>(rows), static_cast<int>(cols),
                                                               std::move(row_start), std::move(col)));
      } catch (const Error& e) {
        r.refuse("V_col", e.what());
      }
      r.check_count("V_values", values.size(), static_cast<std::size_t>(s.V.size()));
      s.V.values() = Eigen::Map<const Vec>(values.data(), static_cast<Eigen::Index>(values.size()));
    } else {
      // Read whole before V is allocated: its size is then bounded by the file's.
      std::vector<double> values;
      r.get("V", values);
      r.check_count("V", values.size(), static_cast<std::size_t>(rows * cols));
      r.check_finite("V", values);
      s.V = Jacobian(static_cast<int>(rows), static_cast<int>(cols));
      if (!values.empty()) std::memcpy(s.V.dense().data(), values.data(), values.size() * sizeof(double));
    }
    std::string rng;
    r.get("rng", rng);
    std::istringstream rs(rng);
    rs >> s.rng;
    if (!rs) r.refuse("rng", "not the state of a random engine");
    r.get("best_gap", s.best_gap);
    std::uint8_t has_gap = 0;
    r.get("has_gap", has_gap);
    r.check_range("has_gap", std::vector<std::uint8_t>{has_gap}, std::uint8_t{0}, std::uint8_t{1});
    s.has_gap = has_gap != 0;
    r.get("final_gap", s.final_gap);
    r.get("final_objective", s.final_objective);
    r.get("gap_slack", s.gap_slack);
    r.get("glmo_iterations", i64);
    r.check_range("glmo_iterations", std::vector<std::int64_t>{i64}, std::int64_t{0}, std::numeric_limits<std::int64_t>::max());
    s.glmo_iterations = static_cast<long>(i64);
    r.get("glmo_max_iterations", i64);
    r.check_range("glmo_max_iterations", std::vector<std::int64_t>{i64}, std::int64_t{0}, std::numeric_limits<std::int64_t>::max());
    s.glmo_max_iterations = static_cast<long>(i64);
    std::vector<double> t(5);
    r.get_same_size("times", t);
    r.check_range("times", t, 0.0, std::numeric_limits<double>::max());
    s.times = PhaseTimes{t[0], t[1], t[2], t[3], t[4]};
    std::vector<std::int64_t> c(7);
    r.get_same_size("calls", c);
    r.check_range("calls", c, std::int64_t{0}, std::numeric_limits<std::int64_t>::max());
    s.calls.draws = c[0];
    s.calls.values = c[1];
    s.calls.jacobians = c[2];
    s.calls.exact = c[3];
    s.calls.hessian = c[4];
    s.calls.glmo_solves = c[5];
    s.calls.outer_values = c[6];
    r.get("oracle_seconds", s.calls.oracle_seconds);
    r.check_range("oracle_seconds", std::vector<double>{s.calls.oracle_seconds}, 0.0, std::numeric_limits<double>::max());
    r.get("seconds", s.seconds);
    r.check_range("seconds", std::vector<double>{s.seconds}, 0.0, std::numeric_limits<double>::max());
    for (const auto& [name, text] : text_blocks(ck)) r.get(name, *text);
    r.expect_end();
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw InputError(e.what());  // a StateReader's message: "<file>: block <name>: ..."
  } catch (const std::exception& e) {
    throw InputError(where + "malformed checkpoint (" + e.what() + ")");
  }
  return ck;
}

void check_identity(const std::string& file, const RunIdentity& saved, const RunIdentity& now) {
  const std::string where = file + ": checkpoint: ";
  if (saved.scfw_version != now.scfw_version)
    throw InputError(where + "scfw version " + excerpt(saved.scfw_version) + " in the checkpoint, " + now.scfw_version +
                     " running");
  std::string differs;
  for (const char* key : kProblemKeys) {
    const nlohmann::json a = saved.problem.contains(key) ? saved.problem[key] : nlohmann::json(nullptr);
    const nlohmann::json b = now.problem.contains(key) ? now.problem[key] : nlohmann::json(nullptr);
    if (a != b) differs += (differs.empty() ? "" : ", ") + std::string(key);
  }
  if (!differs.empty()) throw InputError(where + "problem differs (" + differs + ")");
  for (const auto& p : saved.plugins) {
    const RunIdentity::Plugin* q = nullptr;
    for (const auto& x : now.plugins)
      if (x.role == p.role) q = &x;
    // The saved fields come from the file: quoted through excerpt(), bounded and printable.
    const std::string role = excerpt(p.role), name = excerpt(p.name);
    if (!q) throw InputError(where + "plugin " + role + " " + name + " in the checkpoint, none loaded");
    if (q->name != p.name)
      throw InputError(where + "plugin " + role + " " + name + " in the checkpoint, " + q->name + " loaded");
    if (q->library != p.library)
      throw InputError(where + "plugin " + role + " " + name + " from library " + scfw::excerpt(p.library, 120) +
                       " in the checkpoint, " + q->library + " loaded");
    if (q->version != p.version)
      throw InputError(where + "plugin " + role + " " + name + " version " + excerpt(p.version) + " in the checkpoint, " +
                       q->version + " loaded");
  }
  if (now.plugins.size() != saved.plugins.size())
    throw InputError(where + "the plugin set differs (" + std::to_string(saved.plugins.size()) +
                     " in the checkpoint, " + std::to_string(now.plugins.size()) + " loaded)");
  // The data files in the order the problem read them, named by the path this run read; then
  // the arrays passed in place of files, in the order passed.
  for (const bool arrays : {false, true}) {
    const std::vector<RunIdentity::DataFile>&s = arrays ? saved.arrays : saved.data, &n = arrays ? now.arrays : now.data;
    const std::string taken = arrays ? " differs from the one passed when the checkpoint was taken"
                                     : " differs from the one read when the checkpoint was taken";
    for (std::size_t i = 0; i < s.size() && i < n.size(); ++i) {
      const RunIdentity::DataFile &a = s[i], &b = n[i];
      const std::string what = arrays ? "array \"" + b.path + "\"" : "data file " + b.path;
      if (arrays && a.path != b.path)
        throw InputError(where + "array \"" + a.path + "\" was passed when the checkpoint was taken, \"" + b.path + "\" now");
      if (a.size != b.size)
        throw InputError(where + what + taken + " (" + std::to_string(a.size) + " bytes then, " + std::to_string(b.size) +
                         " now)");
      if (a.hash != b.hash)
        throw InputError(where + what + taken + " (same size, other contents: FNV-1a " + hex64(a.hash) + " then, " +
                         hex64(b.hash) + " now)");
    }
    if (s.size() != n.size())
      throw InputError(where + (arrays ? std::to_string(s.size()) + " array(s) were passed" :
                                         "the problem read " + std::to_string(s.size()) + " data file(s)") +
                       " when the checkpoint was taken, " + std::to_string(n.size()) + " now");
  }
}

void check_state(const std::string& file, const LoopState& r, const Composition& c) {
  const std::string where = file + ": checkpoint: the saved ";
  const long d = c.problem.dim(), n = c.problem.outputs(), K = c.options.iterations;
  if (r.y.size() != d || r.y_prev.size() != d || r.z.size() != n || r.V.rows() != n || r.V.cols() != d)
    throw InputError(where + "state has other dimensions than the problem (d = " + std::to_string(d) +
                     ", n = " + std::to_string(n) + ")");
  if (c.problem.oracle) {
    const Jacobian V = make_jacobian(*c.problem.oracle);
    if (!r.V.same_structure(V))
      throw InputError(where + "V is " + (r.V.is_sparse() ? "sparse" : "dense") +
                       (r.V.is_sparse() && V.is_sparse() ? " in another pattern than the oracle's Jacobian"
                                                         : V.is_sparse() ? " but the oracle's Jacobian is sparse"
                                                                         : " but the oracle's Jacobian is dense"));
  }
  if (r.done < 1 || r.done > K)
    throw InputError(where + "state is at iteration " + std::to_string(r.done) + ", outside 1.." + std::to_string(K));
  if (r.factors.active() && c.problem.oracle) {
    const auto entries = c.problem.oracle->matrix_entries();
    if (!entries || entries->rows != r.factors.rows() || entries->cols != r.factors.cols())
      throw InputError(where + "factors are of a " + std::to_string(r.factors.rows()) + " x " + std::to_string(r.factors.cols()) +
                       " matrix, which is not the oracle's");
  }
}

Checkpoint capture_checkpoint(Composition& c, const LoopState& state) {
  Checkpoint ck;
  ck.state = state;
  for (const StatefulPart& p : stateful_parts(c))
    if (p.object && saves_state(p.object)) *component_text(ck, p.role) = save_of(p.object);
  return ck;
}

void restore_components(const std::string& file, const Checkpoint& ck_in, Composition& c) {
  Checkpoint& ck = const_cast<Checkpoint&>(ck_in);
  for (const StatefulPart& p : stateful_parts(c)) {
    if (!p.object) continue;
    const std::string& text = *component_text(ck, p.role);
    if (!saves_state(p.object)) {
      if (!text.empty())
        throw InputError(file + ": checkpoint: " + p.name + " has saved state but keeps none now");
      continue;
    }
    StateReader r(text, file + ": " + p.name);
    try {
      p.object->load_state(r);
      r.expect_end();
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      throw InputError(e.what());
    }
  }
}

Checkpointer::Checkpointer(Composition& c, RunIdentity identity, std::filesystem::path file, long every,
                           double seconds)
    : c_(c), identity_(std::move(identity)), file_(std::move(file)), every_(every), seconds_(seconds),
      capture_(std::make_unique<TraceCapture>(trace_)) {
  const std::string which = unsaveable_state(c);
  if (!which.empty())
    throw InputError("--checkpoint: " + which + " keeps warm state it cannot save, so a resumed run would not be exact");
}

void Checkpointer::continue_from(const Checkpoint& resumed) {
  last_seconds_ = resumed.state.seconds;
  trace_.str(resumed.trace);
  trace_.seekp(0, std::ios_base::end);
  static_cast<TraceCapture&>(*capture_).header_ = false;
}

bool Checkpointer::due(long done, double seconds, bool stopping) {
  if (stopping) return true;
  if (every_ > 0 && done % every_ == 0) return true;
  return seconds_ > 0 && seconds - last_seconds_ >= seconds_;
}

void Checkpointer::save(const LoopState& state) {
  Checkpoint ck;
  ck.identity = identity_;
  ck.state = state;
  ck.trace = trace_.str();
  for (const StatefulPart& p : stateful_parts(c_))
    if (p.object && saves_state(p.object)) *component_text(ck, p.role) = save_of(p.object);
  write_checkpoint(file_, ck);
  last_seconds_ = state.seconds;
  ++written_;
}

ResumedTrace::ResumedTrace(const std::filesystem::path& path, const std::string& saved_trace) {
  file_ = open_trace_file(path);
  if (saved_trace.empty())
    *file_ << kTraceHeader << '\n';
  else
    *file_ << saved_trace;
  file_->flush();
  trace_ = std::make_unique<TraceCsv>(*file_);
}

void ResumedTrace::finish() {
  file_->close();
  if (trace_->failed()) throw Error(trace_->error());
  if (file_->fail()) throw Error(file_->target().string() + ": cannot write the trace file" + file_->reason());
}

}  // namespace scfw
