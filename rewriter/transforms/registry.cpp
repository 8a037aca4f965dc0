// The transform catalogue, by the ids skills name. Each transform lives in its own folder,
// transforms/<id>/ (<id>.cpp with a make<Name>() factory, <id>.md, golden/), and has exactly one
// line in the list below: X(<Name>) for make<Name>(). The order is the order transformIds() lists.
#include <algorithm>

#include "transform.h"

// clang-format off
#define KLINEAGE_TRANSFORMS(X) \
  X(GridStrideLoop) \
  X(VectorizeAccess) \
  X(RestrictPointers) \
  X(LaunchBounds) \
  X(Unroll) \
  X(TileTranspose) \
  X(BlockReduceAtomic) \
  X(BlockReduceCas) \
  X(PrivatizeHistogram) \
  X(WarpPerRow) \
  X(BlockSize) \
  X(TileSgemm) \
  X(RowRegisters) \
  X(ReciprocalMultiply) \
  X(TreeReduceShuffle) \
  X(LdgLoads) \
  X(Forceinline) \
  X(PadSharedTile) \
  X(CacheHints) \
  X(WarpReduceShuffle) \
  X(VectorCastAccess) \
  X(BlockScanShuffle) \
  X(ColumnPartialSums) \
  X(CoarsenRows) \
  X(WindowTile) \
  X(UnswitchBounds) \
  /* one line per transform, above this one */
// clang-format on

namespace klineage {

#define KLINEAGE_DECLARE_TRANSFORM(Name) std::unique_ptr<Transform> make##Name();
KLINEAGE_TRANSFORMS(KLINEAGE_DECLARE_TRANSFORM)
#undef KLINEAGE_DECLARE_TRANSFORM

const std::vector<const Transform*>& allTransforms() {
  static const std::vector<std::unique_ptr<Transform>> owned = [] {
    std::vector<std::unique_ptr<Transform>> v;
#define KLINEAGE_ADD_TRANSFORM(Name) v.push_back(make##Name());
    KLINEAGE_TRANSFORMS(KLINEAGE_ADD_TRANSFORM)
#undef KLINEAGE_ADD_TRANSFORM
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
