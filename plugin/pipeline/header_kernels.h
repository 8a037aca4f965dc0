// Kernels defined in headers (issue 7): a header kernel's variants are the header rewritten,
// compiled through a target source that includes it, with the rewritten header first on the
// include path under the name the source includes it by.
#pragma once
#include <filesystem>
#include <string>

#include "core/manifest.h"
#include "gate/variant.h"
#include "setup.h"

namespace klineage {

struct Pipeline;

// The target source a kernel's code compiles through: its own file, or for a kernel in a header the
// first of its units (the plan puts the unit that launches the gated instantiation first).
inline const std::string& unitOf(const KernelInfo& k) {
  return k.in_header && !k.units.empty() ? k.units[0] : k.range.file;
}

// The name `unit` finds `header` by: `spelled` (as the #include wrote it) when it leads there from
// the unit's directory or one of its -I directories; else the header relative to the unit's
// directory, else to the first -I directory that holds it; "" when none does (then no copy can be
// put ahead of it).
std::string includeName(const TargetSetup& s, const std::string& unit, const std::string& header,
                        const std::string& spelled = "");
// The same for a kernel in a header (its recorded #include spelling).
inline std::string includeName(const TargetSetup& s, const std::string& unit, const KernelInfo& k) {
  return includeName(s, unit, k.range.file, k.included_as);
}

// A header a header kernel's variant puts ahead of the original, at `name` under its include directory.
struct MirroredHeader {
  std::string name, file;
  bool operator==(const MirroredHeader& o) const { return name == o.name && file == o.file; }
};

// What a header kernel's variant must find ahead of the originals, in `unit`: the headers on the
// include path from the unit down to the kernel's (any depth), and every header those include
// beside themselves (a quoted #include that resolves next to the including file), each under the
// name its includer finds it by. The kernel's header is among them. The first header takes the
// name the unit finds it by (includeName); one found beside its includer follows its includer's
// copy; one found through -I keeps its name under the -I directory. Empty with why when a header
// cannot be placed (no name, a name that climbs out with "..", two files at one name).
std::vector<MirroredHeader> mirroredHeaders(const Pipeline& p, const std::string& unit, const KernelInfo& k,
                                            std::string* why);

// Writes a variant's text (the kernel file's) under `dir` and sets v.source; for a header kernel,
// the header at dir/include/<its mirrored name>, the unchanged copies of the other mirrored
// headers beside it, and a copy of the unit at dir/unit/, setting v.unit, v.unit_source and
// v.include_dir.
void writeVariantFiles(const Pipeline& p, const KernelInfo& k, const std::filesystem::path& dir, const std::string& text,
                       Variant& v);

}  // namespace klineage
