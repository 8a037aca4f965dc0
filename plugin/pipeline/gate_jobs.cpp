#include "gate_jobs.h"

#include <algorithm>

#include "core/capture_facts.h"
#include "core/fs.h"
#include "core/launch_eval.h"

namespace klineage {

std::optional<std::pair<LaunchSite, Geometry>> commonSiteGeometry(const KernelInfo& k,
                                                                  const std::map<std::string, double>& scalars,
                                                                  const Geometry& declared, std::string* why) {
  std::optional<std::pair<LaunchSite, Geometry>> common;
  for (const auto& l : k.launches) {
    if (!l.in_target_sources) continue;
    std::string w;
    auto g = evalLaunchSite(l, k, scalars, &w, launcherValues(l, declared));
    if (!g) {
      *why = describeLaunchSite(k, l) + ": " + w;
      return std::nullopt;
    }
    if (common && !(common->second == *g)) {
      *why = "its launch sites launch it differently (" + describeLaunchSite(k, common->first) + " and " +
             describeLaunchSite(k, l) + ")";
      return std::nullopt;
    }
    if (!common) common = std::make_pair(l, *g);
  }
  if (!common) *why = "no launch site in the target's sources";
  return common;
}

namespace {

// The values of the launching function's parameters that the original's launch `original` shows
// (a launch site whose block is `block_size` launched with block 256: block_size = 256), for the
// sites of `launcher`: what a variant's own launch in that function reads.
std::map<std::string, long long> launcherValuesShown(const KernelInfo& k, const std::string& launcher,
                                                     const Geometry& original) {
  std::map<std::string, long long> out;
  for (const auto& l : k.launches)
    if (l.in_target_sources && l.launcher == launcher) out.merge(launcherValues(l, original));
  return out;
}

}  // namespace

Geometry originalGeometry(const KernelPlan& plan, const Geometry& declared, const std::map<std::string, double>& scalars) {
  if (!plan.site) return declared;
  std::string why;
  auto g = evalLaunchSite(*plan.site, *plan.info, scalars, &why, launcherValues(*plan.site, declared));
  return g ? *g : declared;
}

std::optional<Geometry> variantGeometry(const KernelPlan& plan, const Variant& v, const Geometry& original,
                                        const std::map<std::string, double>& scalars, std::string* why) {
  if (v.own_launches.empty())
    return Geometry{applyGrid(v.geometry, original.grid), applyBlock(v.geometry, original.block), original.shmem};
  std::optional<Geometry> common;
  for (const auto& l : v.own_launches) {
    std::string w;
    auto g = evalLaunchSite(l, *plan.info, scalars, &w, launcherValuesShown(*plan.info, l.launcher, original));
    if (!g) {
      *why = "the variant launches the kernel differently from the original (" + describeLaunchSite(*plan.info, l) +
             "), and that launch cannot be evaluated for the gated launch's arguments: " + w +
             "; the gate runs only the launch that would be compiled";
      return std::nullopt;
    }
    if (common && !(*common == *g)) {
      *why = "the variant's launch sites launch the kernel differently from each other";
      return std::nullopt;
    }
    common = g;
  }
  return common;
}

ReplaySpec replaySpec(const KernelInfo& k, const std::string& record_dir, bool check_fidelity) {
  ReplaySpec rs;
  rs.record_dir = record_dir;
  for (const auto& prm : k.params) {
    rs.param_elem_types.push_back(prm.is_pointer ? elemTypeFromCType(prm.pointee) : std::nullopt);
    rs.param_names.push_back(prm.name);
  }
  rs.check_fidelity = check_fidelity;
  return rs;
}

namespace {

// How often the alignment test our vectorizing transforms write (rewriter/vector_access.h:
// `(... & 15) == 0`) occurs in a source file; 0 when it cannot be read.
size_t alignmentTests(const std::string& path) {
  std::string text;
  try {
    text = readFile(path);
  } catch (const std::exception&) {
    return 0;
  }
  size_t n = 0;
  for (size_t at = text.find("& 15) == 0"); at != std::string::npos; at = text.find("& 15) == 0", at + 1)) ++n;
  return n;
}

}  // namespace

namespace {

bool moreAlignmentTests(const VariantReport& original, const VariantReport& r) {
  return !r.variant.is_original && alignmentTests(r.variant.source) > alignmentTests(original.variant.source);
}

}  // namespace

std::string dropOriginalFailedProbe(RunnerJob& job, const RunnerResult& res) {
  if (res.outcome != Outcome::RuntimeFailed || res.original_failed_probe.empty()) return "";
  auto it = std::find_if(job.probes.begin(), job.probes.end(),
                         [&](const ProbeSpec& p) { return p.name == res.original_failed_probe; });
  if (it == job.probes.end()) return "";
  job.probes.erase(it);
  return "probe " + res.original_failed_probe + " left out: the original itself fails there (" + res.reason + ")";
}

std::optional<Probe> misalignedProbe(const KernelPlan& plan, const VariantReport& original, const VariantReport& r) {
  if (!plan.launch || !moreAlignmentTests(original, r)) return std::nullopt;
  Probe p{"misaligned:", *plan.launch};
  bool any = false;
  for (ParamSpec& prm : p.launch.params) {
    if (!prm.is_buffer) continue;
    const unsigned long long es = elemSize(prm.type);
    if (es >= 16) continue;  // off a 16-byte boundary would be off its own element's too
    unsigned long long off = prm.offset_elements + 1;
    if (off * es % 16 == 0) ++off;
    prm.offset_elements = off;
    p.name += std::string(any ? "," : "") + " " + prm.name + " " + std::to_string(off * es % 16) + " bytes past a 16-byte boundary";
    any = true;
  }
  if (!any) return std::nullopt;
  return p;
}

std::optional<RunnerJob> makeJob(const KernelPlan& plan, const VariantReport& original, const VariantReport& r,
                                 std::string* why) {
  const Geometry gated{plan.grid, plan.block, plan.shmem};
  auto vg = variantGeometry(plan, r.variant, gated, plan.scalars, why);
  if (!vg) return std::nullopt;
  RunnerJob job;
  job.tolerance = plan.tol;
  job.launch_timeout_s = plan.timeout_s;
  job.original = {original.cubin, original.variant.mangled_name, gated.grid, gated.block, gated.shmem, std::nullopt};
  job.variant = {r.cubin, r.variant.mangled_name, vg->grid, vg->block, vg->shmem, std::nullopt};
  if (!plan.oracle_cubin.empty()) job.oracle = OracleSpec{plan.oracle_cubin, original.variant.mangled_name, {}};
  else job.oracle_none = plan.oracle_none;
  if (plan.replay) job.replay = replaySpec(*plan.info, plan.replay->dir, /*check_fidelity=*/false);  // checked once
  else job.params = plan.launch->params;
  // A variant that tests its pointers' alignment (vectorize-access, the 4-wide reductions and rows)
  // runs its other branch only for pointers no declared launch has (allocations are 256-byte
  // aligned): one more probe, the declared launch with every buffer off a 16-byte boundary.
  std::vector<Probe> probes = plan.probes;
  if (auto m = misalignedProbe(plan, original, r)) probes.push_back(std::move(*m));
  for (const Probe& p : probes) {
    bool allowed = true;
    for (const auto& [arg, d] : r.variant.divisible_by) {
      auto it = p.launch.scalars.find(arg);
      if (it != p.launch.scalars.end() && d > 0 && static_cast<long long>(it->second) % d != 0) allowed = false;
    }
    if (!allowed) continue;
    const Geometry og = originalGeometry(plan, {p.launch.grid, p.launch.block, p.launch.shmem}, p.launch.scalars);
    auto pg = variantGeometry(plan, r.variant, og, p.launch.scalars, why);
    if (!pg) return std::nullopt;
    job.probes.push_back({p.name, p.launch.params, og, *pg});
  }
  return job;
}

std::optional<RunnerJob> misalignedReplay(const KernelPlan& plan, const VariantReport& original,
                                          const VariantReport& r, const RunnerJob& job) {
  if (!plan.replay || !job.replay || !moreAlignmentTests(original, r)) return std::nullopt;
  bool any = false;
  for (const auto& t : job.replay->param_elem_types) any = any || (t && elemSize(*t) < 16);
  if (!any) return std::nullopt;
  RunnerJob m = job;
  m.profile.enabled = false;
  m.probes.clear();  // run with the main job already
  m.replay->check_fidelity = false;
  m.replay->misalign_bytes = 8;
  return m;
}

std::optional<RunnerJob> jobOnRecord(const KernelPlan& plan, const Variant& v, RunnerJob job, const LaunchRecord& rec,
                                     std::string* why) {
  const Geometry og{rec.grid, rec.block, rec.shmem};
  auto vg = variantGeometry(plan, v, og, factsFromRecords({rec}, *plan.info).scalars, why);
  if (!vg) return std::nullopt;
  job.profile.enabled = false;
  job.probes.clear();  // run with the main job already
  job.replay->record_dir = rec.dir;
  job.original.grid = og.grid;
  job.original.block = og.block;
  job.original.shmem = og.shmem;
  job.variant.grid = vg->grid;
  job.variant.block = vg->block;
  job.variant.shmem = vg->shmem;
  return job;
}

}  // namespace klineage
