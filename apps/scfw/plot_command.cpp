// scfw plot: parses the command line, reads the traces, draws them (plot_command.hpp).
#include "plot_command.hpp"

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "scfw/compare/trace_plot.hpp"
#include "scfw/core/output_file.hpp"
#include "scfw/data_file.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace scfw_app {

const char* const kPlotSynopsis = "TRACE.csv [TRACE2.csv ...] [-o OUT.png|OUT.svg]";
const char* const kPlotDescription =
    "Draws the objective (upper panel) and the generalized Frank-Wolfe gap (lower panel) against\n"
    "the iteration for the runs whose trace CSVs are given (scfw run --trace, scfw compare's\n"
    "traces/*.csv), one colour per run, the key naming each run by its file's stem. An axis is\n"
    "logarithmic where that helps (positive values over a decade or more; a negative objective\n"
    "keeps a linear axis). The gnuplot script is written beside the drawing as OUT.gp (the data\n"
    "inside it), for changes by hand. Needs gnuplot (Debian package gnuplot-nox). See\n"
    "docs/outputs.md.\n";

int plot_command(const std::vector<std::string>& args, const std::function<void(const po::options_description&)>& help) {
  po::options_description visible("options");
  visible.add_options()("help,h", "print this help")(
      "output,o", po::value<std::string>()->value_name("OUT"),
      "the drawing: OUT.png or OUT.svg (default: the first trace with .png for .csv)");
  po::options_description all;
  all.add(visible);
  all.add_options()("trace", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("trace", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw std::invalid_argument(scfw::excerpt(e.what(), 200));
  }
  if (vm.count("help")) {
    help(visible);
    return 0;
  }
  if (!vm.count("trace")) throw std::invalid_argument("missing TRACE.csv (a trace written by scfw run --trace)");
  std::vector<fs::path> traces;
  for (const auto& t : vm["trace"].as<std::vector<std::string>>()) traces.emplace_back(t);
  fs::path output = fs::path(traces.front()).replace_extension(".png");
  if (vm.count("output")) {
    const std::string& o = vm["output"].as<std::string>();
    if (scfw::has_control_character(o))
      throw std::invalid_argument("-o: the file name holds a control character (shown as ?): '" + scfw::excerpt(o) + "'");
    output = o;
  }
  try {
    scfw::plot_format(output);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("-o: ") + e.what());
  }
  const fs::path script = fs::path(output.string() + ".gp");
  // Neither file may replace a trace being drawn, nor be something other than a regular file.
  std::vector<scfw::RunPath> inputs;
  for (const auto& t : traces) inputs.push_back({"the trace " + t.string(), t});
  scfw::check_outputs({{"plot", output}, {"plot script", script}}, inputs);

  const auto series = scfw::read_traces(traces);
  scfw::draw_trace_plot(series, output, script);
  std::cout << "wrote " << output.string() << " (" << series.size() << (series.size() == 1 ? " run" : " runs")
            << "; gnuplot script: " << script.string() << ")\n";
  return 0;
}

}  // namespace scfw_app
