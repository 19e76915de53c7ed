// Fuzz target: a checkpoint file (docs/checkpoint.md) through what `scfw run --resume` does with
// it. parse_checkpoint: the format line, the checksum, every block against its declared count and
// type, the loop state's values. An input whose checksum line is wrong is read as it is (refused
// as damaged) and then with its checksum made right (reseal_checkpoint), so that mutations reach
// the blocks behind it. When it parses and its problem is small, the problem the checkpoint names
// is composed (data files from the work folder), the identity compared, every plugin state loaded
// into the fresh objects (restore_components) and the loop state checked against the problem
// (check_state); then two iterations run from there, so that a state that passed the
// checks is also one the plugins can work from.
//
// Verdict: success, an scfw::Error (a plugin failing at run time: exit 1), or an InputError whose
// message is one line starting with the checkpoint's path (or, for the composed problem, the
// messages the other targets accept), at most kMaxMessageBytes bytes besides the path.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"
#include "scfw/core/checkpoint.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/core/solver.hpp"
#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

namespace {

[[noreturn]] void finding(const std::string& why, const std::string& what) {
  std::fprintf(stderr, "fuzz_checkpoint: %s: %s\n", why.c_str(), what.c_str());
  std::abort();
}

void check_checkpoint_message(const std::string& path, const std::string& what) {
  if (scfw::has_control_character(what)) finding("the message holds a control character", what);
  if (what.compare(0, path.size() + 2, path + ": ") != 0) finding("the message does not start with the checkpoint's path", what);
  if (what.size() - path.size() > scfw_fuzz::kMaxMessageBytes) finding("the message is too long", what);
}

/// Reads the checkpoint text; on success, resumes its problem from it. Returns normally on
/// success and on scfw errors with a good message; aborts otherwise.
void resume(const std::string& path, const std::string& text) {
  scfw::Checkpoint ck;
  try {
    ck = scfw::parse_checkpoint(text, path);
  } catch (const scfw::InputError& e) {
    check_checkpoint_message(path, e.what());
    return;
  } catch (const std::exception& e) {
    finding(std::string("parse_checkpoint threw a non-InputError ") + typeid(e).name(), e.what());
  }
  // The problem it names: the blocks as saved, seed and K (small: two iterations are run).
  const nlohmann::json& saved = ck.identity.problem;
  if (!saved.is_object()) return;  // check_identity refuses it against any run
  nlohmann::json doc = nlohmann::json::object();
  for (const auto& [key, value] : saved.items())
    if (!value.is_null()) doc[key] = value;
  doc["report"] = {{"every", 0}};
  const auto oracle = doc.find("oracle");
  if (oracle == doc.end() || !oracle->is_object()) return;
  const std::string source = (scfw_fuzz::work_dir() / "problem.json").string();
  scfw_fuzz::check("checkpoint", {"*problem.json"}, [&] {
    // Small problems only: composing grows with d and n (the GLMO's LP).
    scfw::Problem probe = scfw::compose_problem(scfw_fuzz::registry(), doc, source, scfw_fuzz::work_dir());
    if (probe.dim() > scfw_fuzz::kMaxMethodDim || probe.outputs() > scfw_fuzz::kMaxMethodDim) return;
    scfw::Composition c = scfw::compose(scfw_fuzz::registry(), doc, source, scfw_fuzz::work_dir());
    if (c.options.iterations > 1000000) return;
    try {
      scfw::check_identity(path, ck.identity, scfw::run_identity(scfw_fuzz::registry(), doc, c, ck.identity.scfw_version));
      scfw::check_state(path, ck.state, c);
      scfw::restore_components(path, ck, c);
      scfw::Solver solver(c, c.options);
      solver.resume_from(ck.state);
      // Two more iterations at most, from the loaded state.
      solver.add_callback([done = ck.state.done](const scfw::IterationState& s) { return s.iteration < done + 2; });
      (void)solver.run();
    } catch (const scfw::InputError& e) {
      check_checkpoint_message(path, e.what());
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = (scfw_fuzz::work_dir() / "fuzzed.ckpt").string();
  const std::string text(reinterpret_cast<const char*>(data), size);
  resume(path, text);
  const std::string sealed = scfw::reseal_checkpoint(text);
  if (sealed != text) resume(path, sealed);
  return 0;
}
