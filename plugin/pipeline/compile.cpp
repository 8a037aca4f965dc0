#include "compile.h"

#include <filesystem>
#include <set>

#include "context.h"

namespace klineage {
namespace fs = std::filesystem;

OriginalCubins compileOriginals(Pipeline& p, const Manifest& manifest, const std::string& only_kernel) {
  std::vector<CompileRequest> reqs;
  std::set<std::string> files;
  for (const auto& k : manifest.kernels)
    if (!k.is_template && !k.in_header && (only_kernel.empty() || k.name == only_kernel)) files.insert(k.range.file);
  for (const auto& f : files) {
    const std::string cubin = p.layout.originalCubin(f).string();
    reqs.push_back({f, nvccCubinArgs(p.cfg.nvcc, p.setup.nvcc_flags.at(f), p.archFor(f), f, cubin), cubin});
  }
  auto res = compileAll(p.compiler, reqs, p.jobs);
  OriginalCubins out;
  for (size_t i = 0; i < reqs.size(); ++i) {
    out.cubin[reqs[i].id] = res[i].ok ? reqs[i].cubin : "";
    out.log[reqs[i].id] = res[i].log;
  }
  return out;
}

void compileVariants(Pipeline& p, std::vector<VariantReport>& reports) {
  std::vector<CompileRequest> reqs;
  std::vector<size_t> req_of;
  for (size_t i = 0; i < reports.size(); ++i) {
    auto& r = reports[i];
    if (r.variant.is_original || r.outcome != Outcome::NotRun || !r.reason.empty()) continue;  // refused already
    const std::string& f = r.variant.kernel_file;
    const std::string name = fs::path(r.variant.source).parent_path().filename().string();
    const std::string cubin = p.layout.variantCubin(r.variant.kernel, name).string();
    reqs.push_back({r.variant.id,
                    nvccCubinArgs(p.cfg.nvcc, p.setup.nvcc_flags.at(f), p.archFor(f), r.variant.source, cubin,
                                  {fs::path(f).parent_path().string()}),
                    cubin});
    req_of.push_back(i);
  }
  p.status.info("klineage: compiling " + std::to_string(reqs.size()) + " variants (" + std::to_string(p.jobs) +
                " at a time)");
  std::vector<CompileResult> compiled = compileAll(p.compiler, reqs, p.jobs);
  for (size_t j = 0; j < reqs.size(); ++j) {
    auto& r = reports[req_of[j]];
    r.cubin = reqs[j].cubin;
    r.compile_s = compiled[j].seconds;
    if (!compiled[j].ok) {
      r.outcome = Outcome::CompileFailed;
      r.reason = compiled[j].log.substr(0, 4000);
    }
  }
}

}  // namespace klineage
