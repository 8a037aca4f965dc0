// Rewrites remembered across runs (in the result cache's directory): a transform step and a
// kernel's normal form are pure functions of the text Clang parses, the headers it reads, the
// flags, the step and KLineage itself, so an edit of one kernel's file re-parses only that file's
// steps; every other kernel's variants are made from the last run's answers, without Clang.
#pragma once
#include <set>
#include <string>

#include "apply.h"
#include "canonical/canonical.h"
#include "context.h"

namespace klineage {

// applyStep (apply.h), answered from the cache when the same step on the same input was taken
// before; without the cache (or before the project headers are known), applyStep itself.
StepResult memoStep(const Pipeline& p, const Overlay& in, const std::string& kernel_file, const std::string& kernel_name,
                    const Transform& t, Direction dir, const TransformParams& params, const TransformFacts& facts,
                    const std::string& unit = "");

// canonicalize (canonical.h), remembered the same way.
CanonicalForm memoCanonical(const Pipeline& p, const Overlay& in, const std::string& kernel_file,
                            const std::string& kernel_name, const KernelInfo& original, const std::string& unit = "");

}  // namespace klineage
