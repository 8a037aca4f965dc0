#include "run_setup.h"

#include "captures.h"
#include "core/fs.h"

namespace klineage {

Pipeline makePipeline(const TargetSetup& setup, const BuildTreeLayout& layout, const PipelineSeams& seams,
                      OwnedSeams& own) {
  Status& status = seams.status ? *seams.status : own.quiet;
  if (!seams.compiler) own.compiler = makeProcessCompiler();
  if (!seams.backend && !own.backend)
    own.backend = seams.runner ? makeLocalBackend([r = seams.runner](int) { return borrowedRunner(*r); }, 1)
                               : makeBackend(setup.config, layout.staging().string());
  if (!seams.capturer) own.capturer = makeProgramCapturer();
  return Pipeline{setup, setup.config, layout, status,
                  seams.compiler ? *seams.compiler : *own.compiler, seams.backend ? *seams.backend : *own.backend,
                  seams.capturer ? *seams.capturer : *own.capturer, {}, 1, {}, false};
}

void readOriginals(Pipeline& p, const Manifest& manifest) {
  for (const auto& f : p.setup.originals) p.originals[f] = readFile(f);
  for (const auto& k : manifest.kernels)
    if (k.in_header && !p.originals.count(k.range.file)) p.originals[k.range.file] = readFile(k.range.file);
}

std::optional<std::map<std::string, std::vector<LaunchRecord>>> capturedLaunches(Pipeline& p, const Manifest& manifest) {
  if (p.cfg.run_command.empty()) return std::map<std::string, std::vector<LaunchRecord>>{};
  if (!p.gpu) {
    p.status.info("klineage: no CUDA device: the RUN program cannot be captured; using the workload where there is one");
    return std::map<std::string, std::vector<LaunchRecord>>{};
  }
  try {
    return obtainCaptures(p, manifest);
  } catch (const CaptureFailed& e) {
    p.status.error(e.what());
    return std::nullopt;
  }
}

}  // namespace klineage
