#include "setup.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/diag.h"

namespace klineage {
namespace fs = std::filesystem;

std::string exeDir() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  return fs::path(buf).parent_path().string();
}

ClangParseSetup defaultParseSetup(const std::string& nvcc) {
  ClangParseSetup s;
  if (const char* e = std::getenv("KLINEAGE_CUDA_PATH")) {
    s.cuda_path = e;
  } else if (!nvcc.empty() && fs::path(nvcc).is_absolute()) {
    s.cuda_path = fs::canonical(fs::path(nvcc)).parent_path().parent_path().string();
  }
  if (const char* e = std::getenv("KLINEAGE_CLANG_RESOURCE_DIR")) s.resource_dir = e;
#ifdef KLINEAGE_DEFAULT_RESOURCE_DIR
  else s.resource_dir = KLINEAGE_DEFAULT_RESOURCE_DIR;
#endif
  if (const char* e = std::getenv("KLINEAGE_COMPAT_DIR")) {
    s.compat_dir = e;
  } else {
    fs::path installed = fs::path(exeDir()) / ".." / "share" / "klineage" / "compat";
    s.compat_dir = fs::exists(installed / "klineage_parse_compat.h") ? fs::canonical(installed).string()
                                                                     : std::string(KLINEAGE_COMPAT_SOURCE_DIR);
  }
  return s;
}

std::vector<SourceToParse> TargetSetup::toParse() const {
  std::vector<SourceToParse> v;
  for (const auto& f : originals) v.push_back({f, clang_args.at(f)});
  return v;
}

TargetSetup loadTargetSetup(const std::string& config_path) {
  TargetSetup t;
  t.config = loadConfig(config_path);
  t.parse = defaultParseSetup(t.config.nvcc);
  if (!fs::exists(t.config.compile_commands))
    throw InputError(t.config.compile_commands, 0, 0,
                     "compile_commands.json not found: configure the project with CMake (klineage_optimize turns on "
                     "EXPORT_COMPILE_COMMANDS for the target)");
  auto cmds = loadCompileCommands(t.config.compile_commands);
  for (const auto& src : t.config.sources) {
    const CompileCommand* cc = nullptr;
    for (const auto& c : cmds)
      if (c.file == src.materialized || c.file == src.original) cc = &c;
    if (!cc)
      throw InputError(t.config.compile_commands, 0, 0,
                       "no compile command for " + src.original + " (nor its build-tree copy " + src.materialized +
                           "); re-run CMake so that compile_commands.json lists the target's CUDA sources");
    CudaFlags f = parseCudaFlags(cc->arguments, cc->directory);
    t.nvcc_flags[src.original] = f;
    t.clang_args[src.original] = clangArgsFor(f, t.parse);
    t.originals.push_back(src.original);
  }
  return t;
}

}  // namespace klineage
