// no-overlap: no two pointer arguments reach the same memory.
#include "core/facts/fact.h"

namespace klineage {
namespace {

bool names(const std::string& written) { return written == "no-overlap"; }

bool check(const std::string&, const KernelInfo&, const WorkloadFacts& facts, std::string* why) {
  if (!facts.any_overlap) return true;
  if (why) *why = "two pointer arguments reach the same memory";
  return false;
}

}  // namespace

const Fact& fact_no_overlap() {
  static const Fact f{
      "no-overlap",
      "no two pointer arguments reach the same memory. The harness gives every buffer its own allocation, so this "
      "holds for a declared workload; a captured one proves it for the launches seen. It says nothing about other "
      "callers (see each skill's risks).",
      "no-overlap",
      names,
      check,
      {
          {"no-overlap", true, "", [](KernelInfo&, WorkloadFacts& f) { f.any_overlap = false; }},
          {"no-overlap", false, "two pointer arguments reach the same memory",
           [](KernelInfo&, WorkloadFacts& f) { f.any_overlap = true; }},
      }};
  return f;
}

}  // namespace klineage
