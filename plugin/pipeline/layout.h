// Every path KLineage writes under build/klineage/<target>/, in one place. Everything there is
// written atomically (write, then rename), and nothing is written outside it.
#pragma once
#include <filesystem>
#include <string>

namespace klineage {

struct BuildTreeLayout {
  std::filesystem::path root;  // build/klineage/<target> (the config's out_dir)

  std::filesystem::path manifest() const { return root / "manifest.json"; }
  std::filesystem::path captures() const { return root / "captures"; }
  std::filesystem::path capture(const std::string& key) const { return captures() / key; }
  std::filesystem::path manualCapture() const { return captures() / "manual"; }
  // variants/<kernel>/<name>/: the variant's translation unit and variant.json.
  std::filesystem::path variantDir(const std::string& kernel, const std::string& name) const {
    return root / "variants" / kernel / name;
  }
  // gate/original/<hash>-<file>.cubin: the original translation units.
  std::filesystem::path originalCubin(const std::string& source) const;
  // gate/<kernel>/<name>.cubin and gate/<kernel>/<name>/ (job.json, result.json, runner.log).
  std::filesystem::path variantCubin(const std::string& kernel, const std::string& name) const {
    return root / "gate" / kernel / (name + ".cubin");
  }
  std::filesystem::path gateWork(const std::string& kernel, const std::string& name) const {
    return root / "gate" / kernel / name;
  }
  // oracle/<kernel>/: the original promoted one precision level (its source; oracle.cubin).
  std::filesystem::path oracleDir(const std::string& kernel) const { return root / "oracle" / kernel; }
  std::filesystem::path fidelityWork(const std::string& kernel) const { return root / "gate" / kernel / "fidelity"; }
  std::filesystem::path staging() const { return root / "gate" / "bundles"; }
  std::filesystem::path selectedRoot() const { return root / "selected"; }
  std::filesystem::path selectedDir(const std::string& generation) const { return selectedRoot() / generation; }
  std::filesystem::path selection() const { return root / "selection.json"; }
  // report.json for `ninja optimize`; gate-report.json for `klineage gate` (never over the other).
  std::filesystem::path report(bool gate_only) const { return root / (gate_only ? "gate-report.json" : "report.json"); }
  // report.html / gate-report.html beside them: the same run for people (report_html.h).
  std::filesystem::path reportHtml(bool gate_only) const { return root / (gate_only ? "gate-report.html" : "report.html"); }
  std::filesystem::path materializedRoot() const { return root / "src"; }
  // llm-cache/<sha256>.json: replies of the language model (docs/llm.md).
  std::filesystem::path llmCache() const { return root / "llm-cache"; }
  // cache/extract/<hash>.json: each source's part of the manifest, reused while it and what it
  // reads are unchanged (rewriter/extract.h).
  std::filesystem::path extractMemo() const { return root / "cache" / "extract"; }
  // cache/results/<key>.json: one gate result per variant key (result_cache.h).
  std::filesystem::path resultCache() const { return root / "cache" / "results"; }
  std::filesystem::path resultEntry(const std::string& key) const { return resultCache() / (key + ".json"); }
  // cache/effects.json: what each gated step did (effect_history.h), the planner's memory.
  std::filesystem::path effects() const { return root / "cache" / "effects.json"; }
  // cache/last-run.json: the whole-run key of the last successful run and the files it read (run_key.h).
  std::filesystem::path lastRun() const { return root / "cache" / "last-run.json"; }
};

}  // namespace klineage
