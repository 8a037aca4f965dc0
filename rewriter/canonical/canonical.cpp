#include "canonical.h"

#include <memory>

namespace klineage {

std::unique_ptr<Transform> makeExpandMacros();
std::unique_ptr<Transform> makeGridStrideWhile();
std::unique_ptr<Transform> makeEarlyReturnGuard();
std::unique_ptr<Transform> makeSplitBoundsGuard();
std::unique_ptr<Transform> makeSelectToMinMax();
std::unique_ptr<Transform> makeInlinePointerOffset();

const std::vector<const Transform*>& canonicalPasses() {
  // Macros first: a guard or an index written through a macro is then seen by the passes after it.
  static const std::vector<std::unique_ptr<Transform>> owned = [] {
    std::vector<std::unique_ptr<Transform>> v;
    v.push_back(makeExpandMacros());
    v.push_back(makeGridStrideWhile());
    v.push_back(makeEarlyReturnGuard());
    v.push_back(makeSplitBoundsGuard());
    v.push_back(makeSelectToMinMax());
    v.push_back(makeInlinePointerOffset());
    return v;
  }();
  static const std::vector<const Transform*> passes = [] {
    std::vector<const Transform*> v;
    for (const auto& p : owned) v.push_back(p.get());
    return v;
  }();
  return passes;
}

const Transform* findCanonicalPass(const std::string& id) {
  for (const Transform* t : canonicalPasses())
    if (t->id() == id) return t;
  return nullptr;
}

CanonicalForm canonicalize(const Overlay& in, const ArgsByFile& args, const std::string& kernel_file,
                           const std::string& kernel_name, const KernelInfo& original, const std::string& unit) {
  CanonicalForm out{in, original, {}};
  bool changed = false;
  for (const Transform* pass : canonicalPasses()) {
    // A pass handles one occurrence per step (an early return inside the guard another made):
    // it runs again until it has nothing left. The bound only stops a pass that would not converge.
    for (int round = 0; round < 32; ++round) {
      StepResult r = applyStep(out.overlay, args, kernel_file, kernel_name, *pass, Direction::Forward, {}, {}, unit);
      if (!r.applied) break;
      out.overlay = std::move(r.overlay);
      out.info = std::move(r.kernel_after);
      out.applied.push_back(pass->id() + ": " + r.reason);
      changed = true;
    }
  }
  if (!changed) return out;
  // Only what the body decides is taken from the normal form; what describes the kernel's place in
  // the target (launches, declarations, header, units, a template's instantiations and their
  // types) comes from extraction of the whole target.
  const KernelInfo after = std::move(out.info);
  out.info = original;
  out.info.features = after.features;
  out.info.feature_ids = after.feature_ids;
  out.info.launch_bounds = after.launch_bounds;
  out.info.source_hash = after.source_hash;
  if (after.params.size() == original.params.size())
    for (size_t i = 0; i < after.params.size(); ++i) {
      out.info.params[i].is_restrict = after.params[i].is_restrict;
      out.info.params[i].read = after.params[i].read;
      out.info.params[i].written = after.params[i].written;
    }
  return out;
}

}  // namespace klineage
