// Applying transforms to a target's sources held in memory, re-parsing between steps, and
// rewriting a kernel's launch sites for a geometry change.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "parse.h"
#include "transform.h"

namespace klineage {

using ArgsByFile = std::map<std::string, std::vector<std::string>>;  // clang args per target source

struct StepResult {
  bool applied = false;
  std::string reason;
  GeometryChange geometry;          // the step's launch change (an inverse's undoes its forward's)
  Overlay overlay;                  // all target sources after the step (unchanged when !applied)
  std::vector<std::string> errors;  // parse errors that stopped the step
  KernelInfo kernel_after;          // the edited kernel, described from the re-parsed file
};

// One transform on one kernel (by name, defined in kernel_file). On success the edited file parses
// again without errors; otherwise the step is refused with the errors. A kernel defined in a
// header is rewritten through `unit`, a target source that includes it: the unit is parsed (the
// header's text from the overlay) and only the header is edited.
StepResult applyStep(const Overlay& in, const ArgsByFile& args, const std::string& kernel_file,
                     const std::string& kernel_name, const Transform& t, Direction dir,
                     const TransformParams& params, const TransformFacts& facts, const std::string& unit = "");

// Rewrites every launch of `kernel_name` in the overlay's files for `change`, wrapping the user's
// own expressions: k<<<G, B>>> -> k<<<((G) + 3) / 4, B>>> (dim3 grids: dim3(((G).x + 3) / 4, ...)).
// Returns false with `why` when a launch cannot be rewritten (e.g. written inside a macro).
// `in_files`, when given, are the only files looked in (where extraction found the kernel's
// launches): each file is a Clang parse, and a target has many files that launch nothing of it.
bool rewriteLaunches(Overlay& overlay, const ArgsByFile& args, const std::string& kernel_name,
                     const GeometryChange& change, std::string* why, unsigned* rewritten = nullptr,
                     const std::set<std::string>* in_files = nullptr);

// Unified-style summary of what changed between two texts (for reports and logs).
std::string describeDiff(const std::string& before, const std::string& after, unsigned context = 1);

}  // namespace klineage
