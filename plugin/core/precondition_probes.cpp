#include "core/precondition_probes.h"

#include <algorithm>

#include "core/facts/fact.h"
#include "core/probes.h"
#include "core/skill.h"

namespace klineage {

namespace {

// N of "aligned<N>(all pointers)" (0 for any other fact).
unsigned alignedN(const std::string& fact) {
  const Fact* f = findFact(fact);
  if (!f || f->id != "aligned<N>(all pointers)") return 0;
  const size_t open = fact.find('(');
  try {
    return static_cast<unsigned>(std::stoul(fact.substr(7, open - 7)));
  } catch (const std::exception&) {
    return 0;
  }
}

ParamSpec* findParam(PreparedLaunch& l, const std::string& name) {
  for (auto& p : l.params)
    if (p.name == name) return &p;
  return nullptr;
}

// Why the probe does not break `pre` alone ("" when it does): the facts it carries, checked on the
// probe's launch. divisible-sizes and block-size are not facts: nothing to check.
std::string breaksOnly(const PreconditionProbe& probe, const KernelInfo& k, const std::vector<std::string>& preconditions) {
  const WorkloadFacts wf = deriveFacts(probe.launch);
  for (const auto& f : preconditions) {
    if (!isKnownFact(f)) continue;
    std::string why;
    const bool holds = factHolds(f, k, wf, &why);
    if (f == probe.precondition && holds) return "the probe's launch still has " + f;
    if (f != probe.precondition && !holds) return "the probe breaks " + why + " as well";
  }
  return "";
}

struct Builder {
  const WorkloadKernel& wk;
  const KernelInfo& k;
  const PreparedLaunch& base;
  const std::vector<std::string>& preconditions;
  PreconditionProbes out;

  void add(PreconditionProbe p) {
    if (const std::string why = breaksOnly(p, k, preconditions); !why.empty()) {
      if (!out.unprobed.count(p.precondition)) out.unprobed[p.precondition] = p.name + ": " + why;
      return;
    }
    out.unprobed.erase(p.precondition);
    out.probes.push_back(std::move(p));
  }
  bool probed(const std::string& pre) const {
    for (const auto& p : out.probes)
      if (p.precondition == pre) return true;
    return false;
  }

  void misaligned(const std::string& fact, unsigned n) {
    PreconditionProbe p{fact, "misaligned:", base, false, true};
    bool any = false;
    for (auto& prm : p.launch.params) {
      if (!prm.is_buffer) continue;
      const unsigned es = elemSize(prm.type);
      if (es >= n) continue;  // misaligning it would misalign its own elements: no correct caller does
      const unsigned bytes = std::max(es, 4u) < n ? std::max(es, 4u) : es;
      prm.offset_elements += bytes / es;
      p.name += std::string(any ? "," : "") + " " + prm.name + " +" + std::to_string(bytes) + " bytes";
      any = true;
    }
    if (!any) {
      out.unprobed[fact] = "every pointer's element type is " + std::to_string(n) +
                           " bytes or larger: a pointer off a " + std::to_string(n) +
                           "-byte boundary would be off its own element type's too";
      return;
    }
    add(std::move(p));
  }

  void aliased() {
    // The first output, with the first input of its element type; the smaller points at the
    // start of the larger (in place), so both stay in bounds.
    for (const auto& o : base.params) {
      if (!o.is_buffer || !o.output) continue;
      for (const auto& i : base.params) {
        if (!i.is_buffer || i.output || i.type != o.type) continue;
        const bool out_smaller = o.elements <= i.elements;
        const ParamSpec& small = out_smaller ? o : i;
        const ParamSpec& large = out_smaller ? i : o;
        PreconditionProbe p{"no-overlap", "aliased: " + small.name + " = " + large.name + " (in place)", base, false, true};
        ParamSpec* a = findParam(p.launch, small.name);
        ParamSpec* t = findParam(p.launch, large.name);
        a->alias_of = large.name;
        a->offset_elements = large.offset_elements;
        // An input pointing into an output: the output holds the input's data, not poison.
        if (!out_smaller) t->init = a->init;
        add(std::move(p));
        return;
      }
    }
    out.unprobed["no-overlap"] = "no input buffer has an output's element type: nothing to overlap in place";
  }

  void blocks(const std::string& pre) {
    const Dim3 b = base.block;
    const long long threads = b.x * b.y * b.z;
    for (bool halve : {true, false}) {
      if (halve && (b.x < 2 || b.x % 2)) continue;
      if (!halve && threads * 2 > 1024) continue;
      PreconditionProbe p{pre, "", base, true, true};
      p.launch.block.x = halve ? b.x / 2 : b.x * 2;
      p.launch.grid.x = halve ? base.grid.x * 2 : (base.grid.x + 1) / 2;
      p.name = "block " + dimText(p.launch.block) + " (grid " + dimText(p.launch.grid) + ")";
      add(std::move(p));
    }
    if (!probed(pre) && !out.unprobed.count(pre))
      out.unprobed[pre] = "block " + dimText(b) + " can be neither halved nor doubled in x";
  }

  void sizes() {
    for (Probe& pr : probeLaunches(wk, k)) {
      // n + 1 is as large as the gated launch: worth timing; small and tiny are not.
      bool full = true;
      for (const auto& [name, v] : pr.launch.scalars) {
        auto it = base.scalars.find(name);
        if (it != base.scalars.end() && v < it->second) full = false;
      }
      add({kDivisibleSizes, pr.name, std::move(pr.launch), false, full});
    }
    if (!probed(kDivisibleSizes) && !out.unprobed.count(kDivisibleSizes))
      out.unprobed[kDivisibleSizes] = "no size argument (an integer scalar the workload's sizes or geometry use) to vary";
  }
};

}  // namespace

std::vector<std::string> probedPreconditions(const std::vector<std::string>& facts) {
  std::vector<std::string> pre = facts;
  pre.push_back(kDivisibleSizes);
  if (std::find(facts.begin(), facts.end(), "uniform-block-size") == facts.end()) pre.push_back(kBlockSize);
  return pre;
}

PreconditionProbes preconditionProbes(const WorkloadKernel& wk, const KernelInfo& k, const PreparedLaunch& base,
                                      const std::vector<std::string>& preconditions) {
  Builder b{wk, k, base, preconditions, {}};
  for (const auto& pre : preconditions) {
    if (const unsigned n = alignedN(pre)) b.misaligned(pre, n);
    else if (pre == "no-overlap") b.aliased();
    else if (pre == "uniform-block-size" || pre == kBlockSize) b.blocks(pre);
    else if (pre == kDivisibleSizes) b.sizes();
    else b.out.unprobed[pre] = "no probe breaks this precondition";
  }
  return b.out;
}

}  // namespace klineage
