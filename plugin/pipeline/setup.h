// What every subcommand needs from a config: tool locations, clang arguments per source.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "apply.h"
#include "core/flags.h"
#include "extract.h"
#include "gate/config.h"

namespace klineage {

struct TargetSetup {
  Config config;
  ClangParseSetup parse;
  ArgsByFile clang_args;                         // original source -> clang args
  std::map<std::string, CudaFlags> nvcc_flags;   // original source -> flags from its compile command
  std::vector<std::string> originals;
  std::vector<SourceToParse> toParse() const;
};

// Reads the config and compile_commands.json; every source must have a compile command.
// Throws InputError naming the file and what is missing.
TargetSetup loadTargetSetup(const std::string& config_path);

ClangParseSetup defaultParseSetup(const std::string& nvcc);

// The directory of the running klineage executable (installed data is found relative to it).
std::string exeDir();

}  // namespace klineage
