// klineage: the command line used by the CMake module (and by hand).
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/diag.h"
#include "core/fs.h"
#include "core/skill.h"
#include "gate/selection.h"
#include "optimize.h"
#include "setup.h"

namespace fs = std::filesystem;
using namespace klineage;

namespace {

int cmdExtract(const std::string& config, const std::string& out) {
  TargetSetup t = loadTargetSetup(config);
  Manifest m = extractManifest(t.config.target, t.toParse());
  std::string text = nlohmann::json(m).dump(2) + "\n";
  if (out.empty() || out == "-") {
    std::cout << text;
  } else {
    atomicWrite(out, text);
    say("klineage: " + std::to_string(m.kernels.size()) + " kernels written to " + out);
  }
  for (const auto& d : m.diagnostics) {
    warn("clang could not fully parse " + d.file + ":");
    for (size_t i = 0; i < d.errors.size() && i < 5; ++i) std::cerr << "  " << d.errors[i] << "\n";
  }
  return kExitOk;
}

// The copy of one source the target compiles: the selected version while every file it was made
// from is unchanged, otherwise the original (with a warning naming the stale kernels).
int cmdMaterialize(const std::string& config_path, const std::string& source) {
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
    say("klineage: " + fs::path(original).filename().string() + ": using the optimized version (" + names + ")");
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
      warn(original + ": the optimized version is stale (" + files + " changed since `ninja optimize`" +
           (kernels.empty() ? "" : "; stale kernels: " + kernels) +
           "); building the original. Run `ninja optimize` again.");
    }
  }
  std::string out = sp->materialized;
  // Unchanged content: leave the file (and its timestamp) alone so nothing recompiles; ninja's
  // restat on custom commands keeps the step from running again.
  if (fs::exists(out) && readFile(out) == text) return kExitOk;
  atomicWrite(out, text);
  return kExitOk;
}

int cmdSkills(const std::string& action, const std::vector<std::string>& dirs, const std::string& id) {
  std::vector<Skill> skills = loadSkills(dirs, transformIds());
  if (action == "validate") {
    say("klineage: " + std::to_string(skills.size()) + " skills valid");
    return kExitOk;
  }
  if (action == "list") {
    for (const auto& s : skills) std::cout << s.id << "  [" << s.transform << "]  " << s.intent << "\n";
    return kExitOk;
  }
  for (const auto& s : skills)
    if (s.id == id) {
      std::cout << skillToJson(s).dump(2) << "\n";
      return kExitOk;
    }
  std::string known;
  for (const auto& s : skills) known += (known.empty() ? "" : ", ") + s.id;
  std::cerr << "klineage: error: no skill '" << id << "'; known skills: " << known << "\n";
  return kExitBadInput;
}

std::vector<std::string> defaultSkillDirs() {
  if (const char* e = std::getenv("KLINEAGE_SKILLS_DIR")) return {e};
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = 0;
    fs::path installed = fs::path(buf).parent_path() / ".." / "share" / "klineage" / "skills";
    if (fs::exists(installed)) return {fs::canonical(installed).string()};
  }
  return {std::string(KLINEAGE_COMPAT_SOURCE_DIR) + "/../../skills"};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"KLineage: extract a target's CUDA kernels, apply skills, gate every variant on the GPU and keep the "
               "fastest passing one in the build tree. Normally run by `ninja optimize` (klineage_optimize() in CMake)."};
  app.set_version_flag("--version", KLINEAGE_VERSION);
  app.require_subcommand(1);

  std::string config, out, source, kernel, variant, action, skill_id;
  std::vector<std::string> skill_dirs;
  OptimizeOptions opt;

  auto* extract = app.add_subcommand("extract", "List every __global__ kernel of the target (and its launch sites) as a JSON manifest.");
  extract->add_option("--config", config, "config.json written by klineage_optimize()")->required()->check(CLI::ExistingFile);
  extract->add_option("-o,--out", out, "where to write the manifest (default: stdout)");

  auto* optimize = app.add_subcommand("optimize", "Extract, apply every applicable set of skills, gate each variant (compile, "
                                                  "correctness, profile) and keep the fastest passing one per kernel.");
  optimize->add_option("--config", opt.config, "config.json written by klineage_optimize()")->required()->check(CLI::ExistingFile);
  optimize->add_flag("--require-gpu", opt.require_gpu, "fail (exit 1) instead of keeping the originals when no CUDA device is found");
  optimize->add_option("-j,--jobs", opt.jobs, "parallel compiles (default: all cores)");
  optimize->add_option("--kernel", opt.only_kernel, "only this kernel");

  auto* gate = app.add_subcommand("gate", "Gate one hand-written variant of a kernel against the original under the same "
                                          "harness and print its outcome (does not change the selection).");
  gate->add_option("--config", opt.config, "config.json written by klineage_optimize()")->required()->check(CLI::ExistingFile);
  gate->add_option("--kernel", opt.extra_variant_kernel, "the kernel the variant replaces")->required();
  gate->add_option("--variant", opt.extra_variant_source, "a copy of the kernel's source file with the kernel changed")->required()->check(CLI::ExistingFile);
  gate->add_option("--grid-divisor", opt.extra_variant_grid_divisor, "the variant's grid.x is the original's divided by this (rounded up)");

  auto* materialize = app.add_subcommand("materialize", "Write the build-tree copy of one source that the target compiles: the "
                                                        "selected version, or the original when it is stale (with a warning).");
  materialize->add_option("--config", config, "config.json written by klineage_optimize()")->required()->check(CLI::ExistingFile);
  materialize->add_option("--source", source, "the original source file")->required();

  auto* skills = app.add_subcommand("skills", "Inspect the skill library: list, show <id>, validate.");
  skills->add_option("action", action, "list | show | validate")->required()->check(CLI::IsMember({"list", "show", "validate"}));
  skills->add_option("id", skill_id, "skill id (for show)");
  skills->add_option("--skills", skill_dirs, "skill directories (default: the installed skills)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitBadInput;
  }
  try {
    if (extract->parsed()) return cmdExtract(config, out);
    if (optimize->parsed()) return runOptimize(opt);
    if (gate->parsed()) {
      opt.skip_skills = true;
      opt.write_selection = false;
      opt.only_kernel = opt.extra_variant_kernel;
      return runOptimize(opt);
    }
    if (materialize->parsed()) return cmdMaterialize(config, source);
    if (skills->parsed()) {
      if (action == "show" && skill_id.empty()) {
        std::cerr << "klineage: error: skills show needs a skill id\n";
        return kExitBadInput;
      }
      return cmdSkills(action, skill_dirs.empty() ? defaultSkillDirs() : skill_dirs, skill_id);
    }
  } catch (const InputError& e) {
    std::cerr << e.what() << std::endl;
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "klineage: error: " << e.what() << std::endl;
    return kExitFailure;
  }
  return kExitOk;
}
