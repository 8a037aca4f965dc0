#include "header_kernels.h"

#include "context.h"
#include "core/fs.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {
// `path` relative to `dir` when it lies under it, else "".
std::string under(const std::string& path, const std::string& dir) {
  const fs::path rel = fs::path(path).lexically_normal().lexically_relative(fs::path(dir).lexically_normal());
  if (rel.empty() || *rel.begin() == "..") return "";
  return rel.string();
}
}  // namespace

std::string includeName(const TargetSetup& s, const std::string& unit, const std::string& header,
                        const std::string& spelled) {
  // A quoted include looks beside the includer first, then the -I directories in order.
  std::vector<std::string> dirs{fs::path(unit).parent_path().string()};
  if (auto it = s.nvcc_flags.find(unit); it != s.nvcc_flags.end())
    dirs.insert(dirs.end(), it->second.includes.begin(), it->second.includes.end());
  const fs::path target = fs::path(header).lexically_normal();
  if (!spelled.empty() && fs::path(spelled).is_relative())
    for (const auto& d : dirs)
      if ((fs::path(d) / spelled).lexically_normal() == target) return fs::path(spelled).lexically_normal().string();
  for (const auto& d : dirs)
    if (std::string rel = under(header, d); !rel.empty()) return rel;
  return "";
}

void writeVariantFiles(const Pipeline& p, const KernelInfo& k, const fs::path& dir, const std::string& text, Variant& v) {
  if (!k.in_header) {
    v.source = (dir / fs::path(k.range.file).filename()).string();
    atomicWrite(v.source, text);
    return;
  }
  v.unit = unitOf(k);
  v.include_dir = (dir / "include").string();
  v.source = (dir / "include" / includeName(p.setup, v.unit, k)).string();
  // The unit's copy sits in a directory of its own, so that a quoted include of the header cannot
  // find anything beside it before the include directory.
  v.unit_source = (dir / "unit" / fs::path(v.unit).filename()).string();
  atomicWrite(v.source, text);
  atomicWrite(v.unit_source, p.originals.at(v.unit));
}

}  // namespace klineage
