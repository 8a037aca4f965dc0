// What every pipeline stage reads: the target, where things go, and the replaceable seams (the
// compiler, the GPU backend, the capturer, the status observer), so tests can fake any of them.
#pragma once
#include <string>

#include "capture.h"
#include "gate/backend.h"
#include "gate/gate.h"
#include "layout.h"
#include "setup.h"
#include "status.h"

namespace klineage {

class ResultCache;

struct Pipeline {
  const TargetSetup& setup;
  const Config& cfg;
  BuildTreeLayout layout;
  Status& status;
  Compiler& compiler;
  GpuBackend& backend;
  Capturer& capturer;
  Overlay originals;         // every source of the target, as read at the start
  unsigned jobs = 1;         // parallel compiles
  DeviceProbe device;
  bool gpu = false;
  ResultCache* cache = nullptr;  // set: earlier gate results are reused and new ones stored (result_cache.h)
  std::vector<IncludeEdge> includes;  // the manifest's include tree (header kernels' mirrors, header_kernels.h)
  // The same pipeline telling another Status (a thread's BufferedStatus, replayed in order later).
  Pipeline withStatus(Status& s) const {
    return Pipeline{setup, cfg, layout, s, compiler, backend, capturer, originals, jobs, device, gpu, cache, includes};
  }
  // The architecture variants are compiled for: the device's, else the highest in the flags.
  std::string archFor(const std::string& source) const {
    return gpu && !device.arch.empty() ? device.arch : highestArch(setup.nvcc_flags.at(source));
  }
};

}  // namespace klineage
