#include "core/cubin.h"

#include <cxxabi.h>
#include <elf.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>

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

// Calls fn(name, symbol, section name) for every symbol of every symbol table of a 64-bit ELF file.
template <typename Fn>
void forEachSymbol(const std::string& path, const char* what, Fn fn) {
  const std::string b = readFile(path);
  const auto eh = at<Elf64_Ehdr>(b, 0, path);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
    throw std::runtime_error(path + ": not a 64-bit ELF " + what);
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) throw std::runtime_error(path + ": unexpected ELF section header size");
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  for (unsigned i = 0; i < eh.e_shnum; ++i) sh[i] = at<Elf64_Shdr>(b, eh.e_shoff + i * sizeof(Elf64_Shdr), path);
  if (eh.e_shstrndx >= sh.size()) throw std::runtime_error(path + ": no ELF section name table");
  auto sectionName = [&](unsigned i) { return cstr(b, sh[eh.e_shstrndx].sh_offset + sh[i].sh_name, path); };
  for (const auto& s : sh) {
    if (s.sh_type != SHT_SYMTAB) continue;
    if (s.sh_link >= sh.size() || s.sh_entsize != sizeof(Elf64_Sym)) throw std::runtime_error(path + ": malformed ELF symbol table");
    const Elf64_Shdr& strtab = sh[s.sh_link];
    for (unsigned long long off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
      const auto sym = at<Elf64_Sym>(b, s.sh_offset + off, path);
      if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= sh.size()) continue;
      fn(cstr(b, strtab.sh_offset + sym.st_name, path), sym, sectionName(sym.st_shndx));
    }
  }
}

// A C++ name (_Z...) demangled; anything else (C names, variables) as it is.
std::string demangled(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

}  // namespace

std::vector<DeviceGlobal> cubinDeviceGlobals(const std::string& path) {
  std::vector<DeviceGlobal> out;
  forEachSymbol(path, "cubin", [&](const std::string& name, const Elf64_Sym& sym, const std::string& sec) {
    // .nv.global (zero-initialized) and .nv.global.init; __constant__ and __shared__ live elsewhere.
    if (ELF64_ST_TYPE(sym.st_info) == STT_OBJECT && (sec == ".nv.global" || sec == ".nv.global.init"))
      out.push_back({name, sym.st_size});
  });
  return out;
}

std::vector<std::string> exportedHostSymbols(const std::string& path) {
  std::vector<std::string> out;
  forEachSymbol(path, "object", [&](const std::string& name, const Elf64_Sym& sym, const std::string&) {
    const unsigned type = ELF64_ST_TYPE(sym.st_info);
    if (ELF64_ST_BIND(sym.st_info) == STB_GLOBAL && (type == STT_FUNC || type == STT_OBJECT) && !name.empty())
      out.push_back(name);
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string hostSymbolMismatch(const std::vector<std::string>& original, const std::vector<std::string>& variant) {
  std::vector<std::string> missing, added;
  std::set_difference(original.begin(), original.end(), variant.begin(), variant.end(), std::back_inserter(missing));
  std::set_difference(variant.begin(), variant.end(), original.begin(), original.end(), std::back_inserter(added));
  auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (size_t i = 0; i < names.size() && i < 5; ++i) s += (i ? ", " : "") + demangled(names[i]);
    if (names.size() > 5) s += " and " + std::to_string(names.size() - 5) + " more";
    return s;
  };
  std::string why;
  if (!missing.empty())
    why = "the variant's host code no longer defines " + list(missing) + " (the rest of the program would not link)";
  if (!added.empty())
    why += std::string(why.empty() ? "the variant's host code" : "; it") + " defines " + list(added) +
           ", which the original does not";
  return why;
}

}  // namespace klineage
