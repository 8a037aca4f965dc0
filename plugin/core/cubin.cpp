#include "core/cubin.h"

#include <elf.h>

#include <cstring>
#include <stdexcept>

#include "core/fs.h"

namespace klineage {

namespace {

template <typename T>
T at(const std::string& bytes, unsigned long long off, const std::string& path) {
  if (off > bytes.size() || bytes.size() - off < sizeof(T))
    throw std::runtime_error(path + ": truncated ELF (offset " + std::to_string(off) + ")");
  T v;
  std::memcpy(&v, bytes.data() + off, sizeof v);
  return v;
}

std::string cstr(const std::string& bytes, unsigned long long off, const std::string& path) {
  if (off >= bytes.size()) throw std::runtime_error(path + ": ELF string offset out of range");
  const size_t end = bytes.find('\0', off);
  if (end == std::string::npos) throw std::runtime_error(path + ": unterminated ELF string");
  return bytes.substr(off, end - off);
}

}  // namespace

std::vector<DeviceGlobal> cubinDeviceGlobals(const std::string& path) {
  const std::string b = readFile(path);
  const auto eh = at<Elf64_Ehdr>(b, 0, path);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
    throw std::runtime_error(path + ": not a 64-bit ELF cubin");
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) throw std::runtime_error(path + ": unexpected ELF section header size");
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  for (unsigned i = 0; i < eh.e_shnum; ++i) sh[i] = at<Elf64_Shdr>(b, eh.e_shoff + i * sizeof(Elf64_Shdr), path);
  if (eh.e_shstrndx >= sh.size()) throw std::runtime_error(path + ": no ELF section name table");
  auto sectionName = [&](unsigned i) { return cstr(b, sh[eh.e_shstrndx].sh_offset + sh[i].sh_name, path); };

  std::vector<DeviceGlobal> out;
  for (const auto& s : sh) {
    if (s.sh_type != SHT_SYMTAB) continue;
    if (s.sh_link >= sh.size() || s.sh_entsize != sizeof(Elf64_Sym)) throw std::runtime_error(path + ": malformed ELF symbol table");
    const Elf64_Shdr& strtab = sh[s.sh_link];
    for (unsigned long long off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
      const auto sym = at<Elf64_Sym>(b, s.sh_offset + off, path);
      if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= sh.size()) continue;
      const std::string sec = sectionName(sym.st_shndx);
      // .nv.global (zero-initialized) and .nv.global.init; __constant__ and __shared__ live elsewhere.
      if (sec != ".nv.global" && sec != ".nv.global.init") continue;
      out.push_back({cstr(b, strtab.sh_offset + sym.st_name, path), sym.st_size});
    }
  }
  return out;
}

}  // namespace klineage
