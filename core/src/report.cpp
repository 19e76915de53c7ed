#include "scfw/core/report.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <ostream>
#include <string>
#include <system_error>

#include "scfw/core/format.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;

namespace scfw {

namespace {

// 12 significant digits: enough to compare runs, short enough to read.
void put(std::ostream& out, double v) { out << format_number(v); }

// "42s", "3m07s", "2h05m"
std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long s = std::lround(seconds);
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%lds", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  return buf;
}

}  // namespace

void TraceCsv::on_begin(const RunInfo& info) {
  K_ = info.iterations;
  out_ << kTraceHeader << '\n';
  out_.flush();
  check();
}

void TraceCsv::check() {
  if (!error_.empty() || out_) return;
  const int e = errno;
  error_ = path_ + ": cannot write the trace file" + (e ? std::string(" (") + std::strerror(e) + ")" : std::string());
}

void TraceCsv::write_row(long iteration, const double* objective, const double* gap, const double* best_gap,
                         const IterationState& at) {
  std::ostream& out = out_;
  errno = 0;
  out << iteration << ',';
  if (objective) put(out, *objective);
  out << ',';
  if (gap) put(out, *gap);
  out << ',';
  if (best_gap) put(out, *best_gap);
  out << ',';
  put(out, at.seconds);
  out << ',';
  put(out, at.steps.gamma);
  out << ',';
  put(out, at.steps.beta);
  out << ',';
  put(out, at.steps.rho);
  out << ',';
  put(out, at.glmo_value);
  out << ',' << at.glmo_iterations << '\n';
  // Rows already written survive a failure or an interrupt later in the run.
  out.flush();
  last_row_ = iteration;
  check();
}

CallbackResult TraceCsv::on_iteration(const IterationState& s) {
  last_ = s;
  last_.y = nullptr;
  if (!error_.empty()) return CallbackResult::Abort;
  if (!s.has_gap) return CallbackResult::Continue;
  write_row(s.iteration, &s.objective, &s.gap, &s.best_gap, s);
  return error_.empty() ? CallbackResult::Continue : CallbackResult::Abort;
}

void TraceCsv::on_end(const Summary& s) {
  // The final point of a run that ended early, unless its row is there already.
  if (!error_.empty() || s.status == Status::Failed || s.iterations >= K_ || s.iterations < 1 ||
      s.iterations == last_row_ || last_.iteration != s.iterations)
    return;
  const bool gap_here = s.has_gap && s.gap_iteration == s.iterations;
  const bool best_known = s.has_gap && std::isfinite(s.best_gap);
  write_row(s.iterations, gap_here ? &s.final_objective : nullptr, gap_here ? &s.final_gap : nullptr,
            best_known ? &s.best_gap : nullptr, last_);
}

namespace {

/// The time left: to K at the rate so far, or to the time limit when that comes first.
std::string eta(double seconds, long iteration, long iterations, double time_limit) {
  const double to_k = seconds * static_cast<double>(iterations - iteration) / static_cast<double>(iteration);
  if (time_limit > 0 && time_limit - seconds < to_k)
    return format_duration(std::max(0.0, time_limit - seconds)) + " (time limit)";
  return format_duration(to_k);
}

}  // namespace

CallbackResult ProgressLog::on_iteration(const IterationState& s) {
  if (s.has_gap) {
    has_gap_ = true;
    gap_ = s.gap;
    objective_ = s.objective;
  }
  if (s.seconds - last_ < interval_) return CallbackResult::Continue;
  last_ = s.seconds;
  const double pct = s.iterations > 0 ? 100.0 * static_cast<double>(s.iteration) / static_cast<double>(s.iterations) : 0;
  std::string line = "progress: iteration " + std::to_string(s.iteration) + "/" + std::to_string(s.iterations) + " (" +
                     format_as("%.0f", pct) + "%)";
  if (has_gap_) line += ", objective " + format_as("%.6g", objective_) + ", gap " + format_as("%.3e", gap_);
  line += ", elapsed " + format_duration(s.seconds);
  if (s.iteration > 0 && s.iteration < s.iterations)
    line += ", ETA " + eta(s.seconds, s.iteration, s.iterations, time_limit_);
  out_ << line << '\n';
  out_.flush();
  return CallbackResult::Continue;
}

std::unique_ptr<OutputFile> open_trace_file(const fs::path& path) {
  try {
    return std::make_unique<OutputFile>(path, "trace file");
  } catch (const Error& e) {
    throw InputError(e.what());
  }
}

ProgressLine::ProgressLine(std::ostream& out, double min_interval_seconds, double time_limit)
    : out_(out), min_interval_(min_interval_seconds), time_limit_(time_limit) {}

CallbackResult ProgressLine::on_iteration(const IterationState& s) {
  if (finished_) return CallbackResult::Continue;
  iteration_ = s.iteration;
  iterations_ = s.iterations;
  seconds_ = s.seconds;
  if (s.has_gap) {
    has_gap_ = true;
    gap_ = s.gap;
  }
  const auto now = std::chrono::steady_clock::now();
  const bool last = s.iterations > 0 && s.iteration >= s.iterations;
  if (!drawn_ || last || std::chrono::duration<double>(now - last_draw_).count() >= min_interval_) {
    last_draw_ = now;
    draw();
  }
  return CallbackResult::Continue;
}

void ProgressLine::draw() {
  const double pct = iterations_ > 0 ? 100.0 * static_cast<double>(iteration_) / static_cast<double>(iterations_) : 0.0;
  const double rate = seconds_ > 0 ? static_cast<double>(iteration_) / seconds_ : 0.0;
  std::string line = std::to_string(iteration_) + "/" + std::to_string(iterations_) + " (" + format_as("%3.0f", pct) + "%)";
  if (has_gap_) line += "  gap " + format_as("%.3e", gap_);
  if (rate > 0) {
    line += "  " + format_as("%.0f", rate) + " it/s";
    if (iteration_ < iterations_)
      line += "  ETA " + eta(seconds_, iteration_, iterations_, time_limit_);
    else
      line += "  done in " + (seconds_ < 10 ? format_as("%.2f", seconds_) + "s" : format_duration(seconds_));
  }
  // Pad over the remains of a longer previous line.
  const size_t width = line.size();
  if (width < last_width_) line.append(last_width_ - width, ' ');
  last_width_ = width;
  out_ << '\r' << line;
  out_.flush();
  drawn_ = true;
}

void ProgressLine::finish() {
  if (finished_ || !drawn_) return;
  draw();
  out_ << '\n';
  out_.flush();
  finished_ = true;
}

}  // namespace scfw
