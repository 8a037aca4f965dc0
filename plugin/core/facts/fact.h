// Workload facts: what a skill's preconditions.facts require the workload (declared or captured)
// to prove before its transform may run. Like the kernel features of the rewriter, each fact is
// one small unit {id, doc, check, examples} in its own file, core/facts/<id>.cpp, and one line in
// core/facts/registry.cpp. Facts need no Clang: they read the kernel's manifest entry
// (KernelInfo) and the evaluated workload (WorkloadFacts). The examples are checked by
// tests/core/test_skills.cpp for every registered fact.
#pragma once
#include <string>
#include <vector>

#include "core/manifest.h"
#include "core/workload.h"

namespace klineage {

struct FactExample {
  std::string written;  // the fact as a skill writes it
  bool holds;
  std::string why;      // when it does not hold: part of the reason check gives
  void (*setup)(KernelInfo& k, WorkloadFacts& f);  // from a kernel with two float pointers x, y
};

struct Fact {
  std::string id;    // how skills name it; a family names its form, e.g. "aligned<N>(all pointers)"
  std::string doc;   // "holds when ...", for people
  std::string form;  // how it is written, for the list of valid facts in error messages
  // Whether a skill's string names this fact (the id itself, or one member of the family).
  bool (*names)(const std::string& written);
  // Whether `facts` proves it for kernel `k`; when not, `why` says what failed.
  bool (*check)(const std::string& written, const KernelInfo& k, const WorkloadFacts& facts, std::string* why);
  std::vector<FactExample> examples;  // at least one that holds and one that does not
};

// Every registered fact, in the registry's order (core/facts/registry.cpp).
const std::vector<const Fact*>& allFacts();
// The fact a skill's string names, or null.
const Fact* findFact(const std::string& written);
std::vector<std::string> factIds();

}  // namespace klineage
