#include "oracle.h"

#include <filesystem>

#include "compile.h"
#include "context.h"
#include "core/parallel.h"
#include "header_kernels.h"
#include "core/fs.h"
#include "oracle/promote_precision.h"
#include "result_cache.h"
#include "rewriter/apply.h"
#include "run_key.h"
#include "step_memo.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

// Why the oracle at `cubin` did not compile, remembered with the key of what it was compiled from
// (`<cubin>.failed`: the key, a newline, the reason); "" when there is no such record for `key`.
std::string failedCompile(const std::string& cubin, const std::string& key) {
  std::error_code ec;
  const std::string path = cubin + ".failed";
  if (!fs::exists(path, ec)) return "";
  const std::string text = readFile(path);
  const size_t nl = text.find('\n');
  if (nl == std::string::npos || text.compare(0, nl, key) != 0) return "";
  return text.substr(nl + 1);
}

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
    // remembered across runs: an edit of one kernel's file promotes only that file's kernels again
    promoted[i] = memoStep(p, p.originals, k.range.file, k.name, promotePrecision(), Direction::Forward, {}, {},
                           k.in_header ? unitOf(k) : "");
  });
  std::vector<CompileRequest> reqs;
  std::vector<KernelPlan*> req_plan;
  std::vector<std::string> keys;
  // An oracle whose stamp holds the key of its compile now (the promoted text, the unit's text for a
  // header kernel, the flags, the compiler, the project headers) is the last run's: not compiled again.
  const bool stamps = p.cache && p.cache->knowsProjectHeaders();
  size_t unchanged = 0;
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
    CompileRequest req{k.name + "/oracle",
                       nvccCubinArgs(p.cfg.nvcc, p.setup.nvcc_flags.at(flags_of), p.archFor(flags_of), compiled, cubin, includes),
                       cubin};
    std::string key;
    if (stamps) {
      std::string text = "klineage-oracle-compile-1\n" + fileStamp(req.argv[0]) + "\n";
      for (const auto& a : req.argv) text += a + "\x1f";
      text += "\n" + fnv1a64Hex(readFile(v.source)) + "\n" + (k.in_header ? fnv1a64Hex(readFile(v.unit_source)) : "") +
              "\n" + p.cache->projectHeaders();
      key = fnv1a64Hex(text);
      if (stampHolds(cubin, key)) {
        plan.oracle_cubin = cubin;
        ++unchanged;
        continue;
      }
      // A promoted kernel that did not compile with the same inputs does not compile now either.
      if (std::string failed = failedCompile(cubin, key); !failed.empty()) {
        plan.oracle_none = failed;
        ++unchanged;
        continue;
      }
    }
    reqs.push_back(std::move(req));
    req_plan.push_back(&plan);
    keys.push_back(key);
  }
  if (!reqs.empty() || unchanged)
    p.status.info("klineage: compiling " + std::to_string(reqs.size()) + " oracle(s) (the originals promoted to double)" +
                  (unchanged ? "; " + std::to_string(unchanged) + " unchanged since the last run" : std::string()));
  const std::vector<CompileResult> res = compileAll(p.compiler, reqs, p.jobs);
  for (size_t i = 0; i < reqs.size(); ++i) {
    KernelPlan& plan = *req_plan[i];
    std::error_code ec;
    if (res[i].ok) {
      plan.oracle_cubin = reqs[i].cubin;
      if (stamps) writeStamp(reqs[i].cubin, keys[i]);
      fs::remove(reqs[i].cubin + ".failed", ec);
    } else {
      plan.oracle_none = "the promoted kernel does not compile: " + firstError(res[i].log);
      if (stamps) atomicWrite(reqs[i].cubin + ".failed", keys[i] + "\n" + plan.oracle_none);
    }
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
