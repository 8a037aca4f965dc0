#include "inverse_geometry.h"

namespace klineage {

std::optional<GeometryChange> fallbackInverseGeometry(const std::string& transform, const TransformParams& params) {
  GeometryChange g;
  if (transform == "block-reduce-atomic") {
    const long long coarsen = intParam(params, "coarsen", 16);
    if (coarsen < 1 || coarsen > 4096) return std::nullopt;
    g.grid_x_multiplier = static_cast<unsigned>(coarsen);
    return g;
  }
  if (transform == "warp-per-row") {
    g.grid_x_divisor = 32;
    return g;
  }
  return std::nullopt;
}

}  // namespace klineage
