#include "elf_file.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <optional>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace scfw::elf {

namespace {

// The end of a table of `count` entries of `entry` bytes at `offset`, or UINT64_MAX when it does
// not fit in 64 bits.
std::uint64_t table_end(std::uint64_t offset, std::uint64_t count, std::uint64_t entry) {
  if (entry != 0 && count > (UINT64_MAX - offset) / entry) return UINT64_MAX;
  return offset + count * entry;
}

// A file read at offsets, never past its size.
class Bytes {
 public:
  explicit Bytes(const fs::path& file) : in_(file, std::ios::binary) {
    std::error_code ec;
    size_ = fs::file_size(file, ec);
    ok_ = !ec && static_cast<bool>(in_);
  }
  bool ok() const { return ok_; }
  std::uint64_t size() const { return size_; }
  bool fits(std::uint64_t offset, std::uint64_t n) const { return table_end(offset, 1, n) <= size_; }
  bool read(std::uint64_t offset, void* out, std::size_t n) {
    if (!fits(offset, n)) return false;
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(static_cast<char*>(out), static_cast<std::streamsize>(n));
    return static_cast<std::size_t>(in_.gcount()) == n;
  }
  // `count` entries of type T at `offset`, or none when they do not all lie within the file.
  template <class T>
  std::optional<std::vector<T>> table(std::uint64_t offset, std::uint64_t count) {
    if (table_end(offset, count, sizeof(T)) > size_) return std::nullopt;
    std::vector<T> out(static_cast<std::size_t>(count));
    if (count != 0 && !read(offset, out.data(), out.size() * sizeof(T))) return std::nullopt;
    return out;
  }

 private:
  std::ifstream in_;
  std::uint64_t size_ = 0;
  bool ok_ = false;
};

bool native_header(const Elf64_Ehdr& h) {
  const unsigned char native = std::endian::native == std::endian::little ? ELFDATA2LSB : ELFDATA2MSB;
  return std::memcmp(h.e_ident, ELFMAG, SELFMAG) == 0 && h.e_ident[EI_CLASS] == ELFCLASS64 &&
         h.e_ident[EI_DATA] == native && h.e_type == ET_DYN && sizeof(void*) == 8;
}

// Where the `n` bytes at virtual address `address` lie once loaded.
enum class Place { file, memory_only, nowhere };
struct Located {
  Place place = Place::nowhere;
  std::uint64_t offset = 0;     // in the file, when place == file
  std::uint64_t available = 0;  // bytes of the segment's file image from there on
};

Located locate(const std::vector<Elf64_Phdr>& segments, std::uint64_t address, std::uint64_t n) {
  Located out;
  for (const auto& ph : segments) {
    if (ph.p_type != PT_LOAD || address < ph.p_vaddr) continue;
    const std::uint64_t into = address - ph.p_vaddr;
    if (into >= ph.p_memsz || n > ph.p_memsz - into) continue;
    if (into < ph.p_filesz && n <= ph.p_filesz - into)
      return Located{Place::file, ph.p_offset + into, ph.p_filesz - into};
    out.place = Place::memory_only;
  }
  return out;
}

bool is_relative(std::uint16_t machine, std::uint64_t type) {
  return (machine == EM_X86_64 && type == R_X86_64_RELATIVE) ||
         (machine == EM_AARCH64 && type == R_AARCH64_RELATIVE);
}

// The address the pointer at `address` holds once relocated: from its dynamic relocation when one
// names it, else the address written in the file (implicit addends: REL, RELR). `certain` says
// whether it came from a relocation.
std::optional<std::uint64_t> pointer_target(Bytes& bytes, const Elf64_Ehdr& h, const std::vector<Elf64_Shdr>& sections,
                                            std::uint64_t address, std::uint64_t file_offset, bool& certain) {
  constexpr std::size_t kChunk = 4096;
  for (const auto& s : sections) {
    if (s.sh_type != SHT_RELA || (s.sh_flags & SHF_ALLOC) == 0 || s.sh_entsize != sizeof(Elf64_Rela)) continue;
    const std::uint64_t count = s.sh_size / sizeof(Elf64_Rela);
    if (table_end(s.sh_offset, count, sizeof(Elf64_Rela)) > bytes.size()) continue;
    for (std::uint64_t first = 0; first < count; first += kChunk) {
      const auto chunk = bytes.table<Elf64_Rela>(s.sh_offset + first * sizeof(Elf64_Rela),
                                                 std::min<std::uint64_t>(kChunk, count - first));
      if (!chunk) return std::nullopt;
      for (const auto& r : *chunk) {
        if (r.r_offset != address) continue;
        if (!is_relative(h.e_machine, ELF64_R_TYPE(r.r_info))) return std::nullopt;
        certain = true;
        return static_cast<std::uint64_t>(r.r_addend);
      }
    }
  }
  std::uint64_t value = 0;
  if (!bytes.read(file_offset, &value, sizeof value)) return std::nullopt;
  certain = false;
  return value;
}

}  // namespace

