// The transform catalogue, by the ids skills name. Adding a transform: one file under transforms/
// with a make...() factory, one line here, golden tests under tests/rewriter/golden/<id>/.
#include <algorithm>

#include "transform.h"

namespace klineage {

std::unique_ptr<Transform> makeRestrictPointers();
std::unique_ptr<Transform> makeLaunchBounds();
std::unique_ptr<Transform> makeGridStrideLoop();
std::unique_ptr<Transform> makeVectorizeAccess();

const std::vector<const Transform*>& allTransforms() {
  static const std::vector<std::unique_ptr<Transform>> owned = [] {
    std::vector<std::unique_ptr<Transform>> v;
    v.push_back(makeGridStrideLoop());
    v.push_back(makeVectorizeAccess());
    v.push_back(makeRestrictPointers());
    v.push_back(makeLaunchBounds());
    return v;
  }();
  static const std::vector<const Transform*> all = [] {
    std::vector<const Transform*> v;
    for (const auto& t : owned) v.push_back(t.get());
    return v;
  }();
  return all;
}

const Transform* findTransform(const std::string& id) {
  for (const Transform* t : allTransforms())
    if (t->id() == id) return t;
  return nullptr;
}

std::vector<std::string> transformIds() {
  std::vector<std::string> ids;
  for (const Transform* t : allTransforms()) ids.push_back(t->id());
  return ids;
}

long long intParam(const TransformParams& p, const std::string& key, long long def) {
  auto it = p.find(key);
  if (it == p.end()) return def;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return def;
  }
}

bool boolParam(const TransformParams& p, const std::string& key, bool def) {
  auto it = p.find(key);
  if (it == p.end()) return def;
  return it->second == "true" || it->second == "1";
}

}  // namespace klineage
