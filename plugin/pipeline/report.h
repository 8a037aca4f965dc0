// The typed report of one run (`ninja optimize` or `klineage gate`) and its writers: JSON
// (report.json, format klineage-report-1) and the console summary. HTML and JUnit writers read
// the same Report.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/job.h"
#include "core/outcome.h"
#include "gate/variant.h"

namespace klineage {

class Status;

struct KernelEntry {
  std::string kernel;
  std::string gated_on;                      // "capture" or "workload"
  std::string record;                        // the captured launch's directory
  std::string facts;
  std::vector<std::string> notes;
  std::vector<std::string> skills_not_applied;
  Dim3 grid, block;
};

struct SelectedEntry {
  std::string variant;
  double speedup = 0;
  std::vector<std::string> skills;
};

struct Report {
  std::string target;
  std::optional<std::string> device;         // unset: no CUDA device
  std::string device_reason, arch, backend;
  std::string driver;                        // CUDA version the driver supports ("13.0"), if known
  std::vector<std::pair<std::string, std::string>> skipped;  // kernel, why
  std::vector<KernelEntry> kernels;
  std::vector<VariantReport> variants;       // the originals included
  std::map<std::string, SelectedEntry> selected;
  double seconds = 0;
  // Where those seconds went, stage by stage in run order (stage id, seconds): setup, extract,
  // load, capture, compile-originals, plan, rewrite, compile-variants, gate (later rounds'
  // rewrites and compiles included), select (`klineage ci`: report). Their sum is `seconds`.
  std::vector<std::pair<std::string, double>> stages;

  // Variants (not originals) per outcome; every outcome present, zero or not.
  std::map<Outcome, unsigned> counts() const;
  size_t variantCount() const;
};

nlohmann::json reportJson(const Report& r);
void writeJsonReport(const Report& r, const std::string& path);

// The console summary: the counts by outcome, each kernel's selection (or that the originals
// are kept), and where the report is (and its HTML page, when `html_path` is given).
void writeSummary(const Report& r, const std::string& report_path, Status& status, const std::string& html_path = "");

}  // namespace klineage
