// Variants and their gate results: the plain data the stages hand each other, written as JSON
// under <build>/klineage/<target>/ (variants/, gate/, report.json).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/job.h"
#include "core/manifest.h"
#include "core/outcome.h"

namespace klineage {

struct Variant {
  std::string id;                    // "saxpy/3" ("saxpy/original" for the reference)
  std::string kernel;
  std::string kernel_file;           // original source that defines the kernel
  std::vector<std::string> skills;   // skill ids, in the order applied
  std::vector<std::string> transforms;
  GeometryChange geometry;           // composed launch change
  std::string source;                // the variant's translation unit (under the build tree)
  std::string mangled_name;          // the kernel's name in the variant's module
  std::string diff;                  // against the original, for people
  bool is_original = false;
  // A hand-written variant whose launch code differs from the original's: its own launch sites,
  // which the gate evaluates for every shape it runs (core/launch_eval.h).
  std::vector<LaunchSite> own_launches;
  // Sizes this variant is only right for (argument -> divisor), recorded by its transforms;
  // probe shapes that break them are not run.
  std::map<std::string, long long> divisible_by;
  // A kernel defined in a header: `source` is the header's rewritten text, under include_dir at the
  // name the unit includes it by; unit_source is a copy of `unit` (the target source that includes
  // it), compiled with include_dir first on the include path. Empty for a kernel in a source.
  std::string unit;
  std::string unit_source;
  std::string include_dir;
};

struct VariantReport {
  Variant variant;
  Outcome outcome = Outcome::NotRun;
  std::string reason;
  std::string cubin;
  double compile_s = 0;
  std::optional<RunnerResult> run;
  double speedup = 0;
  double variant_ms = 0, original_ms = 0;
  bool rechecked = false;            // the winner's re-check before it is kept (fresh data, probes)
  std::vector<std::string> checks;   // what else it went through: "re-checked: ...", "compute-sanitizer memcheck: clean"
  // The result cache (plugin/pipeline/result_cache.h): the key this result is stored under, and
  // whether it was read from there instead of gated in this run.
  std::string cache_key;
  bool cached = false;
  // Not gated: the same code and launch as this variant (or "<kernel>/original") of the kernel.
  std::string same_as;
};

void to_json(nlohmann::json& j, const Variant& v);
void from_json(const nlohmann::json& j, Variant& v);
void to_json(nlohmann::json& j, const VariantReport& r);
// report.json's "error" of a gated variant: {"original": {max_rel, l2_rel}, "variant": {...},
// "output": <the output with the largest ratio of the two>, "oracle": "promoted" | "none: <why>"}
// (original and variant null where no output was judged against the oracle).
nlohmann::json errorSummary(const RunnerResult& run);

// The fastest passing variant per kernel (ties within 0.5%: fewer transforms). Kernels without a
// passing variant are absent. Slower, failed and not-run variants are never selected.
std::map<std::string, const VariantReport*> selectBest(const std::vector<VariantReport>& reports);

}  // namespace klineage
