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
#include "commands.h"
#include "console_status.h"
#include "ci.h"
#include "mine.h"
#include "optimize.h"

namespace fs = std::filesystem;
using namespace klineage;


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
  optimize->add_option("-j,--jobs", opt.jobs, "parallel compiles, and kernels rewritten at once (default: all cores)");
  optimize->add_option("--kernel", opt.only_kernel, "only this kernel");
  bool no_cache = false;
  optimize->add_flag("--no-cache", no_cache,
                     "gate every variant again instead of reusing earlier results, and run even when nothing changed "
                     "(KLINEAGE_RESULT_CACHE=OFF does this for every run)");

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
               "the kernel's arguments), so write the launch there.\n"
               "Exit status: 0 every variant passed or was slower; otherwise the first rejected variant's outcome: "
               "10 wrong-result, 11 runtime-failed, 12 timeout, 13 compile-failed, 14 not-run; 1 KLineage failed, "
               "2 bad input.\n");

  auto* ci = app.add_subcommand("ci", "Time every kernel as the build now compiles it against the original (same process, "
                                      "interleaved) and a committed baseline; exit 1 on a regression (docs/ci.md).");
  CiOptions ci_opt;
  std::string max_slowdown;
  ci->add_option("--config", ci_opt.config, "config.json written by klineage_optimize()")->required()->check(CLI::ExistingFile);
  ci->add_option("--baseline", ci_opt.baseline, "the committed baseline (klineage-baseline.json)")->required();
  ci->add_flag("--update-baseline", ci_opt.update_baseline, "rewrite the baseline from this run (atomically); fails only on wrong results");
  ci->add_option("--max-slowdown", max_slowdown, "relative slowdown that fails (default 5%; \"5%\" or 0.05)");
  ci->add_option("--min-ms", ci_opt.thresholds.min_ms, "a change smaller than this many ms never fails (default 0.005)")
      ->check(CLI::NonNegativeNumber);
  ci->add_option("--noise-scale", ci_opt.thresholds.noise_scale,
                 "the threshold is at least this many times the measured relative noise (default 2)")
      ->check(CLI::NonNegativeNumber);
  ci->add_flag("--strict", ci_opt.strict, "a baseline from another GPU or driver is an error (exit 3), not a warning");
  ci->add_flag("--allow-no-gpu", ci_opt.allow_no_gpu, "without a CUDA device exit 0 (with a message) instead of 3");
  ci->add_option("--no-gpu-exit", ci_opt.no_gpu_exit, "exit code without a CUDA device (default 3; CTest uses 77 = skipped)")
      ->check(CLI::Range(0, 255));
  ci->add_option("--junit", ci_opt.junit, "also write the JUnit XML here");
  ci->add_option("--markdown", ci_opt.markdown, "also write the Markdown summary here (GITHUB_STEP_SUMMARY is appended to when set)");
  ci->add_option("-j,--jobs", ci_opt.jobs, "parallel compiles, and kernels rewritten at once (default: all cores)");
  ci->footer("Exit status: 0 pass, 1 a kernel is slower than the baseline beyond the threshold, 2 a kernel as built gives a "
             "wrong result (or crashes, or hangs), 3 cannot measure (no GPU, no or unreadable baseline, a baseline kernel not "
             "gated, --strict with a baseline from another GPU or driver).\n");

  auto* materialize = app.add_subcommand("materialize", "Write the build-tree copy of one source that the target compiles: the "
                                                        "selected version, or the original when it is stale (with a warning).");
  materialize->add_option("--config", config, "config.json written by klineage_optimize()")->required()->check(CLI::ExistingFile);
  materialize->add_option("--source", source, "the original source file")->required();
  std::string depfile;
  materialize->add_option("--depfile", depfile, "also write a Makefile-style depfile naming the selected headers' originals");

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

  auto* mine = app.add_subcommand("mine", "Walk an expert kernel of a configured target backward: apply every transform's "
                                          "inverse in every order that applies, gate each simpler version against the "
                                          "expert, write the tree as lineage.json and optionally the mined skills "
                                          "(docs/lineage.md).");
  MineOptions mine_opt;
  mine->add_option("--config", mine_opt.config, "config.json written by klineage_optimize() for the expert's target")
      ->required()->check(CLI::ExistingFile);
  mine->add_option("--kernel", mine_opt.kernel, "the expert kernel (a kernel of that target)")->required();
  mine->add_option("--out", mine_opt.out_dir, "where lineage.json and versions/ go (default: <out_dir>/mine/<kernel>)");
  mine->add_option("--max-depth", mine_opt.max_depth, "inverse steps from the expert at most (default 8)")
      ->check(CLI::Range(1u, 64u));
  mine->add_option("--budget", mine_opt.budget, "simplified versions made and gated at most (default 48)")
      ->check(CLI::Range(1u, 10000u));
  mine->add_option("--emit-skills", mine_opt.emit_skills_dir,
                   "also write one skill (schema 2) per accepted step, reversed, into this directory");
  mine->add_flag("--probe", mine_opt.probe,
                 "after mining, gate each step that becomes a skill on launches that break one of its "
                 "preconditions at a time (misaligned pointers, aliased buffers, other block sizes and sizes): "
                 "which ones it needs goes into lineage.json and the skills. Costs ~6-9 more runner jobs per such "
                 "step (docs/lineage.md)");
  mine->add_option("--llm-steps", mine_opt.llm_steps,
                   "with a language model configured (LLM_URL, KLINEAGE_LLM_URL), ask it for this many simplifications "
                   "of each version beside the inverses, each gated like them (default 1; 0: none; docs/lineage.md)")
      ->check(CLI::Range(0u, 8u));
  mine->add_option("-j,--jobs", mine_opt.jobs, "parallel compiles (default: all cores)");
  mine->footer("Prints one line per version: id <- parent, the inverse step, the gate's outcome, its time.\n"
               "Exit status: 0 the lineage was written; 1 the expert could not be gated or KLineage failed; "
               "2 bad input.\n");

  auto* skills = app.add_subcommand("skills", "Inspect the skill library: list, show <id>, validate; emit <lineage.json> "
                                              "writes a lineage's mined skills again (--out).");
  std::string emit_out;
  skills->add_option("action", action, "list | show | validate | emit")
      ->required()
      ->check(CLI::IsMember({"list", "show", "validate", "emit"}));
  skills->add_option("id", skill_id, "skill id (for show), lineage.json (for emit)");
  skills->add_option("--skills", skill_dirs, "skill directories (default: the installed skills)");
  skills->add_option("--out", emit_out, "emit: the directory the skills are written to");

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
    ConsoleStatus console;
    PipelineSeams seams;
    seams.status = &console;
    if (optimize->parsed()) {
      opt.result_cache = !no_cache;
      return runOptimize(opt, seams);
    }
    if (mine->parsed()) return runMine(mine_opt, seams);
    if (gate->parsed()) {
      if (grid_divisor) {
        std::cerr << "klineage: error: gate --grid-divisor is no longer accepted: the gate runs the launch written in "
                     "the variant (edit its <<<grid, block>>>)\n";
        return kExitBadInput;
      }
      opt.skip_skills = true;
      opt.write_selection = false;
      opt.only_kernel = opt.extra_variant_kernel;
      return runOptimize(opt, seams);
    }
    if (ci->parsed()) {
      if (!max_slowdown.empty()) {
        std::string v = max_slowdown;
        const bool percent = !v.empty() && v.back() == '%';
        if (percent) v.pop_back();
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (v.empty() || *end || x < 0) {
          std::cerr << "klineage: error: --max-slowdown: expected a fraction (0.05) or a percentage (5%), got '"
                    << max_slowdown << "'\n";
          return kCiCannotMeasure;
        }
        ci_opt.thresholds.max_slowdown = percent ? x / 100 : x;
      }
      try {
        return runCi(ci_opt, seams);
      } catch (const InputError& e) {  // ci's codes are its own: bad input cannot be measured
        std::cerr << e.what() << std::endl;
        return kCiCannotMeasure;
      } catch (const std::exception& e) {
        std::cerr << "klineage: error: " << e.what() << std::endl;
        return kCiCannotMeasure;
      }
    }
    if (materialize->parsed()) return cmdMaterialize(config, source, depfile);
    if (capture->parsed()) return cmdCapture(config, out, capture_cmd, capture_shapes, capture_bytes, capture_timeout);
    if (skills->parsed()) {
      if (action == "show" && skill_id.empty()) {
        std::cerr << "klineage: error: skills show needs a skill id\n";
        return kExitBadInput;
      }
      if (action == "emit") {
        if (skill_id.empty() || emit_out.empty()) {
          std::cerr << "klineage: error: skills emit needs a lineage.json and --out <dir>\n";
          return kExitBadInput;
        }
        return cmdEmitSkills(skill_id, emit_out, skill_dirs.empty() ? defaultSkillDirs() : skill_dirs);
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
