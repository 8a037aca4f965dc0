#include "result_cache.h"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/launch_record.h"
#include "core/manifest.h"
#include "run_key.h"
#include "status.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

ResultCache::ResultCache(fs::path dir, Status& status, std::map<std::string, std::string> skill_files,
                         const DeviceProbe& device)
    : dir_(std::move(dir)), status_(status), skill_files_(std::move(skill_files)) {
  device_ = deviceKeyText(device);
}

std::string ResultCache::contentHash(const std::string& path) {
  auto it = cubin_hash_.find(path);
  if (it != cubin_hash_.end()) return it->second;
  return cubin_hash_[path] = fileHash(path).value_or("(unreadable " + path + ")");
}

// The chain as applied, each skill with the hash of its file: editing a skill's file (its
// parameters, its preconditions) re-gates the variants made with it.
std::string ResultCache::skillsText(const Variant& v) const {
  std::string t;
  for (const auto& s : v.skills) {
    auto it = skill_files_.find(s);
    t += s + "@" + (it == skill_files_.end() ? "?" : it->second) + ";";
  }
  for (const auto& x : v.transforms) t += x + ";";
  return t;
}

std::string ResultCache::gateKey(const VariantReport& r, const std::vector<const RunnerJob*>& jobs, unsigned repeat,
                                 const std::string& sanitize) {
  std::string text = "klineage-result-cache-" + std::to_string(kResultCacheFormat) + "\n" + device_ + "\n";
  text += "repeat=" + std::to_string(repeat) + " sanitize=" + sanitize + "\n" + skillsText(r.variant) + "\n";
  for (const RunnerJob* j : jobs) text += jobText(*j) + "\n";
  return fnv1a64Hex(text);
}

// The job as the runner gets it (geometry, arguments, tolerances, probes, limits, the captured
// launch), the cubins by their bytes instead of their paths and the captured launch by its
// content (recordContentKey) instead of its directory: a capture taken again, in the directory of
// another capture key, replays the same launch.
std::string ResultCache::jobText(const RunnerJob& j) {
  RunnerJob copy = j;
  copy.original.cubin = contentHash(j.original.cubin);
  copy.variant.cubin = contentHash(j.variant.cubin);
  if (copy.oracle) copy.oracle->cubin = contentHash(j.oracle->cubin);
  if (copy.replay) copy.replay->record_dir = recordKey(j.replay->record_dir, j.replay->check_fidelity);
  return nlohmann::json(copy).dump();
}

std::string ResultCache::recordKey(const std::string& dir, bool with_after) {
  const std::string at = dir + (with_after ? "" : " (no after)");
  auto it = record_key_.find(at);
  if (it != record_key_.end()) return it->second;
  std::string key;
  try {
    key = "record " + recordContentKey(loadRecord(dir, /*verify_blobs=*/false), with_after);
  } catch (const std::exception&) {
    key = "record in " + dir;  // unreadable here: the runner will say so; no entry matches it
  }
  return record_key_[at] = key;
}

std::string ResultCache::runKey(const std::string& kind, const RunnerJob& job) {
  return fnv1a64Hex("klineage-run-cache-" + std::to_string(kResultCacheFormat) + "\n" + kind + "\n" + device_ + "\n" +
                    jobText(job) + "\n");
}

std::optional<nlohmann::json> ResultCache::readEntry(const std::string& key, const std::string& again) {
  const fs::path path = dir_ / (key + ".json");
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  try {
    nlohmann::json j = nlohmann::json::parse(readFile(path));
    if (j.value("format", 0) != kResultCacheFormat) return std::nullopt;  // an older KLineage's entry
    if (j.at("key").get<std::string>() != key) throw std::runtime_error("it holds the key " + j.at("key").dump());
    return j;
  } catch (const std::exception& e) {
    status_.warning("ignoring the result cache entry " + path.string() + " (" + e.what() + "); " + again);
    return std::nullopt;
  }
}

void ResultCache::markUsed(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(used_mutex_);
    used_.insert(key);
  }
  std::error_code ec;  // recently used: pruned last
  fs::last_write_time(dir_ / (key + ".json"), fs::file_time_type::clock::now(), ec);
}

void ResultCache::writeEntry(const std::string& key, nlohmann::json j, const std::string& what) {
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  j["format"] = kResultCacheFormat;
  j["key"] = key;
  j["device"] = device_;
  j["stored_at"] = now.count();
  try {
    atomicWrite(dir_ / (key + ".json"), j.dump(1) + "\n");
    std::lock_guard<std::mutex> lock(used_mutex_);
    used_.insert(key);
  } catch (const std::exception& e) {  // a full disk costs the reuse, not the run
    status_.warning("cannot store the result of " + what + " in the result cache: " + e.what());
  }
}

std::optional<nlohmann::json> ResultCache::restoreJson(const std::string& key, const std::string& what) {
  std::optional<nlohmann::json> j = readEntry(key, what + " again");
  if (j) markUsed(key);
  return j;
}

void ResultCache::storeJson(const std::string& key, nlohmann::json j, const std::string& what) {
  writeEntry(key, std::move(j), what);
}

