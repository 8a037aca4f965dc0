// Fuzzes the config reader (gate/config.h loadConfig): the input is one config.json as
// klineage_optimize() writes it (docs/config.md).
#include "fuzz_common.h"

#include "core/diag.h"
#include "gate/config.h"

using namespace klineage;
namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string file = (fuzz::scratch() / "config.json").string();
  fuzz::writeFile(file, data, size);

  Config c;
  try {
    c = loadConfig(file);
  } catch (const InputError& e) {
    if (e.file != file) fuzz::fail("InputError names " + e.file + ", not the config " + file + ": " + e.what());
    fuzz::requireNames(e.what(), file, "InputError");
    fuzz::verdict(std::string("rejected: ") + e.what());
    return 0;
  } catch (const std::exception& e) {
    fuzz::unexpected(e, "loadConfig");
  }
  fuzz::verdict("accepted target " + c.target);
  if (c.sources.empty()) fuzz::fail("accepted a config without sources");
  if (c.nvcc.empty()) fuzz::fail("accepted a config with an empty nvcc");
  return 0;
}
