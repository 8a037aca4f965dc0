// The normal form: before any skill's transform looks at a kernel, the kernel is brought to one
// documented shape by canonicalization passes (like a compiler's canonicalization before pattern
// matching), so a transform matches one spelling instead of every spelling users write. Each pass
// is a forward-only rewrite with the Transform interface (golden-tested from its own folder,
// rewriter/canonical/<id>/, with refusals like a transform), applied through applyStep so every
// step re-parses. Passes are not skills: no skill can name one, and they have no inverse.
// The variant is written from the transformed normal form (docs/pipeline.md, "The normal form").
#pragma once
#include <string>
#include <vector>

#include "rewriter/apply.h"
#include "rewriter/transform.h"

namespace klineage {

// How the pipeline's lines about a kernel's normal form start (report notes, not refusals).
inline constexpr const char* kNormalFormNote = "normal form: ";

// The passes in the order they run (each runs until it refuses, then the next).
const std::vector<const Transform*>& canonicalPasses();
const Transform* findCanonicalPass(const std::string& id);

struct CanonicalForm {
  Overlay overlay;                   // the target's sources with the kernel in normal form
  KernelInfo info;                   // the kernel as the normal form describes it (features, params)
  std::vector<std::string> applied;  // "<pass>: <what it did>", in order; empty: already normal
};

// The kernel `kernel_name` (defined in kernel_file; a header kernel through `unit`) in normal form.
// `original` describes the kernel as extracted; fields that describe its place in the target
// (launches, declarations, header, units, a template's gated instantiation) are kept from it.
// Deterministic: the same text gives the same normal form, so selection re-derives it.
CanonicalForm canonicalize(const Overlay& in, const ArgsByFile& args, const std::string& kernel_file,
                           const std::string& kernel_name, const KernelInfo& original, const std::string& unit = "");

}  // namespace klineage