std::optional<RunnerResult> ResultCache::restoreRun(const std::string& key, const std::string& what) {
  const std::string again = "running " + what + " again";
  const std::optional<nlohmann::json> j = readEntry(key, again);
  if (!j) return std::nullopt;
  try {
    RunnerResult r = j->at("run").get<RunnerResult>();
    markUsed(key);
    return r;
  } catch (const std::exception& e) {
    status_.warning("ignoring the result cache entry " + (dir_ / (key + ".json")).string() + " (" + e.what() + "); " +
                    again);
    return std::nullopt;
  }
}

void ResultCache::storeRun(const std::string& key, const std::string& what, const RunnerResult& r) {
  writeEntry(key, {{"job", what}, {"run", r}}, what);
}

std::string ResultCache::compileKey(const VariantReport& r, const std::vector<std::string>& argv,
                                    const std::vector<std::string>& own_paths) const {
  const Variant& v = r.variant;
  std::string text = "klineage-compile-" + std::to_string(kResultCacheFormat) + "\n";
  text += argv.empty() ? std::string() : fileStamp(argv[0]) + "\n";
  std::vector<std::string> paths = own_paths;  // longest first: one may be the prefix of another
  std::sort(paths.begin(), paths.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (std::string a : argv) {
    for (size_t i = 0; i < paths.size(); ++i) a = replaceAll(a, paths[i], "<own" + std::to_string(i) + ">");
    text += a + "\x1f";
  }
  text += "\n" + skillsText(v) + "\nheaders " + headers_ + "\n";
  try {
    text += fnv1a64Hex(readFile(v.source));
    if (!v.unit_source.empty()) text += " " + fnv1a64Hex(readFile(v.unit_source));
  } catch (const std::exception& e) {
    text += e.what();
  }
  return fnv1a64Hex(text);
}

bool ResultCache::restore(VariantReport& r) {
  if (r.cache_key.empty()) return false;
  const std::string again = "gating " + r.variant.id + " again";
  const std::optional<nlohmann::json> j = readEntry(r.cache_key, again);
  if (!j) return false;
  try {
    const std::string outcome = j->at("outcome").get<std::string>();
    const Outcome o = outcomeFromName(outcome);
    if (o == Outcome::NotRun) throw std::runtime_error("\"outcome\": \"" + outcome + "\" is not a gate result");
    VariantReport got = r;
    got.outcome = o;
    got.reason = j->at("reason").get<std::string>();
    got.speedup = j->at("speedup").get<double>();
    got.variant_ms = j->at("variant_ms").get<double>();
    got.original_ms = j->at("original_ms").get<double>();
    got.rechecked = j->at("rechecked").get<bool>();
    got.checks = j->at("checks").get<std::vector<std::string>>();
    got.run.reset();
    if (!j->at("run").is_null()) got.run = j->at("run").get<RunnerResult>();
    got.cached = true;
    r = std::move(got);
    markUsed(r.cache_key);
    return true;
  } catch (const std::exception& e) {
    status_.warning("ignoring the result cache entry " + (dir_ / (r.cache_key + ".json")).string() + " (" + e.what() +
                    "); " + again);
    return false;
  }
}

void ResultCache::store(const VariantReport& r) {
  if (r.cache_key.empty() || r.outcome == Outcome::NotRun) return;
  nlohmann::json j = {{"variant", r.variant.id}, {"kernel", r.variant.kernel}, {"skills", r.variant.skills},
                      {"outcome", outcomeName(r.outcome)}, {"reason", r.reason}, {"speedup", r.speedup},
                      {"variant_ms", r.variant_ms}, {"original_ms", r.original_ms}, {"rechecked", r.rechecked},
                      {"checks", r.checks}};
  j["run"] = r.run ? nlohmann::json(*r.run) : nlohmann::json(nullptr);
  writeEntry(r.cache_key, std::move(j), r.variant.id);
}

size_t ResultCache::prune(size_t max_entries) {
  struct Entry {
    fs::path path;
    fs::file_time_type time;
  };
  std::vector<Entry> unused;
  size_t total = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path& f = it->path();
    std::error_code e;
    if (f.extension() != ".json" || !it->is_regular_file(e)) continue;  // atomicWrite's .tmp files are not entries
    ++total;
    if (used_.count(f.stem().string())) continue;
    const auto t = fs::last_write_time(f, e);
    unused.push_back({f, e ? fs::file_time_type::min() : t});
  }
  if (total <= max_entries) return 0;
  // Oldest first; names break ties, so that which go does not depend on the directory's order.
  std::sort(unused.begin(), unused.end(),
            [](const Entry& a, const Entry& b) { return a.time != b.time ? a.time < b.time : a.path < b.path; });
  size_t removed = 0;
  for (const Entry& e : unused) {
    if (total - removed <= max_entries) break;
    std::error_code rm;
    if (fs::remove(e.path, rm)) ++removed;
  }
  if (removed)
    status_.info("klineage: result cache: removed the " + std::to_string(removed) + " least recently used entries of " +
                 dir_.string() + " (at most " + std::to_string(max_entries) + " are kept)");
  return removed;
}

}  // namespace klineage
