#include "header_kernels.h"

#include <map>
#include <stdexcept>

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

namespace {

// Whether the include resolved next to its includer (a quoted include found beside the file).
bool besideIncluder(const IncludeEdge& e) {
  return (fs::path(e.includer).parent_path() / e.as).lexically_normal() == fs::path(e.file).lexically_normal();
}

// The name a nested header's includer finds it by: beside the includer's copy (a quoted include
// that resolves next to the original includer), else under the -I directory that holds it.
std::string nestedName(const TargetSetup& s, const std::string& unit, const IncludeEdge& e, const std::string& includer_name) {
  if (besideIncluder(e))
    return (fs::path(includer_name).parent_path() / e.as).lexically_normal().string();
  if (auto it = s.nvcc_flags.find(unit); it != s.nvcc_flags.end())
    for (const auto& d : it->second.includes)
      if ((fs::path(d) / e.as).lexically_normal() == fs::path(e.file).lexically_normal())
        return fs::path(e.as).lexically_normal().string();
  return "";
}

}  // namespace

std::vector<MirroredHeader> mirroredHeaders(const Pipeline& p, const std::string& unit, const KernelInfo& k,
                                            std::string* why) {
  auto no = [&](const std::string& w) {
    *why = w;
    return std::vector<MirroredHeader>{};
  };
  // The include path from the unit to the kernel's header (breadth first: the shortest).
  std::map<std::string, const IncludeEdge*> via;  // file -> the edge it was first reached by
  std::vector<std::string> queue{unit};
  for (size_t i = 0; i < queue.size() && !via.count(k.range.file); ++i)
    for (const auto& e : p.includes)
      if (e.includer == queue[i] && e.file != unit && !via.count(e.file)) {
        via[e.file] = &e;
        queue.push_back(e.file);
      }
  if (!via.count(k.range.file)) {
    // No include tree recorded (a manifest from before it was): the header as the unit includes it.
    const std::string name = includeName(p.setup, unit, k);
    if (name.empty() || k.included_from != unit)
      return no("defined in a header (" + k.range.file + ") that " + unit + " does not include in a way that can be followed");
    return {{name, k.range.file}};
  }
  std::vector<const IncludeEdge*> chain;
  for (std::string f = k.range.file; f != unit; f = via.at(f)->includer) chain.insert(chain.begin(), via.at(f));
  std::vector<MirroredHeader> out;
  auto place = [&](const std::string& name, const std::string& file) -> bool {
    if (name.empty() || *fs::path(name).begin() == ".." || fs::path(name).is_absolute()) return false;
    for (const auto& m : out)
      if (m.name == name) return m.file == file;
    out.push_back({name, file});
    return true;
  };
  std::string name = includeName(p.setup, unit, chain[0]->file, chain[0]->as);
  if (!place(name, chain[0]->file))
    return no("defined in a header (" + k.range.file + ") that " + unit + " includes through " + chain[0]->file +
              ", which it does not find beside itself or on its -I path: a rewritten copy could not be put ahead of it");
  for (size_t i = 1; i < chain.size(); ++i) {
    name = nestedName(p.setup, unit, *chain[i], name);
    if (!place(name, chain[i]->file))
      return no("defined in a header (" + k.range.file + ") that " + chain[i]->includer + " includes as \"" + chain[i]->as +
                "\": neither beside it nor on the -I path, so a rewritten copy could not be put ahead of it");
  }
  // What the copies include beside themselves must be beside the copies too.
  for (size_t i = 0; i < out.size(); ++i) {
    const MirroredHeader here = out[i];
    for (const auto& e : p.includes) {
      if (e.includer != here.file) continue;
      if (!besideIncluder(e)) continue;
      const std::string n = (fs::path(here.name).parent_path() / e.as).lexically_normal().string();
      if (!place(n, e.file))
        return no("defined in a header (" + k.range.file + ") whose includes cannot be mirrored: " + e.includer +
                  " includes \"" + e.as + "\" beside itself, and its copy would be outside the include directory "
                  "or clash with another file");
    }
  }
  return out;
}

void writeVariantFiles(const Pipeline& p, const KernelInfo& k, const fs::path& dir, const std::string& text, Variant& v) {
  if (!k.in_header) {
    v.source = (dir / fs::path(k.range.file).filename()).string();
    atomicWrite(v.source, text);
    return;
  }
  v.unit = unitOf(k);
  v.include_dir = (dir / "include").string();
  std::string why;
  for (const MirroredHeader& m : mirroredHeaders(p, v.unit, k, &why)) {
    const std::string path = (dir / "include" / m.name).string();
    if (m.file == k.range.file) {
      v.source = path;
      atomicWrite(path, text);
    } else {
      auto it = p.originals.find(m.file);
      atomicWrite(path, it != p.originals.end() ? it->second : readFile(m.file));
    }
  }
  if (v.source.empty()) throw std::logic_error("header kernel " + k.name + " planned without a place for its copy: " + why);
  // The unit's copy sits in a directory of its own, so that a quoted include of the header cannot
  // find anything beside it before the include directory.
  v.unit_source = (dir / "unit" / fs::path(v.unit).filename()).string();
  atomicWrite(v.unit_source, p.originals.at(v.unit));
}

}  // namespace klineage
