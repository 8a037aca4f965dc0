// aligned<N>(all pointers): every pointer argument's address is a multiple of N bytes.
#include <algorithm>
#include <cctype>

#include "core/facts/fact.h"

namespace klineage {
namespace {

// "aligned16(all pointers)" -> 16; 0 if not of that form (N a power of two from 2 to 256, written
// without leading zeros).
unsigned alignedBytes(const std::string& fact) {
  const std::string pre = "aligned", post = "(all pointers)";
  if (fact.size() <= pre.size() + post.size() || fact.compare(0, pre.size(), pre) != 0 ||
      fact.compare(fact.size() - post.size(), post.size(), post) != 0)
    return 0;
  std::string num = fact.substr(pre.size(), fact.size() - pre.size() - post.size());
  if (num.empty() || num.size() > 3 || !std::all_of(num.begin(), num.end(), ::isdigit)) return 0;
  unsigned n = static_cast<unsigned>(std::stoul(num));
  bool pow2 = n >= 2 && n <= kAllocationAlignment && (n & (n - 1)) == 0;
  return pow2 && std::to_string(n) == num ? n : 0;
}

bool names(const std::string& written) { return alignedBytes(written) != 0; }

bool check(const std::string& written, const KernelInfo&, const WorkloadFacts& facts, std::string* why) {
  unsigned n = alignedBytes(written);
  for (const auto& [param, align] : facts.alignment)
    if (align < n) {
      if (why) *why = "pointer '" + param + "' is only " + std::to_string(align) + "-byte aligned";
      return false;
    }
  return true;
}

}  // namespace

const Fact& fact_aligned() {
  static const Fact f{
      "aligned<N>(all pointers)",
      "every pointer argument's address is a multiple of N bytes; N is a power of two from 2 to 256 (e.g. "
      "aligned16(all pointers)). Allocations are 256-byte aligned, so only an offset lowers alignment: offset 1 on "
      "a float buffer gives 4.",
      "aligned<N>(all pointers) with N a power of two from 2 to 256",
      names,
      check,
      {
          {"aligned16(all pointers)", true, "", [](KernelInfo&, WorkloadFacts& f) { f.alignment = {{"x", 256}, {"y", 16}}; }},
          {"aligned16(all pointers)", false, "pointer 'y' is only 4-byte aligned",
           [](KernelInfo&, WorkloadFacts& f) { f.alignment = {{"x", 256}, {"y", 4}}; }},
          {"aligned4(all pointers)", true, "", [](KernelInfo&, WorkloadFacts& f) { f.alignment = {{"x", 256}, {"y", 4}}; }},
          {"aligned256(all pointers)", false, "pointer 'x' is only 128-byte aligned",
           [](KernelInfo&, WorkloadFacts& f) { f.alignment = {{"x", 128}, {"y", 256}}; }},
      }};
  return f;
}

}  // namespace klineage
