// Never gate the same thing twice in one run: a variant whose rewritten text, or whose machine
// code, and launch (geometry change, own launch sites, size restrictions) equal those of another
// variant of the same kernel or of the original is not gated. It ends not-run with `same_as` and
// a reason naming the other; a variant the same as the original is never selected. Of a group of
// equal variants the one with the fewest transforms is gated (its chain explains the code best).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "gate/variant.h"

namespace klineage {

// Before compiling: the same text (the variant's file, and a header kernel's unit copy) and launch
// as an earlier variant (`earlier`: reports of previous rounds), another in `batch`, or the original
// (`originals`: file -> its text at the start of the run). Those are not compiled either. Returns
// how many were marked.
size_t skipSameSource(const std::map<std::string, std::string>& originals, std::vector<VariantReport>& batch,
                      const std::vector<VariantReport>& earlier);

// After compiling: the same cubin bytes and launch (the original's is its report's in `batch`).
// Returns how many were marked.
size_t skipSameCode(std::vector<VariantReport>& batch, const std::vector<VariantReport>& earlier);

}  // namespace klineage
