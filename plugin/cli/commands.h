// The `klineage` subcommands other than optimize and gate (those are runOptimize).
#pragma once
#include <string>
#include <vector>

namespace klineage {

// With --source: parse the given files with nvcc-style flags, no CMake project needed.
int cmdExtract(const std::string& config, const std::string& out, const std::vector<std::string>& sources,
               const std::vector<std::string>& nvcc_flags);
// The copy of one source the target compiles: the selected version while every file it was made
// from is unchanged, otherwise the original (with a warning naming the stale kernels). Selected
// headers the source includes go to <out_dir>/include while fresh; `depfile` (when given) lists
// their originals for the build tool.
int cmdMaterialize(const std::string& config_path, const std::string& source, const std::string& depfile = "");
int cmdSkills(const std::string& action, const std::vector<std::string>& dirs, const std::string& id);
// `klineage skills emit <lineage.json> --out <dir>`: the lineage's mined skills written again (the
// anchors from the library in `dirs`, as `klineage mine --emit-skills` writes them), no GPU needed.
int cmdEmitSkills(const std::string& lineage, const std::string& out_dir, const std::vector<std::string>& dirs);
// Captures the launches of a program (the config's RUN command unless one is given after --).
int cmdCapture(const std::string& config_path, const std::string& out, std::vector<std::string> command,
               unsigned max_shapes, unsigned long long max_bytes, double timeout_s);
std::vector<std::string> defaultSkillDirs();

}  // namespace klineage
