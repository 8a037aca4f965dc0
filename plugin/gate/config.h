// <build>/klineage/<target>/config.json, written by klineage_optimize() at configure time: what
// the CLI needs to optimize one target. Documented in docs/config.md.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace klineage {

struct SourcePair {
  std::string original;      // the user's file (never written)
  std::string materialized;  // the build-tree copy the target compiles
};

struct Config {
  std::string path;  // where it was read from
  std::string target, source_dir, build_dir, out_dir, compile_commands;
  std::vector<SourcePair> sources;
  std::optional<std::string> workload;
  std::vector<std::string> skills;
  unsigned budget = 10;       // variants per kernel, at most
  std::string search = "planned";  // "planned" (rounds chosen from results) or "subsets" (every set, breadth first)
  unsigned search_width = 3;  // planned: variants per kernel per round
  double timeout_s = 10;      // per variant run
  bool require_gpu = false;
  std::string sanitize;       // "memcheck", "racecheck", "synccheck" or "" (SANITIZE)
  bool result_cache = true;   // reuse earlier gate results (KLINEAGE_RESULT_CACHE; docs/pipeline.md)
  std::string runner;         // klineage-runner
  std::string nvcc = "nvcc";
  std::string cuda_architectures;
  std::vector<std::string> run_command;  // RUN program and its ARGS (empty: no capture)
  std::string capture_build;             // the capture build the RUN target was built in ("" for a command)
  double capture_timeout_s = 300;
  unsigned capture_max_shapes = 3;
  unsigned long long capture_max_bytes = 4ull << 30;
  // Where runner jobs run (BACKEND): "local" (this machine's GPUs) or "slurm".
  std::string backend = "local";
  struct Slurm {
    std::string partition, account;
    std::string gres = "gpu:1";
    unsigned max_jobs = 4;
    std::string runner = "klineage-runner";  // on the compute nodes
    std::vector<std::string> args;           // more srun arguments
  } slurm;
  // Skills a language model materializes (LLM_*; docs/llm.md). KLINEAGE_LLM_URL and
  // KLINEAGE_LLM_MODEL override url and model; the API key is never here (KLINEAGE_LLM_API_KEY).
  struct Llm {
    std::string url, model;                   // url "": nothing is sent
    unsigned max_requests = 32;               // prompts sent per run
    unsigned long long max_tokens = 500000;   // usage.total_tokens per run
    unsigned repair_rounds = 2;               // re-prompts of a failed attempt with the gate's outcome
    double connect_timeout_s = 10, timeout_s = 300;
    unsigned retries = 3;                     // on 429 and 5xx
    double backoff_s = 1;                     // first retry's delay, doubled each time
  } llm;

  const SourcePair* findOriginal(const std::string& path) const;
  const SourcePair* findMaterialized(const std::string& path) const;
};

// Throws InputError naming the file and the key on malformed content.
Config loadConfig(const std::string& path);

}  // namespace klineage
