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
               "the kernel's arguments), so write the launch there.\n"
               "Exit status: 0 every variant passed or was slower; otherwise the first rejected variant's outcome: "
               "10 wrong-result, 11 runtime-failed, 12 timeout, 13 compile-failed, 14 not-run; 1 KLineage failed, "
               "2 bad input.\n");

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
    ConsoleStatus console;
    PipelineSeams seams;
    seams.status = &console;
    if (optimize->parsed()) return runOptimize(opt, seams);
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
