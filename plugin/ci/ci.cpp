#include "ci.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>

#include "core/diag.h"
#include "core/fs.h"
#include "core/manifest.h"
#include "gate/config.h"
#include "gate/process.h"
#include "gate/selection.h"
#include "layout.h"
#include "report.h"
#include "report_html.h"
#include "status.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string utcNow() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// "13.0" from `nvcc --version` ("Cuda compilation tools, release 13.0, V13.0.48"); "" if unknown.
std::string toolkitVersion(const std::string& nvcc) {
  ProcessResult r = runProcess({nvcc, "--version"}, 30);
  std::smatch m;
  static const std::regex re("release ([0-9]+\\.[0-9]+)");
  return std::regex_search(r.output, m, re) ? m[1].str() : "";
}

std::string shapeOf(const KernelEntry& k) { return "grid " + dimText(k.grid) + " x block " + dimText(k.block); }

bool isWrong(Outcome o) {
  return o == Outcome::WrongResult || o == Outcome::RuntimeFailed || o == Outcome::Timeout;
}

std::string xmlEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') o += ' ';
        else o += c;
    }
  }
  return o;
}

std::string mdEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n') o += ' ';
    else o += c;
  }
  return o;
}

// The variant the build keeps for `kernel` of `file`: the selection's entry when fresh.
std::string keptVariant(const Selection& sel, const std::string& file, const std::string& kernel) {
  MaterializeDecision d = decideMaterialize(sel, file, [](const std::string& f) { return readFile(f); });
  if (!d.entry) d = decideHeader(sel, file, [](const std::string& f) { return readFile(f); });  // a header kernel
  if (d.use_selected)
    for (const auto& k : d.entry->kernels)
      if (k.name == kernel) return k.variant_id;
  return kernel + "/original";
}

void writeOutputs(const CiResult& r, const CiOptions& opt, const fs::path& dir, const fs::path& report_json,
                  Status& status) {
  const nlohmann::json cj = ciJson(r);
  atomicWrite(dir / "ci.json", cj.dump(2) + "\n");
  const std::string xml = junitXml(r), md = markdownSummary(r);
  atomicWrite(dir / "ci-junit.xml", xml);
  atomicWrite(dir / "ci-summary.md", md);
  if (!opt.junit.empty()) atomicWrite(opt.junit, xml);
  if (!opt.markdown.empty()) atomicWrite(opt.markdown, md);
  // GitHub Actions shows this file on the run's page; append, as other steps may write too.
  if (const char* gh = std::getenv("GITHUB_STEP_SUMMARY"); gh && *gh) {
    std::ofstream out(gh, std::ios::app);
    out << md << "\n";
  }
  std::optional<nlohmann::json> rep;
  std::error_code ec;
  if (fs::exists(report_json, ec)) {
    try {
      rep = nlohmann::json::parse(readFile(report_json));
    } catch (const std::exception&) {
      status.warning(report_json.string() + " is not valid JSON; report.html shows the CI run only");
    }
  }
  // The target's report.html becomes the last optimize report plus this CI section (a superset
  // of what `ninja optimize` wrote); ci/report.html keeps a copy beside the other CI files.
  writeHtmlReport(rep ? &*rep : nullptr, &cj, (dir / "report.html").string());
  writeHtmlReport(rep ? &*rep : nullptr, &cj, (dir.parent_path() / "report.html").string());
  status.info("klineage ci: " + (dir / "ci-summary.md").string() + ", ci-junit.xml; report: " +
              (dir.parent_path() / "report.html").string());
}

}  // namespace

