#include "baseline.h"

#include <nlohmann/json.hpp>

#include "core/diag.h"
#include "core/fs.h"

namespace klineage {

const BaselineEntry* Baseline::find(const std::string& kernel, const std::string& shape) const {
  for (const auto& e : kernels)
    if (e.kernel == kernel && e.shape == shape) return &e;
  return nullptr;
}

namespace {

nlohmann::ordered_json entryJson(const BaselineEntry& e) {
  return {{"kernel", e.kernel},         {"shape", e.shape},   {"variant", e.variant},
          {"median_ms", e.median_ms},   {"p10_ms", e.p10_ms}, {"p90_ms", e.p90_ms},
          {"runs", e.runs},             {"noise", e.noise},   {"original_median_ms", e.original_median_ms},
          {"kernel_hash", e.kernel_hash}};
}

}  // namespace

std::string baselineText(const Baseline& b) {
  nlohmann::ordered_json j = {{"format", "klineage-baseline-1"}, {"target", b.target}, {"gpu", b.gpu},
                              {"arch", b.arch}, {"driver", b.driver}, {"cuda", b.cuda}, {"recorded", b.recorded}};
  j["kernels"] = nlohmann::ordered_json::array();
  for (const auto& e : b.kernels) j["kernels"].push_back(entryJson(e));
  return j.dump(2) + "\n";
}

void saveBaseline(const Baseline& b, const std::string& path) { atomicWrite(path, baselineText(b)); }

Baseline loadBaseline(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(readFile(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, 0, 0, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || j.value("format", "") != "klineage-baseline-1")
    throw InputError(path, 0, 0, "expected a klineage baseline (\"format\": \"klineage-baseline-1\"), written by "
                                 "`klineage ci --update-baseline`");
  Baseline b;
  try {
    b.target = j.value("target", "");
    b.gpu = j.at("gpu").get<std::string>();
    b.arch = j.value("arch", "");
    b.driver = j.at("driver").get<std::string>();
    b.cuda = j.value("cuda", "");
    b.recorded = j.value("recorded", "");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, 0, 0, std::string("expected string keys \"gpu\" and \"driver\": ") + e.what());
  }
  if (!j.contains("kernels") || !j["kernels"].is_array()) throw InputError(path, 0, 0, "expected an array \"kernels\"");
  size_t i = 0;
  for (const auto& k : j["kernels"]) {
    BaselineEntry e;
    try {
      e.kernel = k.at("kernel").get<std::string>();
      e.shape = k.at("shape").get<std::string>();
      e.variant = k.value("variant", "");
      e.median_ms = k.at("median_ms").get<double>();
      e.p10_ms = k.value("p10_ms", e.median_ms);
      e.p90_ms = k.value("p90_ms", e.median_ms);
      e.runs = k.value("runs", 0u);
      e.noise = k.value("noise", 0.0);
      e.original_median_ms = k.value("original_median_ms", 0.0);
      e.kernel_hash = k.value("kernel_hash", "");
    } catch (const nlohmann::json::exception& ex) {
      throw InputError(path, 0, 0, "kernels[" + std::to_string(i) + "]: expected \"kernel\", \"shape\" (strings) and "
                                   "\"median_ms\" (a number): " + ex.what());
    }
    if (!(e.median_ms > 0))
      throw InputError(path, 0, 0, "kernels[" + std::to_string(i) + "] (" + e.kernel + "): median_ms must be > 0");
    b.kernels.push_back(e);
    ++i;
  }
  return b;
}

std::string notComparable(const Baseline& base, const std::string& gpu, const std::string& driver) {
  if (base.gpu != gpu) return "the baseline was recorded on " + base.gpu + ", this run is on " + gpu;
  if (base.driver != driver)
    return "the baseline was recorded with driver CUDA " + base.driver + ", this machine's driver supports CUDA " + driver;
  return "";
}

}  // namespace klineage
