// Compile-command handling: reading CMake's compile_commands.json, translating an nvcc command
// line into the clang 16 flags that parse CUDA 13 sources (../shared/notes/cuda-parsing.md), and
// turning it into the nvcc command that compiles a variant to a cubin for the gate.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace klineage {

struct CompileCommand {
  std::string directory;
  std::string file;                    // absolute
  std::vector<std::string> arguments;  // argv, argv[0] is the compiler
};

// Reads compile_commands.json ("arguments" or "command" entries). Throws InputError on bad JSON.
std::vector<CompileCommand> loadCompileCommands(const std::string& path);

// Splits a shell-style command line ("command" entries, nvcc --options-file contents).
std::vector<std::string> splitCommandLine(const std::string& line);

// What an nvcc (or clang) compile command says, independent of the compiler.
struct CudaFlags {
  std::vector<std::string> includes;        // -I
  std::vector<std::string> system_includes; // -isystem
  std::vector<std::string> defines;         // -D (NAME or NAME=VALUE)
  std::vector<std::string> undefines;       // -U
  std::vector<std::string> forced_includes; // -include
  std::string std;                          // "c++17" ("" when absent)
  std::vector<std::string> archs;           // "sm_90", "sm_80", ...
  std::vector<std::string> other_nvcc;      // flags kept for nvcc (e.g. --expt-relaxed-constexpr)
  std::vector<std::string> dropped;         // flags neither compiler needs here (-c, -o x, -MD ...)
};

// Parses an nvcc/clang command line. Relative paths are made absolute against `directory`;
// --options-file contents are read and parsed in place.
CudaFlags parseCudaFlags(const std::vector<std::string>& argv, const std::string& directory);

struct ClangParseSetup {
  std::string cuda_path = "/usr/local/cuda";
  std::string resource_dir;   // clang's resource dir (wrapper headers); "" = clang's default
  std::string compat_dir;     // KLineage's parse-compatibility headers
};

// Clang 16 arguments (without the source file) that parse the source host-side.
std::vector<std::string> clangArgsFor(const CudaFlags& flags, const ClangParseSetup& setup);

// nvcc arguments that compile `source` to `cubin` for `arch` ("sm_90") with the target's flags.
// `extra_includes` come first (e.g. the original source's directory for a build-tree copy).
std::vector<std::string> nvccCubinArgs(const std::string& nvcc, const CudaFlags& flags, const std::string& arch,
                                       const std::string& source, const std::string& cubin,
                                       const std::vector<std::string>& extra_includes = {});

// nvcc arguments that compile the whole translation unit `source` to a host object (device code
// as PTX for arch's virtual architecture only: ptxas is not needed to see the host symbols).
std::vector<std::string> nvccObjectArgs(const std::string& nvcc, const CudaFlags& flags, const std::string& arch,
                                        const std::string& source, const std::string& object,
                                        const std::vector<std::string>& extra_includes = {});

// The highest sm_XX in the flags, or `fallback` (nvcc compiles for it as is; clangArgsFor parses
// for at most sm_90, the newest clang 16 knows).
std::string highestArch(const CudaFlags& flags, const std::string& fallback = "sm_90");

}  // namespace klineage
