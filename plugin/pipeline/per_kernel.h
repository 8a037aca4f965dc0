// Asking the variant sources about every planned kernel, several kernels at once where a source
// allows it (VariantSource::kernelsAtOnce). A kernel's skill search is a few Clang parses per step
// and kernels share none, so on 16 cores 16 kernels are rewritten at once; what comes out (the
// variants, their numbers, the refusals and the console's lines) is the same as one at a time.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gate/variant.h"

namespace klineage {

struct Pipeline;
class VariantSource;

struct KernelAnswer {
  std::vector<VariantReport> reports;
  std::vector<std::string> refusals;  // one line per way that did not apply
};

// What one source is asked about kernel `kernel`, through `q` (the pipeline, with a Status of its
// own when asked on another thread); refusals go to `refusals`.
using KernelAsk =
    std::function<std::vector<VariantReport>(VariantSource& s, Pipeline& q, size_t kernel, std::vector<std::string>* refusals)>;

// Every source's answers for each of `kernels` kernels: [k] holds kernel k's, in the sources'
// order. The sources that allow it are asked first, on up to p.jobs threads; then the others, one
// at a time. Every answer's lines reach p.status in kernel and source order. An exception from a
// source is rethrown (the first in that order) once every thread has finished.
std::vector<KernelAnswer> askPerKernel(Pipeline& p, size_t kernels, const std::vector<std::unique_ptr<VariantSource>>& sources,
                                       const KernelAsk& ask);

}  // namespace klineage
