// The subcommands other than optimize and gate (which are the pipeline's runOptimize).
#include "commands.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "capture.h"
#include "console_status.h"
#include "core/diag.h"
#include "core/fs.h"
#include "core/lineage.h"
#include "core/skill.h"
#include "features/feature.h"
#include "gate/selection.h"
#include "setup.h"

namespace fs = std::filesystem;

namespace klineage {


// With --source: parse the given files with nvcc-style flags, no CMake project needed.
int cmdExtract(const std::string& config, const std::string& out, const std::vector<std::string>& sources,
               const std::vector<std::string>& nvcc_flags) {
  Manifest m;
  if (!sources.empty()) {
    std::vector<std::string> argv{"nvcc"};
    argv.insert(argv.end(), nvcc_flags.begin(), nvcc_flags.end());
    CudaFlags flags = parseCudaFlags(argv, fs::current_path().string());
    const char* cuda_home = std::getenv("CUDA_HOME");
    ClangParseSetup ps = defaultParseSetup(std::string(cuda_home ? cuda_home : "/usr/local/cuda") + "/bin/nvcc");
    std::vector<SourceToParse> todo;
    for (const auto& s : sources) todo.push_back({fs::absolute(s).lexically_normal().string(), clangArgsFor(flags, ps)});
    m = extractManifest("(files)", todo);
  } else {
    TargetSetup t = loadTargetSetup(config);
    m = extractManifest(t.config.target, t.toParse());
  }
  std::string text = nlohmann::json(m).dump(2) + "\n";
  if (out.empty() || out == "-") {
    std::cout << text;
  } else {
    atomicWrite(out, text);
    ConsoleStatus().info("klineage: " + std::to_string(m.kernels.size()) + " kernels written to " + out);
  }
  for (const auto& d : m.diagnostics) {
    ConsoleStatus().warning("clang could not fully parse " + d.file + ":");
    for (size_t i = 0; i < d.errors.size() && i < 5; ++i) std::cerr << "  " << d.errors[i] << "\n";
  }
  return kExitOk;
}

namespace {

// The selected headers the source includes, put in (or taken out of) <out_dir>/include; warns for
// each stale one, naming its kernels. Returns the marker to append to the source's copy.
std::string materializeHeaders(const Config& cfg, const Selection& sel, const std::string& original,
                               const std::string& out, const std::string& depfile) {
  const HeaderPlacement hp = placeHeaders(sel, original, (fs::path(cfg.out_dir) / "include").string(),
                                          [](const std::string& f) { return readFile(f); });
  for (const auto* h : hp.used) {
    std::string names;
    for (const auto& k : h->kernels) names += (names.empty() ? "" : ", ") + k.name;
    ConsoleStatus().info("klineage: " + fs::path(original).filename().string() + ": using the optimized " + h->include_name +
                         " (" + names + ")");
  }
  for (const auto& d : hp.stale) {
    std::string kernels;
    for (const auto& k : d.entry->kernels) kernels += (kernels.empty() ? "" : ", ") + k.name;
    std::string files;
    for (const auto& f : d.changed_files) files += (files.empty() ? "" : ", ") + f;
    ConsoleStatus().warning(d.entry->original + ": the optimized header is stale (" + files +
                            " changed since `ninja optimize`; stale kernels: " + kernels + "); " +
                            fs::path(original).filename().string() + " builds with the original header. Run `ninja optimize` again.");
  }
  if (!depfile.empty()) {
    // The build reruns this step when a selected header's original changes (its staleness).
    auto esc = [](const std::string& f) {
      std::string o;
      for (char c : f) o += (c == ' ' || c == '#' || c == '$') ? std::string("\\") + c : std::string(1, c);
      return o;
    };
    // selection.json always: Ninja takes an empty depfile for a missing one (always out of date).
    std::string text = esc(out) + ": " + esc((fs::path(cfg.out_dir) / "selection.json").string());
    for (const auto& f : hp.depends_on) text += " " + esc(f);
    atomicWrite(depfile, text + "\n");
  }
  return hp.marker;
}

}  // namespace

// The copy of one source the target compiles: the selected version while every file it was made
// from is unchanged, otherwise the original (with a warning naming the stale kernels); and the
// selected headers it includes, likewise (materializeHeaders).
int cmdMaterialize(const std::string& config_path, const std::string& source, const std::string& depfile) {
  Config cfg = loadConfig(config_path);
  std::string original = fs::absolute(source).lexically_normal().string();
  const SourcePair* sp = cfg.findOriginal(original);
  if (!sp) throw InputError(config_path, 0, 0, original + " is not one of target '" + cfg.target + "''s sources");
  Selection sel = loadSelection((fs::path(cfg.out_dir) / "selection.json").string());
  auto d = decideMaterialize(sel, original, [](const std::string& f) { return readFile(f); });
  std::string text;
  if (d.use_selected) {
    text = readFile(d.entry->selected);
    std::string names;
    for (const auto& k : d.entry->kernels) names += (names.empty() ? "" : ", ") + k.name;
    for (const auto& k : d.entry->launches_rewritten_for) names += (names.empty() ? "" : ", ") + ("launch of " + k);
    ConsoleStatus().info("klineage: " + fs::path(original).filename().string() + ": using the optimized version (" + names + ")");
  } else {
    text = originalWithLineDirective(original, readFile(original));
    if (d.entry) {
      // Name the kernels whose code changed since they were optimized.
      std::vector<std::string> stale;
      try {
        TargetSetup t = loadTargetSetup(config_path);
        for (const auto& f : d.changed_files) {
          if (!t.clang_args.count(f)) continue;
          Manifest now = extractManifest(cfg.target, {{f, t.clang_args.at(f)}});
          for (const auto& src : sel.sources)
            for (const auto& k : src.kernels) {
              if (src.original != f) continue;
              const KernelInfo* cur = now.find(k.name);
              if (!cur || cur->source_hash != k.kernel_hash) stale.push_back(k.name);
            }
        }
      } catch (const std::exception&) {
      }
      std::string files;
      for (const auto& f : d.changed_files) files += (files.empty() ? "" : ", ") + f;
      std::string kernels;
      for (const auto& k : stale) kernels += (kernels.empty() ? "" : ", ") + k;
      ConsoleStatus().warning(original + ": the optimized version is stale (" + files + " changed since `ninja optimize`" +
           (kernels.empty() ? "" : "; stale kernels: " + kernels) +
           "); building the original. Run `ninja optimize` again.");
    }
  }
  std::string out = sp->materialized;
  if (std::string marker = materializeHeaders(cfg, sel, original, out, depfile); !marker.empty()) {
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += marker;
  }
  // Unchanged content: leave the file (and its timestamp) alone so nothing recompiles; ninja's
  // restat on custom commands keeps the step from running again.
  if (fs::exists(out) && readFile(out) == text) return kExitOk;
  atomicWrite(out, text);
  return kExitOk;
}

int cmdSkills(const std::string& action, const std::vector<std::string>& dirs, const std::string& id) {
  std::vector<Skill> skills = loadSkills(dirs, transformIds(), featureIds());
  if (action == "validate") {
    ConsoleStatus().info("klineage: " + std::to_string(skills.size()) + " skills valid");
    return kExitOk;
  }
  if (action == "list") {
    for (const auto& s : skills) {
      const std::string how = s.hasTransform() ? s.transform + (s.usesLlm() ? "+llm" : "") : "llm";
      std::cout << s.id << "  [" << how << "]  " << s.intent << "\n";
    }
    return kExitOk;
  }
  for (const auto& s : skills)
    if (s.id == id) {
      std::cout << skillToJson(s).dump(2) << "\n";
      // A mined skill: the lineage it came from, the expert simplified step by step (docs/lineage.md).
      if (!s.lineage.empty()) std::cout << minedSkillLineage(s);
      std::cout << preconditionEvidenceText(s);  // probed by `klineage mine --probe`; "" otherwise
      return kExitOk;
    }
  std::string known;
  for (const auto& s : skills) known += (known.empty() ? "" : ", ") + s.id;
  std::cerr << "klineage: error: no skill '" << id << "'; known skills: " << known << "\n";
  return kExitBadInput;
}

int cmdEmitSkills(const std::string& lineage, const std::string& out_dir, const std::vector<std::string>& dirs) {
  if (!fs::is_regular_file(lineage)) throw InputError(lineage, 0, 0, "no such lineage file (expected a klineage mine lineage.json)");
  const Lineage l = loadLineage(lineage);
  const std::vector<Skill> library = loadSkills(dirs, transformIds(), featureIds());
  const auto files = emitMinedSkills(l, lineage, out_dir, transformNeeds(library));
  for (const auto& f : files) std::cout << f << "\n";
  ConsoleStatus().info("klineage: " + std::to_string(files.size()) + " mined skill(s) of " + l.kernel + " written to " + out_dir);
  return kExitOk;
}

// Captures the launches of a program (the config's RUN command unless one is given after --).
int cmdCapture(const std::string& config_path, const std::string& out, std::vector<std::string> command,
               unsigned max_shapes, unsigned long long max_bytes, double timeout_s) {
  TargetSetup t = loadTargetSetup(config_path);
  if (command.empty()) command = t.config.run_command;
  if (command.empty())
    throw InputError(config_path, 0, 0, "no program to capture: give one after -- or RUN in klineage_optimize()");
  Manifest m = extractManifest(t.config.target, t.toParse());
  CaptureOptions co;
  co.out_dir = out.empty() ? (fs::path(t.config.out_dir) / "captures" / "manual").string() : out;
  co.command = command;
  listKernels(m, co);
  co.max_shapes = max_shapes ? max_shapes : t.config.capture_max_shapes;
  co.max_bytes = max_bytes ? max_bytes : t.config.capture_max_bytes;
  co.timeout_s = timeout_s > 0 ? timeout_s : t.config.capture_timeout_s;
  ConsoleStatus console;
  co.status = &console;
  CaptureSummary sum;
  int rc = runCapture(co, &sum);
  if (rc == kExitOk)
    ConsoleStatus().info("klineage: " + std::to_string(sum.records.size()) + " launches recorded (" + std::to_string(sum.bytes) +
        " bytes) in " + co.out_dir);
  return rc;
}

std::vector<std::string> defaultSkillDirs() {
  if (const char* e = std::getenv("KLINEAGE_SKILLS_DIR")) return {e};
  fs::path installed = fs::path(exeDir()) / ".." / "share" / "klineage" / "skills";
  if (fs::exists(installed)) return {fs::canonical(installed).string()};
  return {std::string(KLINEAGE_COMPAT_SOURCE_DIR) + "/../../skills"};
}

}  // namespace klineage
