// scfw compare: helpers shared by the stages (not part of the library's interface).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "scfw/compare/compare.hpp"
#include "scfw/core/output_file.hpp"
#include "scfw/core/registry.hpp"

namespace scfw::compare_detail {

/// Renames a complete table, plot data or script into place (output_file.hpp); throws Error
/// "<path>: cannot write the <what> (<reason>)" when a write failed.
void finish(OutputFile& file);

/// A number as written to the CSV files: %.17g (round-trips a double), "nan", "inf", "-inf".
std::string num(double v);
/// A number for the table and plot keys ("n/a" for NaN).
std::string short_num(double v, const char* fmt = "%.3g");
/// A label as a file name: letters, digits, '-' and '.' kept, anything else '_'.
std::string safe_name(const std::string& label);
/// A string for a gnuplot script: double-quoted, with each '"' and backslash escaped.
std::string gp_quote(const std::string& s);
/// A title or key label for gnuplot's enhanced-text terminals: quoted as gp_quote does, and each
/// character that enhanced text treats as markup (& ^ _ @ ~ { }) preceded by an escaped backslash,
/// so "S&P 500" or "x_1" print as written (a bare & swallowed the next letter).
std::string gp_text(const std::string& s);
/// The line colours of the plots, one per method or run in turn.
extern const char* const kColours[10];
/// The gnuplot commands for a y axis showing `values` (NaN and infinities ignored): linear with
/// automatic tics unless log_scale_helps(values, log_ratio) (trace_plot.hpp); logarithmic
/// otherwise, its range the values' with a margin, labelled at each power of ten over two decades
/// or more and at 1-2-5 steps (or finer) under two decades, where powers of ten leave one label
/// or two.
std::string gp_y_axis(const std::vector<double>& values, double log_ratio);
/// The tic labels of a logarithmic `axis` ('x' or 'y') over [from, to], as gp_y_axis sets them.
std::string gp_log_tics(char axis, double from, double to);
/// A trace CSV's iteration column and column `column` (1: objective, 2: gap), the rows where that
/// field is empty left out.
std::vector<std::pair<long, double>> read_trace_column(const std::filesystem::path& file, int column);

/// The libraries that compute a run, as one checksum: FNV-1a over the bytes of every plugin
/// library the registry loaded and of the scfw shared libraries mapped in this process (core,
/// SDK), in path order, each after its file name ("fnv1a64:<16 hex digits>"; "" when one cannot
/// be read). Two builds with any difference in those files give different hashes (up to the
/// checksum's collisions); a rebuild of the same sources usually gives the same files.
std::string libraries_hash(const Registry& registry);

/// The data files a problem read while it was composed (Problem::data_files), as a summary
/// records them: [{"path": canonical path, "bytes": size, "fnv1a64": 16 hex digits}, ...] in the
/// order first read. A file that cannot be read again gets "fnv1a64": "" (no run resumes on it).
nlohmann::json data_fingerprints(const std::vector<std::string>& files);

/// --resume: whether the run whose summary and trace are at these paths finished under this
/// experiment, these libraries and this data — its summary's "experiment_run" equals `document`
/// (the run's whole problem document, run_document()), its "libraries_hash" equals `hash`, its
/// "data_files" equal data() (data_fingerprints() of the files the problem reads now; called only
/// once the other fields match), and it ended at its iteration limit with a gap — and if so, r's
/// results read back from the summary (the numbers as JSON wrote them: doubles round-trip). A
/// missing, damaged or other summary: false, and the run is run again.
bool read_finished_run(const std::filesystem::path& summary_file, const std::filesystem::path& trace_file,
                       const nlohmann::json& document, const std::string& hash,
                       const std::function<const nlohmann::json&()>& data, CompareRun& r);

}  // namespace scfw::compare_detail
