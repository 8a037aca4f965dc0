// Extraction: every __global__ kernel defined in a target's CUDA sources (and the non-system
// headers they include), with the facts the skills need, into a Manifest.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/flags.h"
#include "core/manifest.h"
#include "parse.h"

namespace clang {
class ASTContext;
class FunctionDecl;
}

namespace klineage {

struct SourceToParse {
  std::string file;                 // absolute path of the original source
  std::vector<std::string> clang_args;
};

// Facts about one kernel definition (launch sites are added by extractFromUnit), with the ids of
// the features it has (features/feature.h). `target_sources` decides in_header; without it, a
// kernel outside the main file is in a header.
KernelInfo describeKernel(clang::ASTContext& ctx, const clang::FunctionDecl* fd);
KernelInfo describeKernel(clang::ASTContext& ctx, const clang::FunctionDecl* fd,
                          const std::vector<std::string>* target_sources);

// Adds the kernels and launch sites of one parsed translation unit to `manifest`, de-duplicating
// kernels seen through several units (headers). `target_sources` decides in_header and
// in_target_sources.
void extractFromUnit(clang::ASTContext& ctx, const std::vector<std::string>& target_sources, Manifest& manifest);

// Parses every source and builds the manifest. A source clang cannot parse cleanly gets its first
// errors recorded in manifest.diagnostics; the kernels clang still understood are listed.
// `threads` sources are parsed at once (at most that many ASTs are held); the manifest is the
// same for any number. With `memo_dir` (and no overlay), each unit's part of the manifest is kept
// there and reused while the unit, every project file it read, its arguments, the target's sources
// and KLineage itself are unchanged (docs/pipeline.md): the manifest is the same as a fresh
// extraction's; `*reused` says how many units were not parsed.
Manifest extractManifest(const std::string& target, const std::vector<SourceToParse>& sources,
                         const Overlay& overlay = {},
                         const std::function<void(const std::string&)>& log = nullptr, unsigned threads = 1,
                         const std::string& memo_dir = "", unsigned* reused = nullptr);

}  // namespace klineage
