// scfw SDK helper: reading one rank's share of a text data file by byte range (shard.hpp), for
// oracles that read rows from a file. Header-only, standard library only.
//
// The file's bytes are cut into `ranks` equal ranges; rank r owns the lines whose first byte lies
// in [size * r / ranks, size * (r + 1) / ranks). It reads from the start of its first line to the
// end of its last one (which may pass the end of its range), and never the rest of the file: a
// line is owned by exactly one rank, whatever the line lengths.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>

#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

namespace scfw {

struct ByteRange {
  std::uint64_t begin = 0, end = 0;  ///< [begin, end)
};

/// Rank `rank`'s share of `size` bytes split over `ranks`.
inline ByteRange byte_share(std::uint64_t size, int rank, int ranks) {
  const auto r = static_cast<unsigned __int128>(rank), p = static_cast<unsigned __int128>(ranks);
  return {static_cast<std::uint64_t>(size * r / p), static_cast<std::uint64_t>(size * (r + 1) / p)};
}

/// The text of the lines of `path` whose first byte lies in the rank's share (byte_share of the
/// file's size), newlines included. Throws InputError("<path>: cannot open file (<why>)").
inline std::string read_line_share(const std::string& path, int rank, int ranks) {
  std::ifstream in;
  open_data_file(in, path, std::ios::binary);
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  const ByteRange range = byte_share(size, rank, ranks);
  if (range.begin >= range.end) return {};
  // The first line starting at or after range.begin: at begin when byte begin - 1 is a newline.
  std::uint64_t start = range.begin;
  if (start > 0) {
    in.seekg(static_cast<std::streamoff>(start - 1));
    char c = 0;
    in.get(c);
    if (c != '\n') {
      std::string skipped;
      if (!std::getline(in, skipped)) return {};  // the range holds no line start
      start = range.begin + skipped.size() + (in.eof() ? 0 : 1);
    }
  }
  if (start >= range.end) return {};
  std::string text(static_cast<std::size_t>(range.end - start), '\0');
  in.clear();
  in.seekg(static_cast<std::streamoff>(start));
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  // The last line runs to its newline, past the range's end.
  if (!text.empty() && text.back() != '\n' && in) {
    std::string rest;
    std::getline(in, rest);
    text += rest;
    if (!in.eof()) text += '\n';
  }
  return text;
}

/// The number of lines in `text` (a last line without a newline counts).
inline long count_lines(const std::string& text) {
  long n = static_cast<long>(std::count(text.begin(), text.end(), '\n'));
  if (!text.empty() && text.back() != '\n') ++n;
  return n;
}

}  // namespace scfw
