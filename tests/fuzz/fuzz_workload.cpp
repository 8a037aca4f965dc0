// Fuzzes the workload reader (core/workload.h loadWorkload): the input is one klineage.toml. An
// accepted workload is also evaluated (prepareLaunch) against a kernel whose parameters match its
// arguments (buffers: float*, integer scalars: long long, float scalars: double), as
// validateWorkload does with the extracted kernels, so the expressions are evaluated too.
#include "fuzz_common.h"

#include "core/diag.h"
#include "core/probes.h"
#include "core/workload.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {
void requireInputError(const InputError& e, const std::string& file) {
  if (e.file != file) fuzz::fail("InputError names " + e.file + ", not the workload " + file + ": " + e.what());
  fuzz::requireNames(e.what(), file, "InputError");
}

KernelInfo kernelFor(const WorkloadKernel& wk) {
  KernelInfo k;
  k.name = wk.name;
  for (const auto& a : wk.args) {
    ParamInfo p;
    p.name = a.name;
    if (a.is_buffer) {
      p.type = "float *";
      p.is_pointer = true;
      p.pointee = "float";
      p.size_bytes = 8;
    } else {
      p.type = a.is_int ? "long long" : "double";
      p.size_bytes = 8;
    }
    k.params.push_back(p);
  }
  return k;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string file = (fuzz::scratch() / "klineage.toml").string();
  fuzz::writeFile(file, data, size);

  Workload w;
  try {
    w = loadWorkload(file);
  } catch (const InputError& e) {
    requireInputError(e, file);
    fuzz::verdict(std::string("rejected: ") + e.what());
    return 0;
  } catch (const std::exception& e) {
    fuzz::unexpected(e, "loadWorkload");
  }
  if (w.kernels.empty()) fuzz::fail("accepted a workload without kernels");
  fuzz::verdict("accepted " + std::to_string(w.kernels.size()) + " kernel(s)");
  for (const auto& wk : w.kernels) {
    if (wk.grid.empty() || wk.grid.size() > 3 || wk.block.empty() || wk.block.size() > 3)
      fuzz::fail("accepted kernel '" + wk.name + "' with " + std::to_string(wk.grid.size()) + " grid and " +
                 std::to_string(wk.block.size()) + " block dimensions");
    try {
      PreparedLaunch l = prepareLaunch(wk, kernelFor(wk));
      (void)deriveFacts(l);
      // The gate's probe shapes of an accepted entry evaluate or are left out, never throw.
      const std::vector<Probe> probes = probeLaunches(wk, kernelFor(wk));
      if (probes.size() > kMaxProbes) fuzz::fail("more than kMaxProbes probe shapes");
      fuzz::verdict("  " + wk.name + ": prepared, " + std::to_string(probes.size()) + " probe(s)");
    } catch (const InputError& e) {
      requireInputError(e, file);
      fuzz::verdict("  " + wk.name + ": not prepared: " + e.what());
    } catch (const std::exception& e) {
      fuzz::unexpected(e, "prepareLaunch");
    }
  }
  return 0;
}
