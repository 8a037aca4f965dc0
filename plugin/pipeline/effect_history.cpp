#include "effect_history.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "status.h"

namespace klineage {

std::string featureSignature(const KernelInfo& k) {
  std::vector<std::string> ids = featureIdsOf(k);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ",") + id;
  return s;
}

void EffectHistory::load(const std::filesystem::path& file, Status* status) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return;
  try {
    const nlohmann::json j = nlohmann::json::parse(readFile(file.string()));
    if (j.value("format", 0) != 1) throw std::runtime_error("\"format\": expected 1");
    for (const auto& r : j.at("records"))
      records_.push_back({r.at("skill").get<std::string>(), r.at("features").get<std::string>(), r.value("gpu", ""),
                          r.value("kernel", ""), r.value("after", ""), r.at("gain").get<double>(),
                          r.at("best").get<double>()});
  } catch (const std::exception& e) {
    if (status) status->warning(file.string() + ": not a readable effect history (" + e.what() + "); not used");
  }
}

void EffectHistory::save(const std::filesystem::path& file) const {
  nlohmann::json recs = nlohmann::json::array();
  const size_t from = records_.size() > kMaxRecords ? records_.size() - kMaxRecords : 0;
  for (size_t i = from; i < records_.size(); ++i) {
    const EffectRecord& r = records_[i];
    recs.push_back({{"skill", r.skill}, {"features", r.features}, {"gpu", r.gpu}, {"kernel", r.kernel},
                    {"after", r.after}, {"gain", r.gain}, {"best", r.best}});
  }
  atomicWrite(file, nlohmann::json{{"format", 1}, {"records", recs}}.dump(1) + "\n");
}

std::optional<EffectHistory::Expectation> EffectHistory::expected(const std::string& skill, const std::string& features,
                                                                  const std::string& gpu) const {
  std::vector<double> same, any;
  for (const EffectRecord& r : records_) {
    if (r.skill != skill || r.features != features) continue;
    any.push_back(r.best);
    if (!gpu.empty() && r.gpu == gpu) same.push_back(r.best);
  }
  std::vector<double>& v = same.empty() ? any : same;
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return Expectation{median, n, !same.empty()};
}

}  // namespace klineage
