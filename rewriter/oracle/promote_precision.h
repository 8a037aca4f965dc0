// promote-precision: the gate's higher-precision oracle. A float kernel rewritten into a reference
// version of itself that computes in double (see promote-precision.md). Not a lineage step: it is
// deliberately not in transforms/registry.cpp, so no skill can name it; the gate asks for it here.
#pragma once
#include "rewriter/transform.h"

namespace klineage {

// The pass (id "promote-precision"). forward() promotes or refuses with the construct it cannot
// promote faithfully; inverse() always refuses.
const Transform& promotePrecision();

}  // namespace klineage
