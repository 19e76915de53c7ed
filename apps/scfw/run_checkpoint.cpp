#include "run_checkpoint.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

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

scfw::CheckpointRequest checkpoint_request(const po::variables_map& vm) {
  const bool every = vm.count("checkpoint-every") > 0, seconds = vm.count("checkpoint-seconds") > 0;
  if ((every || seconds) && !vm.count("checkpoint"))
    throw std::invalid_argument(std::string("--") + (every ? "checkpoint-every" : "checkpoint-seconds") +
                                ": needs --checkpoint FILE");
  scfw::CheckpointRequest r;
  r.every = every ? positive_integer(vm, "checkpoint-every") : 0;
  r.seconds = seconds ? positive_number(vm, "checkpoint-seconds") : (every ? 0.0 : 60.0);
  if (vm.count("checkpoint")) r.file = vm["checkpoint"].as<std::string>();
  if (vm.count("resume")) r.resume = vm["resume"].as<std::string>();
  return r;
}

}  // namespace scfw_app
