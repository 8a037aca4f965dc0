// For pipeline tests: a copy of examples/quickstart with a hand-written config.json and
// compile_commands.json, and a compiler that writes fake cubins, so runOptimize runs without nvcc.
#pragma once
#include <atomic>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "gate/gate.h"
#include "gate/selection.h"
#include "support/toolchain.h"

namespace klineage::test {

namespace fs = std::filesystem;

// Timings a fake runner reports for a variant `speedup` times faster, with 1% noise, so that the
// gate's judge() calls anything above 1.01x passed.
inline void setTimes(RunnerResult& r, double speedup) {
  const double o = 0.24, v = o / speedup;
  r.speedup = speedup;
  r.noise = 0.01;
  r.original_time = TimingStats{o, o * 0.995, o * 1.005, o * 0.99, 20};
  r.variant_time = TimingStats{v, v * 0.995, v * 1.005, v * 0.99, 20};
}

struct FakeCompiler : Compiler {
  std::atomic<int> calls{0};  // compileAll calls from several threads
  CompileResult compile(const CompileRequest& req) override {
    ++calls;
    atomicWrite(req.cubin, "fake cubin for " + req.id);
    return {true, "", 0.01};
  }
};

// A copy of the quickstart with a config.json and compile_commands.json written by hand.
// `files` (path under the project -> text) are written first; `extra_sources` (names under src/)
// join saxpy.cu and relu.cu as the target's sources.
struct Project {
  fs::path root;
  std::string config;
  explicit Project(unsigned budget, const std::map<std::string, std::string>& files = {},
                   const std::vector<std::string>& extra_sources = {}) {
    static int counter = 0;
    root = fs::temp_directory_path() /
           ("klineage-pipeline-" + std::to_string(::getpid()) + "-" + std::to_string(budget) + "-" + std::to_string(counter++));
    fs::remove_all(root);
    fs::copy(fs::path(KLINEAGE_SOURCE_DIR) / "examples" / "quickstart", root, fs::copy_options::recursive);
    for (const auto& [rel, text] : files) atomicWrite(root / rel, text);
    std::vector<std::string> names{"saxpy.cu", "relu.cu"};
    names.insert(names.end(), extra_sources.begin(), extra_sources.end());
    nlohmann::json cc = nlohmann::json::array();
    nlohmann::json sources = nlohmann::json::array();
    for (const auto& f : names) {
      std::string src = (root / "src" / f).string();
      cc.push_back({{"directory", (root / "build").string()},
                    {"file", src},
                    {"arguments", {nvccPath(), "-I" + (root / "include").string(), "-std=c++17",
                                   "--generate-code=arch=compute_90,code=[compute_90,sm_90]", "-c", src, "-o", "x.o"}}});
      sources.push_back({{"original", src}, {"materialized", (root / "build/klineage/kernels/src/src" / f).string()}});
    }
    atomicWrite(root / "build" / "compile_commands.json", cc.dump(2));
    nlohmann::json cfg = {{"format", "klineage-config-1"},
                          {"target", "kernels"},
                          {"source_dir", root.string()},
                          {"build_dir", (root / "build").string()},
                          {"out_dir", (root / "build/klineage/kernels").string()},
                          {"compile_commands", (root / "build/compile_commands.json").string()},
                          {"sources", sources},
                          {"workload", (root / "klineage.toml").string()},
                          {"skills", {std::string(KLINEAGE_SOURCE_DIR) + "/skills"}},
                          {"budget", budget},
                          {"timeout_s", 10},
                          {"require_gpu", false},
                          {"runner", "/nonexistent/klineage-runner"},
                          {"nvcc", nvccPath()},
                          {"run", nullptr}};
    config = (root / "build/klineage/kernels/config.json").string();
    atomicWrite(config, cfg.dump(2));
  }
  ~Project() { fs::remove_all(root); }
  // Changes one key of config.json.
  void setConfig(const std::string& key, const nlohmann::json& value) const {
    nlohmann::json cfg = nlohmann::json::parse(readFile(config));
    cfg[key] = value;
    atomicWrite(config, cfg.dump(2));
  }
  // Writes a file under the project (a hand-written variant, say); returns its path.
  std::string write(const std::string& rel, const std::string& text) const {
    atomicWrite(root / rel, text);
    return (root / rel).string();
  }
  // The skill library without its shipped effect history (skills/effects.json, measured on the
  // GPUs), copied under the project: what a fresh library plans, whatever the records say.
  void libraryWithoutHistory() const {
    fs::create_directories(root / "skills");
    for (const auto& e : fs::directory_iterator(fs::path(KLINEAGE_SOURCE_DIR) / "skills"))
      if (e.path().extension() == ".toml") fs::copy_file(e.path(), root / "skills" / e.path().filename());
    setConfig("skills", {(root / "skills").string()});
  }
  Selection selection() const { return loadSelection((root / "build/klineage/kernels/selection.json").string()); }
  nlohmann::json report() const { return nlohmann::json::parse(readFile(root / "build/klineage/kernels/report.json")); }
};

}  // namespace klineage::test
