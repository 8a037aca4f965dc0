// The result cache: each gated variant's result under the hash of everything the gate's verdict
// depends on (its machine code, the original's, the jobs the runner gets, the skills' files, the
// device and driver), under build/klineage/<target>/cache/results/. A variant whose key is there
// is not gated again; on another GPU or driver every key misses, so the earlier winner is gated
// (and re-checked) on this device before it is kept. docs/pipeline.md, "The result cache and the no-op run".
#pragma once
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/job.h"
#include "gate/gate.h"
#include "gate/variant.h"

namespace klineage {

class Status;

// Bumped whenever what a stored result means changes (judge(), the runner's checks, the fields
// stored): every older entry then misses.
constexpr int kResultCacheFormat = 2;  // 2: the oracle rule and the outputs' pre-fill traps

// The most entries cache/results/ keeps after a run (ResultCache::prune): an entry is a few KB
// (up to some tens with the timed samples), so at most some tens of MB per target, and room for
// every variant of a large target over many edits and several devices.
constexpr size_t kResultCacheMaxEntries = 4096;

class ResultCache {
 public:
  // skill_files: skill id -> hash of its file; device: the device the gate runs on.
  ResultCache(std::filesystem::path dir, Status& status, std::map<std::string, std::string> skill_files,
              const DeviceProbe& device);

  // A variant about to be gated by `jobs` (its job on the plan's shape, then one per other
  // captured launch; the cubins are hashed by content), `repeat` times, its winner re-checked
  // under `sanitize` ("" none).
  std::string gateKey(const VariantReport& r, const std::vector<const RunnerJob*>& jobs, unsigned repeat,
                      const std::string& sanitize);
  // A variant about to be compiled with `argv`: its text (and its unit's for a header kernel), the
  // arguments with the variant's own paths in `own_paths` made neutral, the compiler's stamp.
  std::string compileKey(const VariantReport& r, const std::vector<std::string>& argv,
                         const std::vector<std::string>& own_paths) const;
  // The project headers' contents as one hash (compileOriginals sets it): part of every compile
  // key from then on, so a header edit compiles the variants again. Until it is set, a variant's
  // cubin is never reused from an earlier run.
  void setProjectHeaders(const std::string& hash) { headers_ = hash; }
  bool knowsProjectHeaders() const { return !headers_.empty(); }
  const std::string& projectHeaders() const { return headers_; }

  // Any other answer remembered under a key the caller makes (the rewrite memo, step_memo.h): the
  // JSON stored under `key`, or nullopt (a warning naming the file when it cannot be read; `what`
  // names the work done again). Safe to call from several threads.
  std::optional<nlohmann::json> restoreJson(const std::string& key, const std::string& what);
  void storeJson(const std::string& key, nlohmann::json j, const std::string& what);

  // A runner job outside the gate (`kind`: "fidelity", the replay check of a captured launch), keyed
  // like gateKey's jobs; its stored result, if any (a warning naming the file when unreadable);
  // stores a result under the key. `what` names the job in messages ("saxpy/fidelity").
  std::string runKey(const std::string& kind, const RunnerJob& job);
  std::optional<RunnerResult> restoreRun(const std::string& key, const std::string& what);
  void storeRun(const std::string& key, const std::string& what, const RunnerResult& r);

  // Fills r's outcome, reason, times, run and checks from the entry under r.cache_key and marks it
  // cached; false when there is none. An unreadable entry is a warning naming the file, and a miss.
  bool restore(VariantReport& r);
  // Stores r under r.cache_key when its result is complete (any outcome but not-run), atomically.
  void store(const VariantReport& r);

  // At the end of a run: removes the oldest entries (by modification time; restore() touches
  // what it reads, so the least recently used go first) until at most `max_entries` are left,
  // never one this run restored or stored. Says how many it removed; returns that number.
  size_t prune(size_t max_entries = kResultCacheMaxEntries);

 private:
  // The entry under `key`, parsed and of this format; nullopt when there is none or it is another
  // KLineage's, or (with a warning that ends "; <again>") when it cannot be read.
  std::optional<nlohmann::json> readEntry(const std::string& key, const std::string& again);
  void markUsed(const std::string& key);  // kept by prune() this run, and last among the rest
  // Stores `j` with the format, key, device and time added; a failure only warns.
  void writeEntry(const std::string& key, nlohmann::json j, const std::string& what);
  std::filesystem::path dir_;
  Status& status_;
  std::map<std::string, std::string> skill_files_;
  std::string device_;                          // the device fields of every key
  std::string headers_;                         // setProjectHeaders
  std::map<std::string, std::string> cubin_hash_;  // path -> content hash (the original's is shared)
  std::mutex used_mutex_;                       // used_ is added to from the planner's threads
  std::set<std::string> used_;                  // keys this run restored or stored: never pruned

  std::map<std::string, std::string> record_key_;  // record directory (+ with_after) -> "record <content key>"

  std::string contentHash(const std::string& path);
  std::string recordKey(const std::string& dir, bool with_after);
  std::string jobText(const RunnerJob& job);
  std::string skillsText(const Variant& v) const;
};

}  // namespace klineage
