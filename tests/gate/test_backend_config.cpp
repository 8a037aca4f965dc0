// The backend settings of config.json, runProcess's stdin (the Slurm backend's bundle travels on
// it) and the device count the runner's probe reports.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <vector>

#include "core/diag.h"
#include "core/fs.h"
#include "gate/config.h"
#include "gate/gate.h"
#include "gate/process.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {
// The configs written, removed when the test program ends (they were left in /tmp before).
struct Written {
  std::vector<fs::path> files;
  ~Written() {
    std::error_code ec;
    for (const auto& f : files) fs::remove(f, ec);
  }
};

std::string writeConfig(const std::string& name, const std::string& extra) {
  static Written written;
  const fs::path p = fs::temp_directory_path() / ("klineage-cfg-" + std::to_string(::getpid()) + "-" + name + ".json");
  written.files.push_back(p);
  atomicWrite(p, R"({"target": "k", "out_dir": "/tmp/o", "compile_commands": "/tmp/cc.json",
                     "sources": [{"original": "/tmp/a.cu", "materialized": "/tmp/m/a.cu"}])" + extra + "}");
  return p.string();
}
}  // namespace

TEST_CASE("config: backend local by default, slurm with its options, anything else an error naming the file",
          "[config][backend]") {
  Config c = loadConfig(writeConfig("default", ""));
  CHECK(c.backend == "local");
  c = loadConfig(writeConfig("slurm", R"(, "backend": "slurm", "slurm": {"partition": "gpu", "account": "a",
      "gres": "", "max_jobs": 3, "runner": "/opt/k/klineage-runner", "args": ["--qos=x"]})"));
  CHECK(c.backend == "slurm");
  CHECK(c.slurm.partition == "gpu");
  CHECK(c.slurm.account == "a");
  CHECK(c.slurm.gres.empty());
  CHECK(c.slurm.max_jobs == 3);
  CHECK(c.slurm.runner == "/opt/k/klineage-runner");
  CHECK(c.slurm.args == std::vector<std::string>{"--qos=x"});
  const std::string bad = writeConfig("bad", R"(, "backend": "pbs")");
  try {
    loadConfig(bad);
    FAIL("no error for backend pbs");
  } catch (const InputError& e) {
    CHECK(e.file == bad);
    CHECK(e.message.find("\"backend\": \"pbs\" is not one of local, slurm") != std::string::npos);
  }
  CHECK_THROWS_AS(loadConfig(writeConfig("zero", R"(, "backend": "slurm", "slurm": {"max_jobs": 0})")), InputError);
}

TEST_CASE("runProcess: a file as the child's standard input", "[process][backend]") {
  const fs::path in = fs::temp_directory_path() / ("klineage-stdin-" + std::to_string(::getpid()));
  atomicWrite(in, std::string("bundle\0bytes\n", 13));
  ProcessResult p = runProcess({"sh", "-c", "wc -c"}, 10, "", {}, in.string());
  CHECK(p.exit_code == 0);
  CHECK(p.output.find("13") != std::string::npos);
  p = runProcess({"sh", "-c", "wc -c"}, 10);  // default: /dev/null
  CHECK(p.output.find("0") != std::string::npos);
  p = runProcess({"true"}, 10, "", {}, "/nonexistent/stdin");
  CHECK(p.exit_code == 125);
  fs::remove(in);
}

TEST_CASE("parseProbe: the device count, and an unreadable probe", "[gate][backend]") {
  DeviceProbe d = parseProbe("loading\n{\"status\":\"ok\",\"device\":\"NVIDIA H200\",\"sm\":\"90\",\"count\":8}", "x");
  CHECK(d.available);
  CHECK(d.arch == "sm_90");
  CHECK(d.count == 8);
  d = parseProbe("{\"status\":\"ok\",\"device\":\"NVIDIA H200\",\"sm\":\"90\"}", "x");
  CHECK(d.count == 1);  // older runners do not say
  d = parseProbe("segfault", "srun klineage-runner --probe: exit 139");
  CHECK_FALSE(d.available);
  CHECK(d.reason == "srun klineage-runner --probe: exit 139: segfault");
}

TEST_CASE("config: search planned by default (width 3, budget 10), subsets on request, anything else an error naming the file",
          "[config]") {
  Config c = loadConfig(writeConfig("search-default", ""));
  CHECK(c.search == "planned");
  CHECK(c.search_width == 3);
  CHECK(c.budget == 10);
  c = loadConfig(writeConfig("search-subsets", R"(, "search": "subsets", "search_width": 5)"));
  CHECK(c.search == "subsets");
  CHECK(c.search_width == 5);
  const std::string bad = writeConfig("search-bad", R"(, "search": "random")");
  try {
    loadConfig(bad);
    FAIL("no error for search random");
  } catch (const InputError& e) {
    CHECK(e.file == bad);
    CHECK(e.message.find("\"search\": \"random\" is not one of planned, subsets") != std::string::npos);
  }
  CHECK_THROWS_AS(loadConfig(writeConfig("width-zero", R"(, "search_width": 0)")), InputError);
}