// dlopen maps the segments a header names; a page of one that lies past the end of a truncated
// file is mapped anyway, and touching it kills the process with SIGBUS.
std::string problem(const fs::path& file) {
  Bytes bytes(file);
  if (!bytes.ok()) return {};  // the loader's own message says why it cannot be opened
  const std::uint64_t size = bytes.size();
  auto truncated = [&](const char* what, std::uint64_t end) {
    return std::string("truncated or damaged: its ") + what + " ends at byte " +
           (end == UINT64_MAX ? std::string("2^64 or beyond") : std::to_string(end)) + ", the file has " +
           std::to_string(size) + " bytes";
  };
  Elf64_Ehdr h{};
  if (!bytes.read(0, h.e_ident, EI_NIDENT) || std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0)
    return "not an ELF shared library (no ELF header)";
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || sizeof(void*) != 8)
    return "not a 64-bit ELF library (this scfw is a 64-bit program)";
  const unsigned char native = std::endian::native == std::endian::little ? ELFDATA2LSB : ELFDATA2MSB;
  if (h.e_ident[EI_DATA] != native) return "an ELF library of the other byte order";
  if (!bytes.read(0, &h, sizeof h)) return truncated("ELF header", sizeof h);
  if (h.e_type != ET_DYN) return "not an ELF shared library (ELF type " + std::to_string(h.e_type) + ")";
  if (h.e_phnum != 0 && h.e_phentsize != sizeof(Elf64_Phdr))
    return "damaged: program header entries of " + std::to_string(h.e_phentsize) + " bytes";
  const auto segments = bytes.table<Elf64_Phdr>(h.e_phoff, h.e_phnum);
  if (!segments) return truncated("program header table", table_end(h.e_phoff, h.e_phnum, sizeof(Elf64_Phdr)));
  for (const auto& ph : *segments) {
    if (ph.p_type != PT_LOAD && ph.p_type != PT_DYNAMIC) continue;
    if (const auto end = table_end(ph.p_offset, 1, ph.p_filesz); end > size)
      return truncated(ph.p_type == PT_LOAD ? "loadable segment" : "dynamic section", end);
  }
  if (h.e_shnum != 0 && h.e_shentsize != sizeof(Elf64_Shdr))
    return "damaged: section header entries of " + std::to_string(h.e_shentsize) + " bytes";
  if (const auto end = table_end(h.e_shoff, h.e_shnum, sizeof(Elf64_Shdr)); end > size)
    return truncated("section header table", end);
  return {};
}

DescriptorInFile read_descriptor(const fs::path& file) {
  using Status = DescriptorInFile::Status;
  DescriptorInFile out;
  Bytes bytes(file);
  Elf64_Ehdr h{};
  if (!bytes.ok() || !bytes.read(0, &h, sizeof h) || !native_header(h)) return out;
  if (h.e_phentsize != sizeof(Elf64_Phdr) || h.e_shentsize != sizeof(Elf64_Shdr)) return out;
  const auto segments = bytes.table<Elf64_Phdr>(h.e_phoff, h.e_phnum);
  const auto sections = bytes.table<Elf64_Shdr>(h.e_shoff, h.e_shnum);
  if (!segments || !sections) return out;

  // `scfw_plugin` among the defined objects of the dynamic symbol table: the name the loader finds.
  static constexpr char kName[] = "scfw_plugin";
  std::optional<Elf64_Sym> alias;
  for (const auto& s : *sections) {
    if (s.sh_type != SHT_DYNSYM || s.sh_entsize != sizeof(Elf64_Sym) || s.sh_link >= sections->size()) continue;
    const Elf64_Shdr& strings = (*sections)[s.sh_link];
    if (strings.sh_type != SHT_STRTAB || !bytes.fits(strings.sh_offset, strings.sh_size)) continue;
    const auto symbols = bytes.table<Elf64_Sym>(s.sh_offset, s.sh_size / sizeof(Elf64_Sym));
    if (!symbols) continue;
    for (const auto& sym : *symbols) {
      if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || ELF64_ST_TYPE(sym.st_info) != STT_OBJECT)
        continue;
      if (sym.st_name >= strings.sh_size || strings.sh_size - sym.st_name < sizeof kName) continue;
      char name[sizeof kName];
      if (bytes.read(strings.sh_offset + sym.st_name, name, sizeof name) && std::memcmp(name, kName, sizeof name) == 0) {
        alias = sym;
        break;
      }
    }
    if (alias) break;
  }
  // SCFW_PLUGIN exports a pointer to the descriptor under that name (a Boost.DLL alias).
  if (!alias || alias->st_size != sizeof(void*)) return out;
  const Located at = locate(*segments, alias->st_value, sizeof(void*));
  if (at.place == Place::nowhere) {
    out.status = Status::damaged;
    out.damage = "damaged: its scfw_plugin symbol lies outside every loadable segment";
    return out;
  }
  if (at.place != Place::file) return out;
  bool certain = false;
  const auto target = pointer_target(bytes, h, *sections, alias->st_value, at.offset, certain);
  if (!target) return out;

  // The plain fields: everything before the register_components pointer.
  constexpr std::size_t kPlain = offsetof(PluginDescriptor, register_components);
  const Located desc = locate(*segments, *target, sizeof(std::uint32_t));
  if (desc.place == Place::nowhere && certain) {
    out.status = Status::damaged;
    out.damage = "damaged: its scfw_plugin descriptor lies outside every loadable segment";
    return out;
  }
  if (desc.place != Place::file) return out;
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kPlain, desc.available));
  unsigned char plain[kPlain] = {};
  if (!bytes.read(desc.offset, plain, n)) return out;
  std::memcpy(&out.descriptor, plain, n);
  out.descriptor.register_components = nullptr;
  out.bytes = n;
  out.status = Status::read;
  return out;
}

}  // namespace scfw::elf
