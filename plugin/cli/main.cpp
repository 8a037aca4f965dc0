// klineage: the command line used by the CMake module (and by hand).
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/diag.h"
#include "core/fs.h"
#include "core/skill.h"
#include "gate/selection.h"
#include "capture.h"
#include "optimize.h"
#include "setup.h"

namespace fs = std::filesystem;
using namespace klineage;

namespace {

// With --source: parse the given files with nvcc-style flags, no CMake project needed.
int cmdExtract(const std::string& config, const std::string& out, const std::vector<std::string>& sources,
               const std::vector<std::string>& nvcc_flags) {
  Manifest m;
  if (!sources.empty()) {
    std::vector<std::string> argv{"nvcc"};
    argv.insert(argv.end(), nvcc_flags.begin(), nvcc_flags.end());
    CudaFlags flags = parseCudaFlags(argv, fs::current_path().string());
    ClangParseSetup ps = defaultParseSetup("/usr/local/cuda/bin/nvcc");
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
  for (const auto& k : m.kernels) {
    if (!k.is_template) {
      co.kernels_mangled.push_back(k.mangled_name);
      co.kernels_names.push_back(k.name);
    }
    for (const auto& inst : k.instantiations) {
      co.kernels_mangled.push_back(inst);
      co.kernels_names.push_back(k.name);
    }
  }
  co.max_shapes = max_shapes ? max_shapes : t.config.capture_max_shapes;
  co.max_bytes = max_bytes ? max_bytes : t.config.capture_max_bytes;
  co.timeout_s = timeout_s > 0 ? timeout_s : t.config.capture_timeout_s;
  CaptureSummary sum;
  int rc = runCapture(co, &sum);
  if (rc == kExitOk)
    say("klineage: " + std::to_string(sum.records.size()) + " launches recorded (" + std::to_string(sum.bytes) +
        " bytes) in " + co.out_dir);
  return rc;
}

std::vector<std::string> defaultSkillDirs() {
  if (const char* e = std::getenv("KLINEAGE_SKILLS_DIR")) return {e};
  fs::path installed = fs::path(exeDir()) / ".." / "share" / "klineage" / "skills";
  if (fs::exists(installed)) return {fs::canonical(installed).string()};
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
  std::vector<std::string> extract_sources, extract_flags;
  auto* ex_config = extract->add_option("--config", config, "config.json written by klineage_optimize()")->check(CLI::ExistingFile);
  extract->add_option("-o,--out", out, "where to write the manifest (default: stdout)");
  extract->add_option("--source", extract_sources, "parse these files instead of a target's (with the flags after --)")
      ->check(CLI::ExistingFile)->excludes(ex_config);
  extract->add_option("flags", extract_flags, "nvcc-style flags for --source (-I, -D, -std, -arch), after --");
  extract->footer("Example: klineage extract --source sgemm.cu kernels.cu -- -arch=sm_90 -std=c++17 -Iinclude\n");

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
  gate->add_option("--variant", opt.extra_variant_sources,
                   "a copy of the kernel's source file with the kernel (and, if it needs, its launch) changed; "
                   "repeat for several, each gated on its own")
      ->required()->check(CLI::ExistingFile)->allow_extra_args(false);
  gate->add_option("--repeat", opt.repeat, "gate each variant this many times, each on fresh random inputs (default 1)")
      ->check(CLI::Range(1u, 1000u));
  unsigned grid_divisor = 0;
  gate->add_option("--grid-divisor", grid_divisor, "no longer accepted: the gate runs the variant's own launch code")
      ->group("");
  gate->footer("The variant runs with the launch written in it (grid, block, dynamic shared memory, evaluated from "
               "the kernel's arguments), so write the launch there.\n");

  auto* materialize = app.add_subcommand("materialize", "Write the build-tree copy of one source that the target compiles: the "
                                                        "selected version, or the original when it is stale (with a warning).");
  materialize->add_option("--config", config, "config.json written by klineage_optimize()")->required()->check(CLI::ExistingFile);
  materialize->add_option("--source", source, "the original source file")->required();

  auto* capture = app.add_subcommand("capture", "Run a program under CUPTI capture and record the first launches of the "
                                                "target's kernels (geometry, arguments, device memory before and after).");
  std::vector<std::string> capture_cmd;
  unsigned capture_shapes = 0;
  unsigned long long capture_bytes = 0;
  double capture_timeout = 0;
  capture->add_option("--config", config, "config.json written by klineage_optimize()")->required()->check(CLI::ExistingFile);
  capture->add_option("-o,--out", out, "capture directory (default: <out_dir>/captures/manual)");
  capture->add_option("--max-shapes", capture_shapes, "distinct launch shapes per kernel (default 3)");
  capture->add_option("--max-bytes", capture_bytes, "cap on snapshot bytes (default 4 GiB)");
  capture->add_option("--timeout", capture_timeout, "seconds before the program is killed (default 300)");
  capture->add_option("command", capture_cmd, "the program and its arguments, after -- (default: the RUN of the config)");

  auto* skills = app.add_subcommand("skills", "Inspect the skill library: list, show <id>, validate.");
  skills->add_option("action", action, "list | show | validate")->required()->check(CLI::IsMember({"list", "show", "validate"}));
  skills->add_option("id", skill_id, "skill id (for show)");
  skills->add_option("--skills", skill_dirs, "skill directories (default: the installed skills)");

  // Everything after the first `--` belongs to the subcommand (extract's nvcc flags, capture's
  // program), split off before CLI11 parses: a multi-value option such as --source would
  // otherwise take the separator and leave the flags unexpected.
  std::vector<std::string> args(argv + 1, argv + argc), after_dashes;
  bool has_dashes = false;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--") {
      after_dashes.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      args.resize(i);
      has_dashes = true;
      break;
    }
  try {
    std::reverse(args.begin(), args.end());  // CLI11 takes a vector in reverse order
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitBadInput;
  }
  if (has_dashes) {
    if (extract->parsed()) {
      extract_flags.insert(extract_flags.end(), after_dashes.begin(), after_dashes.end());
    } else if (capture->parsed()) {
      capture_cmd.insert(capture_cmd.end(), after_dashes.begin(), after_dashes.end());
    } else {
      std::cerr << "klineage: error: only `extract` (nvcc flags) and `capture` (a program) take arguments after --\n";
      return kExitBadInput;
    }
  }
  try {
    if (extract->parsed()) {
      if (config.empty() && extract_sources.empty()) {
        std::cerr << "klineage: error: extract needs --config <config.json> or --source <file>...\n";
        return kExitBadInput;
      }
      return cmdExtract(config, out, extract_sources, extract_flags);
    }
    if (optimize->parsed()) return runOptimize(opt);
    if (gate->parsed()) {
      if (grid_divisor) {
        std::cerr << "klineage: error: gate --grid-divisor is no longer accepted: the gate runs the launch written in "
                     "the variant (edit its <<<grid, block>>>)\n";
        return kExitBadInput;
      }
      opt.skip_skills = true;
      opt.write_selection = false;
      opt.only_kernel = opt.extra_variant_kernel;
      return runOptimize(opt);
    }
    if (materialize->parsed()) return cmdMaterialize(config, source);
    if (capture->parsed()) return cmdCapture(config, out, capture_cmd, capture_shapes, capture_bytes, capture_timeout);
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
