#include "per_kernel.h"

#include <algorithm>
#include <exception>

#include "context.h"
#include "core/parallel.h"
#include "status.h"
#include "variant_source.h"

namespace klineage {

std::vector<KernelAnswer> askPerKernel(Pipeline& p, size_t kernels, const std::vector<std::unique_ptr<VariantSource>>& sources,
                                       const KernelAsk& ask) {
  const size_t n_sources = sources.size();
  struct Task {
    KernelAnswer answer;
    BufferedStatus lines;
    std::exception_ptr failed;
    bool at_once = false;
  };
  std::vector<Task> tasks(kernels * n_sources);  // [k * n_sources + s]
  std::vector<size_t> at_once;
  for (size_t k = 0; k < kernels; ++k)
    for (size_t s = 0; s < n_sources; ++s)
      if (sources[s]->kernelsAtOnce()) {
        tasks[k * n_sources + s].at_once = true;
        at_once.push_back(k * n_sources + s);
      }
  auto run = [&](size_t t, Status& status) {
    Task& task = tasks[t];
    try {
      Pipeline q = p.withStatus(status);
      task.answer.reports = ask(*sources[t % n_sources], q, t / n_sources, &task.answer.refusals);
    } catch (...) {
      task.failed = std::current_exception();
    }
  };
  parallelFor(at_once.size(), p.jobs, [&](size_t i) { run(at_once[i], tasks[at_once[i]].lines); });

  std::vector<KernelAnswer> out(kernels);
  for (size_t t = 0; t < tasks.size(); ++t) {
    Task& task = tasks[t];
    if (task.at_once) task.lines.replay(p.status);
    else run(t, p.status);
    if (task.failed) std::rethrow_exception(task.failed);
    KernelAnswer& a = out[t / n_sources];
    for (auto& r : task.answer.reports) a.reports.push_back(std::move(r));
    for (auto& r : task.answer.refusals) a.refusals.push_back(std::move(r));
  }
  return out;
}

}  // namespace klineage
