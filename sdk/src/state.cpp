#include "scfw/state.hpp"

#include <cctype>
#include <charconv>
#include <system_error>

#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

namespace scfw {

namespace {

constexpr char kHex[] = "0123456789abcdef";

bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

/// Bytes per value of a type tag: "f64" 8, "i32" 4, "u8" and "str" 1.
std::size_t element_width(std::string_view type) {
  if (type == "str") return 1;
  std::size_t bits = 0;
  const auto [ptr, ec] = std::from_chars(type.data() + 1, type.data() + type.size(), bits);
  if (type.size() < 2 || ec != std::errc() || ptr != type.data() + type.size() || bits == 0 || bits % 8)
    throw Error("state block type \"" + std::string(type) + "\" is not a known type");
  return bits / 8;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

void StateWriter::put_raw(std::string_view name, std::string_view type, std::size_t count, const void* bytes,
                          std::size_t size) {
  if (!valid_name(name)) throw Error("state block name \"" + std::string(name) + "\" is empty or has spaces");
  text_.append(name).append(" ").append(type).append(" ").append(std::to_string(count)).append(" ");
  const auto* p = static_cast<const unsigned char*>(bytes);
  text_.reserve(text_.size() + 2 * size + 1);
  for (std::size_t i = 0; i < size; ++i) {
    text_.push_back(kHex[p[i] >> 4]);
    text_.push_back(kHex[p[i] & 15]);
  }
  if (size == 0) text_.push_back('-');
  text_.push_back('\n');
  ++blocks_;
}

void StateWriter::put(std::string_view name, std::string_view text) {
  put_raw(name, "str", text.size(), text.data(), text.size());
}

StateReader::StateReader(std::string text, std::string owner) : text_(std::move(text)), owner_(std::move(owner)) {}

std::size_t StateReader::get_raw(std::string_view name, std::string_view type, std::vector<unsigned char>& out) {
  const std::string where = owner_ + ": block " + std::string(name) + ": ";
  if (at_end()) throw Error(where + "missing (the saved state ends before it)");
  const std::size_t eol = text_.find('\n', pos_);
  const std::string_view line(text_.data() + pos_, (eol == std::string::npos ? text_.size() : eol) - pos_);
  pos_ = eol == std::string::npos ? text_.size() : eol + 1;
  // <name> <type> <count> <hex>
  const std::size_t s1 = line.find(' ');
  const std::size_t s2 = s1 == std::string_view::npos ? s1 : line.find(' ', s1 + 1);
  const std::size_t s3 = s2 == std::string_view::npos ? s2 : line.find(' ', s2 + 1);
  if (s3 == std::string_view::npos) throw Error(where + "malformed line");
  const std::string_view got_name = line.substr(0, s1);
  const std::string_view got_type = line.substr(s1 + 1, s2 - s1 - 1);
  const std::string count_text(line.substr(s2 + 1, s3 - s2 - 1));
  const std::string_view hex = line.substr(s3 + 1);
  if (got_name != name) throw Error(where + "found block \"" + excerpt(got_name) + "\" instead");
  if (got_type != type)
    throw Error(where + "type " + excerpt(got_type) + " saved, " + std::string(type) + " expected");
  // Decimal digits only (stoull took "1x" as 1 and "-1" as 2^64 - 1); from_chars into an
  // unsigned refuses an empty text and a sign.
  std::size_t count = 0;
  const char* const end = count_text.data() + count_text.size();
  if (const auto [ptr, ec] = std::from_chars(count_text.data(), end, count); ec != std::errc() || ptr != end)
    throw Error(where + "malformed count \"" + excerpt(count_text) + "\"");
  // The bytes must be exactly `count` values of the type, checked before any is decoded: a count
  // with fewer (or no) bytes behind it would otherwise be read past the block by the caller.
  const std::size_t width = element_width(type);
  const std::size_t bytes = hex == "-" ? 0 : hex.size() / 2;
  if ((hex != "-" && hex.size() % 2) || (hex == "-" && count != 0) || count > bytes / width ||
      count * width != bytes)
    throw Error(where + std::to_string(count) + " " + std::string(type) + " values declared, " +
                (hex.size() % 2 && hex != "-" ? "an odd number of hex digits" : std::to_string(bytes) + " bytes") +
                " follow");
  out.clear();
  if (hex != "-") {
    out.resize(hex.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
      if (hi < 0 || lo < 0) throw Error(where + "malformed bytes");
      out[i] = static_cast<unsigned char>(hi * 16 + lo);
    }
  }
  return count;
}

void StateReader::get(std::string_view name, std::string& text) {
  std::vector<unsigned char> bytes;
  get_raw(name, "str", bytes);
  text.assign(bytes.begin(), bytes.end());
}

void StateReader::refuse(std::string_view name, const std::string& what) const {
  throw Error(owner_ + ": block " + std::string(name) + ": " + what);
}

void StateReader::check_count(std::string_view name, std::size_t got, std::size_t want) const {
  if (got != want) refuse(name, std::to_string(got) + " values saved, " + std::to_string(want) + " expected");
}

std::string_view StateReader::next_name() const {
  if (at_end()) return {};
  const std::size_t sp = text_.find(' ', pos_);
  return std::string_view(text_).substr(pos_, (sp == std::string::npos ? text_.size() : sp) - pos_);
}

void StateReader::expect_end() const {
  if (!at_end()) {
    const std::size_t sp = text_.find(' ', pos_);
    throw Error(owner_ + ": block " + excerpt(std::string_view(text_).substr(pos_, sp - pos_)) +
                ": saved but not read back");
  }
}

}  // namespace scfw
