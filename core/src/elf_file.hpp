// Reading a plugin library as a file, before the dynamic loader sees it (core/src/elf_file.cpp).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "scfw/registrar.hpp"

namespace scfw::elf {

/// Why `file` cannot be a shared library for this process, or "" when its ELF header, program
/// header table, loadable segments and section header table all lie within the file.
std::string problem(const std::filesystem::path& file);

/// What the file itself says of its `scfw_plugin` descriptor.
struct DescriptorInFile {
  enum class Status {
    unknown,  ///< not found or not readable this way: the loader's own path decides
    read,     ///< `descriptor` holds the first `bytes` bytes of the descriptor
    damaged,  ///< the symbol or the descriptor lies outside every loadable segment: `damage`
  };
  Status status = Status::unknown;
  PluginDescriptor descriptor{};  ///< register_components is never read from the file: null
  std::size_t bytes = 0;
  std::string damage;
};

/// Finds `scfw_plugin` in the file's dynamic symbol table, follows the pointer it holds (through
/// its relative relocation) to the descriptor, and reads the descriptor's plain fields (all but
/// the register_components pointer) from the file image. Every offset and size is checked against
/// the file; nothing of the library is run.
DescriptorInFile read_descriptor(const std::filesystem::path& file);

}  // namespace scfw::elf
