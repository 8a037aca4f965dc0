// Shared by the fuzz targets: a scratch directory per fuzzer process, writing the input there,
// and the oracle. A loader may accept an input or reject it with its documented input error, whose
// message must name the file it was reading; anything else (another exception type, a message
// without the file, a broken post-condition) abort()s, so libFuzzer records the input as a crash.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <typeinfo>

namespace fuzz {

namespace fs = std::filesystem;

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "\nfuzz: FAILED: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// $TMPDIR/klineage-fuzz-XXXXXX, created on first use and removed when the process exits normally
// (a crashing run leaves it for inspection).
inline const fs::path& scratch() {
  static const fs::path dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "klineage-fuzz-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) fail("cannot create a scratch directory from " + tmpl);
    fs::path d = fs::canonical(tmpl);
    static const std::string to_remove = d.string();
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(to_remove, ec);
    });
    return d;
  }();
  return dir;
}

inline void writeFile(const fs::path& p, const void* data, size_t n) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
  if (!out) fail("cannot write " + p.string());
}

// The rejection must say which file: `file` appears in the message.
inline void requireNames(const std::string& message, const std::string& file, const char* error_type) {
  if (message.find(file) == std::string::npos)
    fail(std::string(error_type) + " does not name the file " + file + ": \"" + message + "\"");
}

// KLINEAGE_FUZZ_VERBOSE=1: say what the loader did with each input (to check a corpus file by
// hand: ./fuzz_skill corpus/skill/valid-minimal.toml).
inline void verdict(const std::string& what) {
  static const bool verbose = [] {
    const char* v = std::getenv("KLINEAGE_FUZZ_VERBOSE");
    return v && *v && std::string(v) != "0";
  }();
  if (verbose) std::fprintf(stderr, "fuzz: %s\n", what.c_str());
}

[[noreturn]] inline void unexpected(const std::exception& e, const char* loader) {
  fail(std::string(loader) + " threw " + typeid(e).name() + " (not its documented input error): " + e.what());
}

}  // namespace fuzz
