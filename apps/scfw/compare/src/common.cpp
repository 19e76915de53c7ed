// scfw compare: helpers shared by the stages (internal.hpp).
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "internal.hpp"
#include "scfw/core/format.hpp"
#include "scfw/error.hpp"

namespace scfw::compare_detail {

std::string num(double v) { return std::isnan(v) ? "nan" : format_number(v, 17); }

std::string short_num(double v, const char* fmt) { return std::isnan(v) ? "n/a" : format_as(fmt, v); }

std::string safe_name(const std::string& label) {
  std::string s;
  for (char c : label) s += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return s.empty() ? std::string("method") : s;
}

void finish(OutputFile& file) {
  file.close();
  if (file.fail()) throw Error(file.target().string() + ": cannot write the " + file.what() + file.reason());
}

std::vector<std::pair<long, double>> read_trace_column(const std::filesystem::path& file, int column) {
  std::vector<std::pair<long, double>> rows;
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string it, value;
    if (!std::getline(ss, it, ',')) continue;
    for (int c = 1; c <= column; ++c)
      if (!std::getline(ss, value, ',')) value.clear();
    if (value.empty()) continue;  // not reported on this row
    rows.emplace_back(std::atol(it.c_str()), std::strtod(value.c_str(), nullptr));
  }
  return rows;
}

}  // namespace scfw::compare_detail
