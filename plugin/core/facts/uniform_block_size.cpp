// uniform-block-size: every launch of the kernel uses the workload's block size (what
// __launch_bounds__ and a block-shaped rewrite must hold for: every launch, not only the gated one).
// A launch site proves it when its block resolves to a constant (core/launch_expr.h: literals,
// constexpr, macros, dim3 locals); a site whose block is known only at run time (a launcher
// parameter) counts when a capture shows every launch of the kernel used that one block.
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
    if (l.block_value) {
      if (*l.block_value != facts.block_threads)
        return no("the block size at " + at + " is " + std::to_string(*l.block_value) + ", the workload's is " +
                  std::to_string(facts.block_threads));
      continue;
    }
    const Dim3* only = facts.captured_blocks.size() == 1 ? &facts.captured_blocks[0] : nullptr;
    if (only && only->x * only->y * only->z == facts.block_threads) continue;  // from the capture
    std::string w = "the block size at " + at + " (" + l.block + ") is not a compile-time constant";
    if (!l.block_unresolved.empty()) w += " (" + l.block_unresolved + ")";
    if (facts.captured_blocks.size() > 1)
      w += ", and the captured launches used " + std::to_string(facts.captured_blocks.size()) + " different blocks";
    else if (facts.captured_blocks.empty())
      w += ", and no captured launch shows what it is";
    return no(w);
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

void blockFromParameter(KernelInfo& k, WorkloadFacts& f) {
  launchesAt256(k, f);
  k.launches[1].block = "threads";
  k.launches[1].block_value.reset();
  k.launches[1].block_expr = {LaunchExpr::param("threads"), LaunchExpr::constant(1), LaunchExpr::constant(1)};
}

}  // namespace

const Fact& fact_uniform_block_size() {
  static const Fact f{
      "uniform-block-size",
      "every launch site of the kernel in the manifest has a block size that resolves to a constant (a literal, a "
      "constexpr or macro, a dim3 built in place or in a local such as dim3 block(16, 16)), all equal to the "
      "workload's block size (threads per block); with a capture, a site whose block is known only at run time (a "
      "parameter of the launching function) counts when every captured launch used that one block.",
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
          {"uniform-block-size", false, "(threads) is not a compile-time constant, and no captured launch shows",
           blockFromParameter},
          {"uniform-block-size", true, "",
           [](KernelInfo& k, WorkloadFacts& f) {
             blockFromParameter(k, f);
             f.captured_blocks = {Dim3{256, 1, 1}};
             f.captured_launches = 3;
           }},
          {"uniform-block-size", false, "the captured launches used 2 different blocks",
           [](KernelInfo& k, WorkloadFacts& f) {
             blockFromParameter(k, f);
             f.captured_blocks = {Dim3{256, 1, 1}, Dim3{128, 1, 1}};
           }},
          {"uniform-block-size", false, "/src/app.cu:10 is 256, the workload's is 128",
           [](KernelInfo& k, WorkloadFacts& f) {  // the capture does not override a constant site
             blockFromParameter(k, f);
             f.block_threads = 128;
             f.captured_blocks = {Dim3{128, 1, 1}};
           }},
      }};
  return f;
}

}  // namespace klineage
