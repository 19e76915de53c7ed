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
/// A trace CSV's iteration and gap columns.
std::vector<std::pair<long, double>> read_trace_gaps(const std::filesystem::path& file);

}  // namespace scfw::compare_detail