void decideExit(CiResult& r, const CiOptions& opt) {
  bool wrong = false, slower = false, unmeasured = false;
  for (const auto& k : r.kernels) {
    wrong |= k.result.verdict == CiVerdict::Wrong;
    slower |= k.result.verdict == CiVerdict::Slower;
    // a kernel the baseline has that could not be measured now is a hole in the gate
    unmeasured |= k.result.verdict == CiVerdict::NotMeasured && k.base.has_value();
  }
  if (!r.gpu_available) {
    r.verdict = "cannot-measure";
    r.exit_code = opt.allow_no_gpu ? kCiPass : opt.no_gpu_exit;
  } else if (wrong) {
    r.verdict = "wrong";
    r.exit_code = kCiWrong;
  } else if (!r.not_comparable.empty() && opt.strict) {
    r.verdict = "cannot-measure";
    r.exit_code = kCiCannotMeasure;
  } else if (slower && r.not_comparable.empty() && !opt.update_baseline) {
    r.verdict = "regression";
    r.exit_code = kCiRegression;
  } else if (unmeasured && !opt.update_baseline) {
    r.verdict = "cannot-measure";
    r.exit_code = kCiCannotMeasure;
  } else {
    r.verdict = "pass";
    r.exit_code = kCiPass;
  }
}

nlohmann::json ciJson(const CiResult& r) {
  nlohmann::ordered_json j = {{"format", "klineage-ci-1"}, {"target", r.target}, {"device", r.gpu}, {"arch", r.arch},
                              {"driver", r.driver}, {"cuda", r.cuda}, {"baseline", r.baseline_path},
                              {"comparable", r.not_comparable.empty()}, {"not_comparable_reason", r.not_comparable},
                              {"gpu_available", r.gpu_available}, {"no_gpu_reason", r.no_gpu_reason},
                              {"verdict", r.verdict}, {"exit_code", r.exit_code}, {"seconds", r.seconds},
                              {"notes", r.notes}};
  if (r.baseline)
    j["baseline_info"] = {{"gpu", r.baseline->gpu}, {"driver", r.baseline->driver}, {"cuda", r.baseline->cuda},
                          {"recorded", r.baseline->recorded}};
  j["kernels"] = nlohmann::ordered_json::array();
  for (const auto& k : r.kernels) {
    auto num = [](bool has, double v) { return has ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); };
    j["kernels"].push_back({{"kernel", k.kernel},
                            {"shape", k.shape},
                            {"variant", k.variant},
                            {"verdict", ciVerdictName(k.result.verdict)},
                            {"reason", k.result.reason},
                            {"median_ms", num(k.now.has_value(), k.now ? k.now->median_ms : 0)},
                            {"original_ms", num(k.now.has_value(), k.now ? k.now->original_median_ms : 0)},
                            {"speedup_vs_original", k.speedup_vs_original},
                            {"baseline_ms", num(k.base.has_value(), k.base ? k.base->median_ms : 0)},
                            {"expected_ms", num(k.base.has_value() && k.now, k.result.expected_ms)},
                            {"scaled", k.result.scaled},
                            {"threshold", k.result.threshold},
                            {"noise", k.result.noise},
                            {"samples_ms", k.samples_ms},
                            {"original_samples_ms", k.original_samples_ms}});
  }
  return nlohmann::json::parse(j.dump());
}

