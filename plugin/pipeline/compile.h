// Compiling the original translation units and every variant to cubins, in parallel.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "gate/variant.h"

namespace klineage {

struct Pipeline;

struct OriginalCubins {
  std::map<std::string, std::string> cubin;  // kernel source file -> cubin ("" when it failed)
  std::map<std::string, std::string> log;    // kernel source file -> compiler output
};

// The source files of the kernels that will be planned (not templates, not in headers).
OriginalCubins compileOriginals(Pipeline& p, const Manifest& manifest, const std::string& only_kernel);

// Every report still to be gated gets its cubin, or compile-failed with the compiler's output.
void compileVariants(Pipeline& p, std::vector<VariantReport>& reports);

// Compile stamps: <output>.key holds the key of the compile that made <output> (the compiler, its
// command line and the text it read), so a later run with the same key takes the output as it is.
// stampHolds: the output and its stamp exist and the stamp holds `key`; when not, the stamp goes,
// so that until this compile succeeds no older output stands in for it.
bool stampHolds(const std::string& output, const std::string& key);
void writeStamp(const std::string& output, const std::string& key);

}  // namespace klineage
