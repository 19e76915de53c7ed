#include "scfw/data_file.hpp"

namespace scfw {

namespace {
thread_local std::vector<std::string>* current_record = nullptr;
}  // namespace

std::vector<std::string>* record_data_files(std::vector<std::string>* record) {
  std::vector<std::string>* before = current_record;
  current_record = record;
  return before;
}

void note_data_file(const std::string& path) {
  if (current_record) current_record->push_back(path);
}

}  // namespace scfw
