// scfw plot: the command line around scfw/compare/trace_plot.hpp, apart from main.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace scfw_app {

/// The synopsis and description of `scfw plot --help`.
extern const char* const kPlotSynopsis;
extern const char* const kPlotDescription;

/// Runs `scfw plot ARGS`. `help` prints the usage with the options (for --help). Usage errors
/// (no trace, a bad -o) are thrown as std::invalid_argument; a bad trace as InputError; gnuplot
/// missing or failing, or a file that cannot be written, as Error. Returns the exit code.
int plot_command(const std::vector<std::string>& args,
                 const std::function<void(const boost::program_options::options_description&)>& help);

}  // namespace scfw_app
