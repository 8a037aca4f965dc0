// The kernel-feature registry (features/feature.h), by the ids skills name. Each feature is one
// file, features/<id>.cpp, defining `const Feature& feature_<id>()`, and one line in the list
// below: X(<id>). The order is the order featureIds() lists and the manifest records.
#include <set>
#include <stdexcept>

#include "rewriter/features/feature.h"

// clang-format off
#define KLINEAGE_FEATURES(X) \
  X(all_pointers_restrict) \
  X(atomics) \
  X(barriers) \
  X(bounds_guard) \
  X(grid_stride_loop) \
  X(in_header) \
  X(launch_bounds) \
  X(loops) \
  X(pointer_params) \
  X(shared_memory) \
  X(shuffles) \
  X(template) \
  X(thread_index) \
  X(uses_block_geometry_outside_index) \
  /* one line per feature, above this one */
// clang-format on

namespace klineage {

#define KLINEAGE_DECLARE_FEATURE(id) const Feature& feature_##id();
KLINEAGE_FEATURES(KLINEAGE_DECLARE_FEATURE)
#undef KLINEAGE_DECLARE_FEATURE

const std::vector<const Feature*>& allFeatures() {
  static const std::vector<const Feature*> all = [] {
    std::vector<const Feature*> v;
    std::set<std::string> seen;
    auto add = [&](const Feature& f, const char* listed) {
      // the list names each unit by its id: a unit whose id differs is a mistake in its file
      if (f.id != listed || !seen.insert(f.id).second)
        throw std::logic_error("feature registry: feature_" + std::string(listed) + "() has id '" + f.id + "'");
      v.push_back(&f);
    };
#define KLINEAGE_ADD_FEATURE(id) add(feature_##id(), #id);
    KLINEAGE_FEATURES(KLINEAGE_ADD_FEATURE)
#undef KLINEAGE_ADD_FEATURE
    return v;
  }();
  return all;
}

const Feature* findFeature(const std::string& id) {
  for (const Feature* f : allFeatures())
    if (f->id == id) return f;
  return nullptr;
}

std::vector<std::string> featureIds() {
  std::vector<std::string> ids;
  for (const Feature* f : allFeatures()) ids.push_back(f->id);
  return ids;
}

std::vector<std::string> kernelFeatureIds(const FeatureInput& in) {
  std::vector<std::string> ids;
  for (const Feature* f : allFeatures())
    if (f->check(in)) ids.push_back(f->id);
  return ids;
}

}  // namespace klineage
