// The launch change of an inverse step for the transforms whose `inverse` does not report one
// itself (block-reduce-atomic and warp-per-row, whose files are being edited elsewhere: this keeps
// the change out of them). applyStep uses it when an inverse applied with no geometry. Every other
// geometry-changing transform reports its inverse change in its own `inverse`.
#pragma once
#include <optional>
#include <string>

#include "transform.h"

namespace klineage {

// block-reduce-atomic: grid.x * coarsen (param, default 16: forward's grid.x / coarsen undone);
// warp-per-row: grid.x / 32 (forward's grid.x * 32 undone). nullopt for other transforms.
std::optional<GeometryChange> fallbackInverseGeometry(const std::string& transform, const TransformParams& params);

}  // namespace klineage
