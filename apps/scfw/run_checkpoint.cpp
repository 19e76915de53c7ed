#include "run_checkpoint.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "scfw/core/problem.hpp"
#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

namespace po = boost::program_options;

namespace scfw_app {

po::options_description checkpoint_options() {
  po::options_description o("checkpoints (docs/checkpoint.md)");
  o.add_options()("checkpoint", po::value<std::string>()->value_name("CK"),
                  "write the run's state to CK (whole, through a temporary and a rename) every --checkpoint-every\n"
                  "iterations and/or --checkpoint-seconds seconds (default: every 60 s), and when the run\n"
                  "is stopped early (Ctrl-C, a time limit)")(
      "checkpoint-every", po::value<std::string>()->value_name("N"), "checkpoint every N iterations")(
      "checkpoint-seconds", po::value<std::string>()->value_name("S"), "checkpoint every S seconds of run time")(
      "resume", po::value<std::string>()->value_name("CK"),
      "continue the run saved in CK (same FILE, plugins and scfw version: else refused); the\n"
      "trace keeps the checkpoint's rows and appends the rest");
  return o;
}

namespace {

long positive_integer(const po::variables_map& vm, const char* option) {
  const std::string& s = vm[option].as<std::string>();
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 1)
    throw std::invalid_argument(std::string("--") + option + ": expected an integer >= 1, got '" + scfw::excerpt(s) + "'");
  return v;
}

double positive_number(const po::variables_map& vm, const char* option) {
  const std::string& s = vm[option].as<std::string>();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || !end || *end != '\0' || !std::isfinite(v) || v <= 0)
    throw std::invalid_argument(std::string("--") + option + ": expected a number > 0, got '" + scfw::excerpt(s) + "'");
  return v;
}

}  // namespace

RunCheckpoint::RunCheckpoint(const po::variables_map& vm, const scfw::Registry& registry,
                             const std::string& problem_file, scfw::Composition& composed, const std::string& version) {
  const bool every = vm.count("checkpoint-every") > 0, seconds = vm.count("checkpoint-seconds") > 0;
  if ((every || seconds) && !vm.count("checkpoint"))
    throw std::invalid_argument(std::string("--") + (every ? "checkpoint-every" : "checkpoint-seconds") +
                                ": needs --checkpoint FILE");
  const long n = every ? positive_integer(vm, "checkpoint-every") : 0;
  const double s = seconds ? positive_number(vm, "checkpoint-seconds") : (every ? 0.0 : 60.0);
  if (!vm.count("checkpoint") && !vm.count("resume")) return;

  const scfw::RunIdentity identity =
      scfw::run_identity(registry, scfw::read_json_file(problem_file), composed, version);
  if (vm.count("resume")) {
    resume_file_ = vm["resume"].as<std::string>();
    resumed_ = std::make_unique<scfw::Checkpoint>(scfw::read_checkpoint(resume_file_));
    scfw::check_identity(resume_file_, resumed_->identity, identity);
    const std::string which = scfw::unsaveable_state(composed);
    if (!which.empty())
      throw scfw::InputError(resume_file_ + ": checkpoint: " + which + " keeps warm state it cannot restore");
    scfw::check_state(resume_file_, resumed_->state, composed);
    scfw::restore_components(resume_file_, *resumed_, composed);
  }
  if (vm.count("checkpoint")) {
    checkpoint_file_ = vm["checkpoint"].as<std::string>();
    writer_ = std::make_unique<scfw::Checkpointer>(composed, identity, checkpoint_file_, n, s);
    if (resumed_) writer_->continue_from(*resumed_);
  }
}

scfw::Callback& RunCheckpoint::continue_trace(const std::string& path) {
  trace_ = std::make_unique<scfw::ResumedTrace>(path, resumed_->trace);
  return *trace_;
}

void RunCheckpoint::attach(scfw::Solver& solver) {
  if (resumed_) solver.resume_from(resumed_->state);
  if (writer_) {
    solver.add_callback(writer_->trace_capture());
    solver.set_state_hook(*writer_);
  }
}

std::string RunCheckpoint::summary() const {
  std::string out;
  if (resumed_)
    out += "resumed         from " + resume_file_ + " at iteration " + std::to_string(resumed_->state.done) + "\n";
  if (writer_)
    out += "checkpoint      " + checkpoint_file_ + " written " + std::to_string(writer_->written()) + " time" +
           (writer_->written() == 1 ? "" : "s") + "\n";
  return out;
}

}  // namespace scfw_app
