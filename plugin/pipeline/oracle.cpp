#include "oracle.h"

#include <filesystem>

#include "compile.h"
#include "context.h"
#include "core/parallel.h"
#include "header_kernels.h"
#include "oracle/promote_precision.h"
#include "rewriter/apply.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

// The first line of a compiler log that says "error", else its first line.
std::string firstError(const std::string& log) {
  std::string first;
  size_t at = 0;
  while (at < log.size()) {
    const size_t end = std::min(log.find('\n', at), log.size());
    const std::string line = log.substr(at, end - at);
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos) return line;
    at = end + 1;
  }
  return first;
}

}  // namespace

void prepareOracles(Pipeline& p, Plans& plans) {
  // Each kernel's promotion parses its unit with clang: several kernels at once.
  std::vector<StepResult> promoted(plans.kernels.size());
  parallelFor(plans.kernels.size(), p.jobs, [&](size_t i) {
    const KernelPlan& plan = plans.kernels[i];
    const KernelInfo& k = *plan.info;
    if (plan.wk && plan.wk->check_given) return;
    promoted[i] = applyStep(p.originals, p.setup.clang_args, k.range.file, k.name, promotePrecision(), Direction::Forward,
                            {}, {}, k.in_header ? unitOf(k) : "");
  });
  std::vector<CompileRequest> reqs;
  std::vector<KernelPlan*> req_plan;
  for (size_t i = 0; i < plans.kernels.size(); ++i) {
    KernelPlan& plan = plans.kernels[i];
    const KernelInfo& k = *plan.info;
    if (plan.wk && plan.wk->check_given) {
      plan.oracle_none = "the workload gives this kernel's tolerance (check in " + plan.wk->file + ")";
      continue;
    }
    const StepResult& r = promoted[i];
    if (!r.applied) {
      plan.oracle_none = r.reason + (r.errors.empty() ? "" : ": " + r.errors.front());
      continue;
    }
    const fs::path dir = p.layout.oracleDir(k.name);
    Variant v;
    writeVariantFiles(p, k, dir, r.overlay.at(k.range.file), v);
    const std::string& compiled = k.in_header ? v.unit_source : v.source;
    const std::string& flags_of = k.in_header ? v.unit : k.range.file;
    std::vector<std::string> includes{fs::path(flags_of).parent_path().string()};
    if (k.in_header) includes.insert(includes.begin(), v.include_dir);
    const std::string cubin = (dir / "oracle.cubin").string();
    reqs.push_back({k.name + "/oracle",
                    nvccCubinArgs(p.cfg.nvcc, p.setup.nvcc_flags.at(flags_of), p.archFor(flags_of), compiled, cubin, includes),
                    cubin});
    req_plan.push_back(&plan);
  }
  if (!reqs.empty())
    p.status.info("klineage: compiling " + std::to_string(reqs.size()) + " oracle(s) (the originals promoted to double)");
  const std::vector<CompileResult> res = compileAll(p.compiler, reqs, p.jobs);
  for (size_t i = 0; i < reqs.size(); ++i) {
    KernelPlan& plan = *req_plan[i];
    if (res[i].ok) plan.oracle_cubin = reqs[i].cubin;
    else plan.oracle_none = "the promoted kernel does not compile: " + firstError(res[i].log);
  }
  for (KernelPlan& plan : plans.kernels) {
    plan.notes.push_back(plan.oracle_cubin.empty()
                             ? "no oracle (" + plan.oracle_none + "): float outputs are compared with the tolerance"
                             : "oracle: the original promoted to double (" + plan.oracle_cubin +
                                   "); float outputs are judged by their error against it");
    if (plan.oracle_cubin.empty()) p.status.kernelNote(plan.info->name, plan.notes.back());
  }
}

}  // namespace klineage
