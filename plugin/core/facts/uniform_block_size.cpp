// uniform-block-size: every launch site of the kernel has a compile-time block size, all equal to
// the workload's (what __launch_bounds__ must hold for: every launch, not only the workload's).
#include "core/facts/fact.h"

namespace klineage {
namespace {

bool names(const std::string& written) { return written == "uniform-block-size"; }

bool check(const std::string&, const KernelInfo& k, const WorkloadFacts& facts, std::string* why) {
  auto no = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  if (k.launches.empty()) return no("no launch site of '" + k.name + "' was seen");
  for (const auto& l : k.launches) {
    std::string at = l.file + ":" + std::to_string(l.line);
    if (!l.block_value) return no("the block size at " + at + " (" + l.block + ") is not a compile-time constant");
    if (*l.block_value != facts.block_threads)
      return no("the block size at " + at + " is " + std::to_string(*l.block_value) + ", the workload's is " +
                std::to_string(facts.block_threads));
  }
  return true;
}

void launchesAt256(KernelInfo& k, WorkloadFacts& f) {
  f.block_threads = 256;
  for (unsigned line : {10u, 20u}) {
    LaunchSite l;
    l.file = "/src/app.cu";
    l.line = line;
    l.block = "256";
    l.block_value = 256;
    k.launches.push_back(l);
  }
}

}  // namespace

const Fact& fact_uniform_block_size() {
  static const Fact f{
      "uniform-block-size",
      "every launch site of the kernel in the manifest has a compile-time block size (an integer, or a dim3 built in "
      "place such as dim3(16, 16)), all equal to the workload's "
      "block size (threads per block).",
      "uniform-block-size",
      names,
      check,
      {
          {"uniform-block-size", true, "", launchesAt256},
          {"uniform-block-size", false, "no launch site of 'k' was seen",
           [](KernelInfo&, WorkloadFacts& f) { f.block_threads = 256; }},
          {"uniform-block-size", false, "/src/app.cu:20 is 128, the workload's is 256",
           [](KernelInfo& k, WorkloadFacts& f) {
             launchesAt256(k, f);
             k.launches[1].block = "128";
             k.launches[1].block_value = 128;
           }},
          {"uniform-block-size", false, "(threads) is not a compile-time constant",
           [](KernelInfo& k, WorkloadFacts& f) {
             launchesAt256(k, f);
             k.launches[1].block = "threads";
             k.launches[1].block_value.reset();
           }},
      }};
  return f;
}

}  // namespace klineage
