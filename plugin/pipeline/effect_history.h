// What skills did to kernels, step by step, as the gate measured it: the planner's memory
// (docs/pipeline.md, "The planner"). Every `klineage optimize` appends its gated steps to
// <out>/cache/effects.json; a skill directory may ship an effects.json too (measured on the
// bundled examples), read-only. The planner orders a kernel's candidate skills by what they did
// on kernels with the same features, and leaves out those that never paid there.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/manifest.h"

namespace klineage {

class Status;

struct EffectRecord {
  std::string skill;
  std::string features;   // featureSignature() of the kernel the step was applied to
  std::string gpu;        // the device it was gated on
  std::string kernel;     // for people: "saxpy", and the chain before it
  std::string after;      // the skills applied before this step ("" for a first step)
  double gain = 0;        // the step's speedup over the chain before it; 0 when rejected
  double best = 0;        // the best speedup over that chain reached through this step (later steps too)
};

// The kernel's feature ids, sorted, comma-separated: "bounds_guard,pointer_params,thread_index".
std::string featureSignature(const KernelInfo& k);

class EffectHistory {
 public:
  // Records of a file, appended; a missing file adds nothing, an unreadable one warns (and adds nothing).
  void load(const std::filesystem::path& file, Status* status);
  // The newest kMaxRecords records, written atomically.
  void save(const std::filesystem::path& file) const;
  void add(EffectRecord r) { records_.push_back(std::move(r)); }
  const std::vector<EffectRecord>& records() const { return records_; }

  struct Expectation {
    double best = 0;  // median of `best` over the matching records
    size_t n = 0;     // how many matched
    bool same_gpu = false;
  };
  // What `skill` did on kernels with these features: records of `gpu` when there are any, else of
  // any GPU; nullopt when none.
  std::optional<Expectation> expected(const std::string& skill, const std::string& features, const std::string& gpu) const;

  static constexpr size_t kMaxRecords = 4096;

 private:
  std::vector<EffectRecord> records_;
};

}  // namespace klineage
