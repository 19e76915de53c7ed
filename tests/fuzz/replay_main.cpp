// Corpus replay without libFuzzer: feeds every regular file of the folders (and files) given on
// the command line to LLVMFuzzerTestOneInput, in sorted order, and prints how many ran. A crash,
// a sanitizer report or an abort of the target's verdict fails the process; so does a missing
// folder or an empty replay (a renamed corpus must not turn the test into a silent pass), except
// for a folder given after `--optional` (tests/fuzz/regressions/<target> exists once a finding
// has been added).
//   replay_<target> CORPUS_DIR [--optional REGRESSIONS_DIR]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  bool optional = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--optional") {
      optional = true;
      continue;
    }
    const fs::path arg(argv[i]);
    if (fs::is_directory(arg)) {
      for (const auto& entry : fs::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (fs::is_regular_file(arg)) {
      files.push_back(arg);
    } else if (!optional) {
      std::fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
      return 2;
    }
    optional = false;
  }
  std::sort(files.begin(), files.end());
  LLVMFuzzerInitialize(&argc, &argv);
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
      return 2;
    }
    std::fprintf(stderr, "replay: %s\n", file.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replay: %zu inputs, no crash\n", files.size());
  return files.empty() ? 2 : 0;
}
