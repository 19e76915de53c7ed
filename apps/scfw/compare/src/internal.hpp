// scfw compare: helpers shared by the stages (not part of the library's interface).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "scfw/core/output_file.hpp"

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

}  // namespace scfw::compare_detail