std::string junitXml(const CiResult& r) {
  unsigned failures = 0, skipped = 0;
  for (const auto& k : r.kernels) {
    const CiVerdict v = k.result.verdict;
    const bool fails = v == CiVerdict::Wrong || (v == CiVerdict::Slower && r.exit_code == kCiRegression) ||
                       (v == CiVerdict::NotMeasured && r.exit_code == kCiCannotMeasure && k.base && r.gpu_available);
    failures += fails;
    skipped += !fails && (v == CiVerdict::NotMeasured || !r.gpu_available);
  }
  const std::string suite = "klineage." + r.target;
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites name=\"klineage ci\" tests=\"" + std::to_string(r.kernels.size()) + "\" failures=\"" +
       std::to_string(failures) + "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
       fmt("%.3f", r.seconds) + "\">\n";
  x += "  <testsuite name=\"" + xmlEscape(suite) + "\" tests=\"" + std::to_string(r.kernels.size()) + "\" failures=\"" +
       std::to_string(failures) + "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
       fmt("%.3f", r.seconds) + "\">\n";
  auto prop = [](const std::string& n, const std::string& v, const char* indent) {
    return std::string(indent) + "<property name=\"" + xmlEscape(n) + "\" value=\"" + xmlEscape(v) + "\"/>\n";
  };
  x += "    <properties>\n" + prop("gpu", r.gpu, "      ") + prop("driver", r.driver, "      ") +
       prop("cuda", r.cuda, "      ") + prop("baseline", r.baseline_path, "      ") +
       prop("comparable", r.not_comparable.empty() ? "true" : "false: " + r.not_comparable, "      ") +
       prop("verdict", r.verdict, "      ") + "    </properties>\n";
  for (const auto& k : r.kernels) {
    const CiVerdict v = k.result.verdict;
    x += "    <testcase classname=\"" + xmlEscape(suite) + "\" name=\"" + xmlEscape(k.kernel + " [" + k.shape + "]") +
         "\" time=\"" + fmt("%.6f", k.now ? k.now->median_ms / 1000 : 0) + "\">\n";
    x += "      <properties>\n" + prop("verdict", ciVerdictName(v), "        ") + prop("variant", k.variant, "        ");
    if (k.now) {
      x += prop("median_ms", fmt("%.6f", k.now->median_ms), "        ") +
           prop("p10_ms", fmt("%.6f", k.now->p10_ms), "        ") + prop("p90_ms", fmt("%.6f", k.now->p90_ms), "        ") +
           prop("original_ms", fmt("%.6f", k.now->original_median_ms), "        ") +
           prop("speedup_vs_original", fmt("%.4f", k.speedup_vs_original), "        ");
    }
    if (k.base) {
      x += prop("baseline_ms", fmt("%.6f", k.base->median_ms), "        ") +
           prop("expected_ms", fmt("%.6f", k.result.expected_ms), "        ");
    }
    x += prop("threshold", fmt("%.4f", k.result.threshold), "        ") +
         prop("noise", fmt("%.4f", k.result.noise), "        ") + "      </properties>\n";
    const bool fails = v == CiVerdict::Wrong || (v == CiVerdict::Slower && r.exit_code == kCiRegression) ||
                       (v == CiVerdict::NotMeasured && r.exit_code == kCiCannotMeasure && k.base && r.gpu_available);
    if (fails) {
      const std::string type = v == CiVerdict::Wrong ? "wrong" : v == CiVerdict::Slower ? "slower" : "not-measured";
      x += "      <failure type=\"" + type + "\" message=\"" + xmlEscape(k.result.reason.substr(0, 400)) + "\">" +
           xmlEscape(k.result.reason) + "</failure>\n";
    } else if (v == CiVerdict::NotMeasured || !r.gpu_available) {
      x += "      <skipped message=\"" + xmlEscape(k.result.reason.substr(0, 400)) + "\"/>\n";
    } else {
      x += "      <system-out>" + xmlEscape(k.result.reason) + "</system-out>\n";
    }
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

std::string markdownSummary(const CiResult& r) {
  const char* mark = r.verdict == "pass" ? "✅" : r.verdict == "regression" ? "❌" : r.verdict == "wrong" ? "⛔" : "⚠️";
  std::string m = "### KLineage CI: `" + r.target + "` " + mark + " " + r.verdict + "\n\n";
  if (r.gpu_available)
    m += "Measured on " + r.gpu + " (driver CUDA " + r.driver + ", toolkit " + (r.cuda.empty() ? "?" : r.cuda) + ")";
  else
    m += "No CUDA device: nothing was measured (" + mdEscape(r.no_gpu_reason) + ")";
  if (r.baseline)
    m += "; baseline `" + fs::path(r.baseline_path).filename().string() + "` from " + r.baseline->gpu + " (driver CUDA " +
         r.baseline->driver + ", " + r.baseline->recorded + ")";
  m += ".\n\n";
  if (!r.not_comparable.empty()) m += "> **Baseline not comparable:** " + mdEscape(r.not_comparable) + "\n\n";
  for (const auto& n : r.notes) m += "> " + mdEscape(n) + "\n\n";
  if (!r.kernels.empty()) {
    m += "| Kernel | Shape | Verdict | Now (ms) | Expected (ms) | Baseline (ms) | vs original | Threshold |\n";
    m += "|---|---|---|---:|---:|---:|---:|---:|\n";
    for (const auto& k : r.kernels) {
      const CiVerdict v = k.result.verdict;
      const char* icon = v == CiVerdict::Slower ? "🔴 " : v == CiVerdict::Wrong ? "⛔ " : v == CiVerdict::Faster ? "🟢 " : "";
      m += "| `" + mdEscape(k.kernel) + "` | " + mdEscape(k.shape) + " | " + icon + ciVerdictName(v) + " | " +
           (k.now ? fmt("%.4f", k.now->median_ms) : "–") + " | " +
           (k.base && k.now ? fmt("%.4f", k.result.expected_ms) : "–") + " | " + (k.base ? fmt("%.4f", k.base->median_ms) : "–") +
           " | " + (k.now ? fmt("%.2fx", k.speedup_vs_original) : "–") + " | " + fmt("%.1f%%", 100 * k.result.threshold) +
           " |\n";
    }
    m += "\n";
    bool any = false;
    for (const auto& k : r.kernels)
      if (k.result.verdict == CiVerdict::Slower || k.result.verdict == CiVerdict::Wrong ||
          k.result.verdict == CiVerdict::NotMeasured) {
        if (!any) m += "<details><summary>Reasons</summary>\n\n";
        any = true;
        m += "- `" + mdEscape(k.kernel) + "`: " + mdEscape(k.result.reason) + "\n";
      }
    if (any) m += "\n</details>\n";
  }
  return m;
}

int runCi(const CiOptions& opt, const PipelineSeams& seams) {
  const auto t0 = std::chrono::steady_clock::now();
  RecordingStatus quiet;
  Status& status = seams.status ? *seams.status : quiet;
  const Config cfg = loadConfig(opt.config);
  const fs::path out = fs::path(cfg.out_dir);
  const fs::path dir = out / "ci";
  CiResult r;
  r.target = cfg.target;
  r.baseline_path = opt.baseline;
  std::error_code ec;
  if (fs::exists(opt.baseline, ec)) {
    r.baseline = loadBaseline(opt.baseline);
  } else if (!opt.update_baseline) {
    status.error("klineage ci: no baseline " + opt.baseline + ": record one on the CI machine with `klineage ci --config " +
                 opt.config + " --baseline " + opt.baseline + " --update-baseline` and commit it");
    return kCiCannotMeasure;
  }

  Report rep;
  OptimizeOptions o;
  o.config = opt.config;
  o.measure_build = true;
  o.report_out = &rep;
  o.jobs = opt.jobs;
  const int rc = runOptimize(o, seams);
  if (rc != kExitOk) return kCiCannotMeasure;
  r.gpu_available = rep.device.has_value();
  r.no_gpu_reason = rep.device_reason;
  r.gpu = rep.device.value_or("");
  r.arch = rep.arch;
  r.driver = rep.driver;
  r.cuda = toolkitVersion(cfg.nvcc);
  if (r.baseline && r.gpu_available) r.not_comparable = notComparable(*r.baseline, r.gpu, r.driver);
  if (r.baseline && r.baseline->cuda != r.cuda && r.not_comparable.empty() && !r.cuda.empty())
    r.notes.push_back("the baseline was compiled with CUDA " + r.baseline->cuda + ", this build with " + r.cuda);

  Manifest manifest;
  if (fs::exists(BuildTreeLayout{out}.manifest(), ec))
    manifest = nlohmann::json::parse(readFile(BuildTreeLayout{out}.manifest())).get<Manifest>();
  const Selection sel = loadSelection(BuildTreeLayout{out}.selection().string());

  for (const auto& k : rep.kernels) {
    CiKernel c;
    c.kernel = k.kernel;
    c.shape = shapeOf(k);
    const KernelInfo* info = manifest.find(k.kernel);
    c.variant = info ? keptVariant(sel, info->range.file, k.kernel) : k.kernel + "/original";
    if (r.baseline)
      if (const BaselineEntry* b = r.baseline->find(c.kernel, c.shape)) c.base = *b;
    const VariantReport* built = nullptr;
    for (const auto& v : rep.variants)
      if (v.variant.kernel == k.kernel && !v.variant.is_original) built = &v;
    if (!r.gpu_available) {
      c.result.reason = "not measured: no CUDA device (" + r.no_gpu_reason + ")";
    } else if (!built) {
      c.result.reason = "not measured: the kernel as built could not be gated" +
                        (k.skills_not_applied.empty() ? std::string() : ": " + k.skills_not_applied[0]);
    } else if (isWrong(built->outcome)) {
      c.result.verdict = CiVerdict::Wrong;
      c.result.reason = std::string(outcomeName(built->outcome)) + ": the kernel as built differs from the original: " +
                        built->reason;
    } else if (!built->run || !built->run->variant_time || !built->run->original_time) {
      c.result.reason = "not measured: " + std::string(outcomeName(built->outcome)) +
                        (built->reason.empty() ? "" : ": " + built->reason);
    } else {
      const TimingStats &v = *built->run->variant_time, &orig = *built->run->original_time;
      c.now = CiMeasurement{v.median_ms, v.p10_ms, v.p90_ms, orig.median_ms, orig.p10_ms, orig.p90_ms,
                            info ? info->source_hash : ""};
      c.samples_ms = v.samples_ms;
      c.original_samples_ms = orig.samples_ms;
      c.speedup_vs_original = v.median_ms > 0 ? orig.median_ms / v.median_ms : 0;
      c.result = compareToBaseline(*c.now, c.base ? &*c.base : nullptr, opt.thresholds);
      if (!r.not_comparable.empty() && c.result.verdict == CiVerdict::Slower)
        c.result.reason += " (not gating: the baseline is not comparable)";
    }
    r.kernels.push_back(std::move(c));
  }
  // Kernels of the baseline this run did not gate at all (removed, or no workload entry now).
  if (r.baseline)
    for (const auto& b : r.baseline->kernels) {
      bool seen = false;
      for (const auto& c : r.kernels) seen |= c.kernel == b.kernel && c.shape == b.shape;
      if (seen) continue;
      CiKernel c;
      c.kernel = b.kernel;
      c.shape = b.shape;
      c.variant = b.variant;
      c.base = b;
      std::string why = "not gated in this run";
      for (const auto& [name, reason] : rep.skipped)
        if (name == b.kernel) why = "not gated: " + reason;
      c.result.reason = "not measured: in the baseline, " + why;
      if (!r.gpu_available) c.result.reason = "not measured: no CUDA device (" + r.no_gpu_reason + ")";
      r.kernels.push_back(std::move(c));
    }

  decideExit(r, opt);
  if (!r.gpu_available) {
    status.info("klineage ci: no CUDA device (" + r.no_gpu_reason + "): nothing measured" +
                (opt.allow_no_gpu ? " (allowed: --allow-no-gpu)" : ""));
  }
  if (!r.not_comparable.empty())
    (opt.strict ? static_cast<void>(status.error("baseline not comparable: " + r.not_comparable + " (--strict)"))
                : status.warning("baseline not comparable: " + r.not_comparable +
                                 "; times are reported but do not fail the gate (--strict makes this an error)"));
  for (const auto& c : r.kernels)
    status.info("klineage ci: " + c.kernel + " [" + c.shape + "] " + ciVerdictName(c.result.verdict) + ": " + c.result.reason);

  if (opt.update_baseline && r.gpu_available && r.exit_code == kCiPass) {
    Baseline b;
    b.target = r.target;
    b.gpu = r.gpu;
    b.arch = r.arch;
    b.driver = r.driver;
    b.cuda = r.cuda;
    b.recorded = utcNow();
    for (const auto& c : r.kernels)
      if (c.now)
        b.kernels.push_back({c.kernel, c.shape, c.variant, c.now->median_ms, c.now->p10_ms, c.now->p90_ms,
                             static_cast<unsigned>(c.samples_ms.size()), c.result.noise, c.now->original_median_ms,
                             c.now->kernel_hash});
    saveBaseline(b, opt.baseline);
    r.notes.push_back("baseline " + opt.baseline + " rewritten with " + std::to_string(b.kernels.size()) + " kernel(s)");
    status.info("klineage ci: " + r.notes.back());
  } else if (opt.update_baseline) {
    status.error("klineage ci: the baseline was not updated (" + r.verdict + ")");
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  writeOutputs(r, opt, dir, BuildTreeLayout{out}.report(false), status);
  status.info("klineage ci: " + r.verdict + " (exit " + std::to_string(r.exit_code) + ")");
  return r.exit_code;
}

}  // namespace klineage
