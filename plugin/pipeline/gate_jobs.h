// The runner jobs of a kernel plan: the launch each side gets on every shape (the plan's, each
// probe's, each other captured launch's), and one function that builds a job from (plan, variant,
// shape), so the variant's job, the other-shape checks and the winner's re-check agree.
#pragma once
#include <optional>
#include <string>

#include "core/job.h"
#include "gate/variant.h"
#include "plan.h"

namespace klineage {

// Every launch site of the kernel in the target's sources evaluates (core/launch_eval.h) to the
// same geometry for the plan's scalars: that site, with the geometry; else nullopt and why. A site
// whose grid or block is a parameter of the launching function reads it from `declared` (a
// workload's block 256 is what `block_size` must be for that launch).
std::optional<std::pair<LaunchSite, Geometry>> commonSiteGeometry(const KernelInfo& k,
                                                                  const std::map<std::string, double>& scalars,
                                                                  const Geometry& declared, std::string* why);

// The original's launch on a shape: the plan's site evaluated for these scalars, else `declared`.
Geometry originalGeometry(const KernelPlan& plan, const Geometry& declared, const std::map<std::string, double>& scalars);

// The variant's launch where the original's is `original`: its own launch sites evaluated for
// these scalars (a hand-written variant whose launch code differs; the launching function's
// parameters as the original's launch in that function shows them), else the original's with the
// variant's geometry change. nullopt (why) when its own launch does not evaluate or its sites
// disagree.
std::optional<Geometry> variantGeometry(const KernelPlan& plan, const Variant& v, const Geometry& original,
                                        const std::map<std::string, double>& scalars, std::string* why);

// The job for `variant` against `original` on the plan's shape, with the plan's probes. nullopt
// (why) when the variant's launch cannot be worked out.
std::optional<RunnerJob> makeJob(const KernelPlan& plan, const VariantReport& original, const VariantReport& variant,
                                 std::string* why);

// The probe makeJob adds for a variant whose source has more of our transforms' 16-byte alignment
// tests than the original's: the declared launch with every buffer of elements under 16 bytes
// passed off a 16-byte boundary, so the branch for misaligned pointers is run too. nullopt for
// other variants, and without a declared launch (a captured launch has its own pointers).
// A probe shape on which the original kernel itself failed (RunnerResult::original_failed_probe)
// is outside the original's own domain (a float4 row kernel probed with C = 4097), not evidence
// against the variant: it is removed from `job` so the job can run again without it. Returns the
// note for the report ("probe C = 4097 left out: ..."), or "" when the result names no probe of
// the job (the failure then stands).
std::string dropOriginalFailedProbe(RunnerJob& job, const RunnerResult& res);

std::optional<Probe> misalignedProbe(const KernelPlan& plan, const VariantReport& original, const VariantReport& variant);

// For a replayed variant whose source has more of those alignment tests than the original's: the
// job's captured launch replayed again with every allocation 8 bytes past a 16-byte boundary
// (replay.misalign_bytes; correctness only), the captured launch's counterpart of misalignedProbe.
// nullopt for other variants, for declared launches, and when no pointer parameter has a known
// element type under 16 bytes.
std::optional<RunnerJob> misalignedReplay(const KernelPlan& plan, const VariantReport& original,
                                          const VariantReport& variant, const RunnerJob& job);

// The same job moved to another captured launch (correctness only).
std::optional<RunnerJob> jobOnRecord(const KernelPlan& plan, const Variant& v, RunnerJob job, const LaunchRecord& rec,
                                     std::string* why);

// The limit on a whole runner process whose launches are each limited to `launch_timeout_s` by the
// runner's watchdog: a backstop for a runner stuck outside a kernel, generous enough for a job's
// many launches, copies and comparisons.
inline double runnerProcessLimit(double launch_timeout_s) { return 10 * launch_timeout_s + 60; }

// Replaying a captured launch of kernel k (pointee types and names from the manifest).
ReplaySpec replaySpec(const KernelInfo& k, const std::string& record_dir, bool check_fidelity);

}  // namespace klineage
