// What `klineage optimize` and `klineage mine` both do before they plan: the pipeline over the
// caller's seams (the real ones where none is given), the sources as read at the start, and the
// RUN program's captured launches.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "context.h"
#include "core/launch_record.h"
#include "core/manifest.h"
#include "optimize.h"

namespace klineage {

// The real parts a run needs where the caller gave none.
struct OwnedSeams {
  std::unique_ptr<Compiler> compiler;
  std::unique_ptr<GpuBackend> backend;
  std::unique_ptr<Capturer> capturer;
  RecordingStatus quiet;
};

// The pipeline over `seams`, with `own`'s parts where a seam is missing (a backend `own` already
// holds is kept: the no-op check may have made one).
Pipeline makePipeline(const TargetSetup& setup, const BuildTreeLayout& layout, const PipelineSeams& seams,
                      OwnedSeams& own);

// Every source of the target, and each header that defines a kernel, as read now (variants are
// written against these texts).
void readOriginals(Pipeline& p, const Manifest& manifest);

// Kernel name -> the RUN program's captured launches: none without RUN or without a GPU (then the
// workload, where there is one, is used); nullopt when the capture failed (reported as an error).
std::optional<std::map<std::string, std::vector<LaunchRecord>>> capturedLaunches(Pipeline& p, const Manifest& manifest);

}  // namespace klineage
