// `scfw plot`: the objective and the generalized Frank-Wolfe gap of one or several runs against
// the iteration, read from their trace CSVs (the files `scfw run --trace` and `scfw compare`
// write) and drawn by gnuplot as one PNG or SVG: the objective in the upper panel, the gap in the
// lower one, one colour per run, the key under the plot naming each run by its file's stem.
//
// A trace is read by its header's column names (iteration, objective, gap; the others are
// ignored). A file that is not a trace, lacks one of these columns, has no rows or a field that
// is not a number is refused with one InputError line "<file>: [line N: ]<what>" before anything
// is drawn.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace scfw {

/// One run's trace: the iteration of each row and its objective and gap (NaN where the field is
/// empty, as on the last row of a run whose oracle has no exact evaluation).
struct TraceSeries {
  std::string file;   ///< the path as given
  std::string label;  ///< the key entry: the file's stem, or its path when two stems are equal
  std::vector<long> iteration;
  std::vector<double> objective, gap;
};

/// Reads a trace CSV. Throws InputError "<file>: cannot open file (<why>)", "<file>: is a
/// directory", "<file>: the file is empty, not a trace CSV", "<file>: line 1: not a trace CSV:
/// the header has no column \"gap\" (...)", "<file>: the trace is empty: a header and no rows",
/// "<file>: line N: 3 fields, the header has 10", "<file>: line N: column \"gap\": expected a
/// number, got \"x\"", and "<file>: no row has a finite objective and gap" (a run without exact
/// evaluations).
TraceSeries read_trace(const std::filesystem::path& file);

/// read_trace for each file, labelled by stem; files whose stems are equal are labelled by their
/// paths as given instead.
std::vector<TraceSeries> read_traces(const std::vector<std::filesystem::path>& files);

enum class PlotFormat { png, svg };

/// The format of an output file by its extension, ".png" or ".svg" (any case). Throws
/// std::invalid_argument "expected a file name ending in .png or .svg, got '<name>'" otherwise.
PlotFormat plot_format(const std::filesystem::path& output);

/// The size of the drawing in pixels: 900 x 760 for PNG, 720 x 608 for SVG.
struct PlotSize {
  int width, height;
};
PlotSize plot_size(PlotFormat format);

/// Whether a logarithmic axis helps for these values: every finite one is > 0 and the largest
/// is at least `ratio` times the smallest. Non-finite values are ignored; false when none is left.
bool log_scale_helps(const std::vector<double>& values, double ratio);

/// The gnuplot script that draws `traces` to `output` (a path written into the script as given):
/// each run's iteration, objective and gap in a datablock of its own ($run1, $run2, ... in the
/// order given; NaN where a value is missing), the objective panel above the gap panel, a
/// logarithmic y axis where log_scale_helps(values, 10) and a logarithmic iteration axis where
/// log_scale_helps(iterations, 100).
std::string trace_plot_script(const std::vector<TraceSeries>& traces, PlotFormat format,
                              const std::filesystem::path& output);

/// Writes the script to `script` and, when gnuplot is on PATH, runs it and puts the drawing at
/// `output` whole (written to a temporary first, like every scfw output). Throws Error when gnuplot
/// is not found ("gnuplot not found on PATH (Debian package gnuplot-nox); the script is in
/// <script>: run gnuplot on it once gnuplot is installed"), when it fails (its first message
/// quoted) or when a file cannot be written.
void draw_trace_plot(const std::vector<TraceSeries>& traces, const std::filesystem::path& output,
                     const std::filesystem::path& script);

}  // namespace scfw
