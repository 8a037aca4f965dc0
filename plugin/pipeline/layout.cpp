#include "layout.h"

#include "core/manifest.h"

namespace klineage {

std::filesystem::path BuildTreeLayout::originalCubin(const std::string& source) const {
  return root / "gate" / "original" /
         (fnv1a64Hex(source).substr(0, 8) + "-" + std::filesystem::path(source).filename().string() + ".cubin");
}

}  // namespace klineage
