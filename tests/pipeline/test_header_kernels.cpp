// Issue 7: a template kernel defined in an include/*.cuh header, launched from a .cu, through the
// whole `klineage optimize` pipeline with a fake compiler and a fake GPU: its variants are the
// header rewritten and compiled through the including source, the selected header lands in the
// build tree (never the source tree), and the materialize decision puts it first while fresh and
// takes it away when the header changes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "core/fs.h"
#include "gate/selection.h"
#include "optimize.h"
#include "support/pipeline_project.h"
#include "support/toolchain.h"

using klineage::test::Project;

namespace fs = std::filesystem;
using namespace klineage;

namespace {

const char* kHeader = R"cu(#pragma once
// A template kernel in a header, as many projects keep them.
template <typename T>
__global__ void scale_add(int n, T a, const T* x, T* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)cu";

const char* kSource = R"cu(#include "kernels.h"
#include "scale_add.cuh"

cudaError_t launch_scale_add(int n, float a, const float* x, float* y) {
  scale_add<float><<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
)cu";

const char* kWorkload = R"cu(
[kernel.scale_add]
grid = ["(n + 255) / 256"]
block = [256]
args.n = 1048576
args.a = 2.0
args.x = { elements = "n", init = "uniform(-1, 1)" }
args.y = { elements = "n", init = "uniform(-1, 1)", output = true }
)cu";

// Writes fake cubins and remembers every command.
struct RecordingCompiler : Compiler {
  std::mutex m;
  std::vector<CompileRequest> requests;
  CompileResult compile(const CompileRequest& req) override {
    {
      std::lock_guard<std::mutex> lock(m);
      requests.push_back(req);
    }
    atomicWrite(req.cubin, "fake cubin for " + req.id);
    return {true, "", 0.01};
  }
};

// Every variant passes 1.05x faster (a smaller grid: 1.30x).
struct FakeRunner : GpuRunner {
  std::vector<RunnerJob> jobs;
  DeviceProbe probe() override {
    DeviceProbe d;
    d.available = true;
    d.device = "Fake GPU";
    d.arch = "sm_90";
    return d;
  }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    jobs.push_back(job);
    RunnerResult r;
    r.device = "Fake GPU";
    r.outcome = Outcome::Passed;
    klineage::test::setTimes(r, job.variant.grid.x < job.original.grid.x ? 1.30 : 1.05);
    return r;
  }
};

// Every file under the project except the build tree, with its bytes.
std::map<std::string, std::string> sourceTree(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string rel = fs::relative(e.path(), root).string();
    if (rel.rfind("build", 0) == 0 || !e.is_regular_file()) continue;
    out[rel] = readFile(e.path());
  }
  return out;
}

Project headerProject(unsigned budget) {
  const std::string toml = readFile(fs::path(KLINEAGE_SOURCE_DIR) / "examples/quickstart/klineage.toml") + kWorkload;
  return Project(budget, {{"include/scale_add.cuh", kHeader}, {"src/scale.cu", kSource}, {"klineage.toml", toml}},
                 {"scale.cu"});
}

}  // namespace

TEST_CASE("header template kernel: variants rewrite the header and compile through the including source",
          "[pipeline][header]") {
  Project p = headerProject(4);
  const std::string header = (p.root / "include/scale_add.cuh").string();
  const std::string unit = (p.root / "src/scale.cu").string();
  const auto before = sourceTree(p.root);
  RecordingCompiler cc;
  FakeRunner gpu;
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);

  // The manifest lists the template with its float instantiation, in a header, through scale.cu.
  const Manifest m = nlohmann::json::parse(readFile(p.root / "build/klineage/kernels/manifest.json")).get<Manifest>();
  const KernelInfo* k = m.find("scale_add");
  REQUIRE(k != nullptr);
  CHECK(k->is_template);
  CHECK(k->in_header);
  REQUIRE(k->instances.size() == 1);
  CHECK(k->instances[0].args == "float");
  CHECK(k->instances[0].params[2].pointee == "float");
  CHECK(k->units == std::vector<std::string>{unit});
  CHECK(k->included_as == "scale_add.cuh");
  REQUIRE(k->launches.size() == 1);
  CHECK(k->launches[0].instantiation == k->instances[0].mangled);

  // Each variant is the header rewritten; it compiles a copy of scale.cu with its include dir first.
  const nlohmann::json rep = p.report();
  unsigned variants = 0;
  for (const auto& v : rep["variants"]) {
    if (v["variant"]["kernel"] != "scale_add" || v["variant"]["is_original"].get<bool>()) continue;
    ++variants;
    INFO(v.dump(2).substr(0, 2000));
    CHECK(v["variant"]["mangled_name"] == k->instances[0].mangled);
    const std::string src = v["variant"]["source"];
    const std::string inc = v["variant"]["include_dir"];
    CHECK(src == (fs::path(inc) / "scale_add.cuh").string());
    CHECK(readFile(src) != kHeader);
    CHECK(v["variant"]["unit"] == unit);
    bool compiled = false;
    for (const auto& r : cc.requests) {
      if (r.id != v["variant"]["id"]) continue;
      compiled = true;
      CHECK(std::find(r.argv.begin(), r.argv.end(), v["variant"]["unit_source"].get<std::string>()) != r.argv.end());
      auto first_inc = std::find_if(r.argv.begin(), r.argv.end(), [](const std::string& a) { return a.rfind("-I", 0) == 0; });
      REQUIRE(first_inc != r.argv.end());
      CHECK(*first_inc == "-I" + inc);
    }
    CHECK(compiled);
  }
  INFO("kernels: " << rep["kernels"].dump() << "\nskipped: " << rep["skipped"].dump());
  CHECK(variants >= 1);
  // Gated as the instantiation the launch uses.
  bool gated = false;
  for (const auto& j : gpu.jobs)
    if (j.variant.function == k->instances[0].mangled) {
      gated = true;
      CHECK(j.original.function == k->instances[0].mangled);
    }
  CHECK(gated);

  // The selected header is in the build tree; the source tree is byte-for-byte what it was.
  const Selection sel = p.selection();
  const SelectedSource* h = sel.findHeader(header);
  REQUIRE(h != nullptr);
  CHECK(h->include_name == "scale_add.cuh");
  CHECK(h->included_by == std::vector<std::string>{unit});
  REQUIRE(h->kernels.size() == 1);
  CHECK(h->kernels[0].name == "scale_add");
  CHECK(h->selected.rfind((p.root / "build/klineage/kernels/selected").string(), 0) == 0);
  CHECK(fs::path(h->selected).parent_path().filename() == "include");
  const std::string selected_text = readFile(h->selected);
  CHECK(selected_text != kHeader);
  CHECK(selected_text.find("template <typename T>") != std::string::npos);
  CHECK(sourceTree(p.root) == before);

  // Materialize: fresh, the header goes first on the include path; after an edit, it is taken away.
  const fs::path include_dir = p.root / "build/klineage/kernels/include";
  auto read = [](const std::string& f) { return readFile(f); };
  HeaderPlacement fresh = placeHeaders(sel, unit, include_dir.string(), read);
  REQUIRE(fresh.used.size() == 1);
  CHECK(fresh.stale.empty());
  CHECK(readFile(include_dir / "scale_add.cuh") == selected_text);
  CHECK(fresh.depends_on == std::vector<std::string>{header});
  CHECK_FALSE(fresh.marker.empty());
  CHECK(placeHeaders(sel, (p.root / "src/relu.cu").string(), include_dir.string(), read).used.empty());

  p.write("include/scale_add.cuh", std::string(kHeader) + "// edited\n");
  HeaderPlacement stale = placeHeaders(sel, unit, include_dir.string(), read);
  CHECK(stale.used.empty());
  REQUIRE(stale.stale.size() == 1);
  CHECK(stale.stale[0].changed_files == std::vector<std::string>{header});
  CHECK(stale.stale[0].entry->kernels[0].name == "scale_add");
  CHECK_FALSE(fs::exists(include_dir / "scale_add.cuh"));
  CHECK(stale.marker.empty());
}

TEST_CASE("template kernel: a variant is not kept while an instantiation is not gated", "[pipeline][header]") {
  // scale_add<double> is instantiated too, but the workload gates the float launch only.
  std::string two = std::string(kSource) + R"cu(
cudaError_t launch_scale_add_d(int n, double a, const double* x, double* y) {
  scale_add<double><<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
)cu";
  const std::string toml = readFile(fs::path(KLINEAGE_SOURCE_DIR) / "examples/quickstart/klineage.toml") + kWorkload;
  Project p(2, {{"include/scale_add.cuh", kHeader}, {"src/scale.cu", two}, {"klineage.toml", toml}}, {"scale.cu"});
  RecordingCompiler cc;
  FakeRunner gpu;
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
  const Selection sel = p.selection();
  CHECK(sel.findHeader((p.root / "include/scale_add.cuh").string()) == nullptr);
  const nlohmann::json rep = p.report();
  CHECK_FALSE(rep["selected"].contains("scale_add"));
  unsigned passed = 0;
  for (const auto& v : rep["variants"])
    if (v["variant"]["kernel"] == "scale_add" && !v["variant"]["is_original"].get<bool>()) passed += v["outcome"] == "passed";
  CHECK(passed >= 1);  // gated and passed on float, still not kept
  // the other kernels are selected as usual
  CHECK(sel.find((p.root / "src/saxpy.cu").string()) != nullptr);
}

namespace {

// A kernel two headers deep, as libraries keep them: src/ops.cu includes "ops/kernels.cuh" (on the
// -I path), which includes "detail/act.cuh" beside itself, which includes "common.cuh" beside
// itself; kernels.cuh also includes "detail/common.cuh".
const char* kKernelsCuh = "#pragma once\n#include \"detail/common.cuh\"\n#include \"detail/act.cuh\"\n";
const char* kCommonCuh = "#pragma once\n#define OPS_BLOCK 256\n";
const char* kActCuh = R"cu(#pragma once
#include "common.cuh"
__global__ void relu_kernel(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
)cu";
const char* kOpsCu = R"cu(#include "kernels.h"
#include "ops/kernels.cuh"

cudaError_t launch_relu(int n, const float* x, float* y) {
  relu_kernel<<<(n + OPS_BLOCK - 1) / OPS_BLOCK, OPS_BLOCK>>>(n, x, y);
  return cudaGetLastError();
}
)cu";
const char* kReluWorkload = R"cu(
[kernel.relu_kernel]
grid = ["(n + 255) / 256"]
block = [256]
args.n = 1048576
args.x = { elements = "n", init = "uniform(-1, 1)" }
args.y = { elements = "n", output = true }
)cu";

}  // namespace

TEST_CASE("nested header kernel: variants and the selection mirror the headers between the source and it",
          "[pipeline][header]") {
  const std::string toml = readFile(fs::path(KLINEAGE_SOURCE_DIR) / "examples/quickstart/klineage.toml") + kReluWorkload;
  Project p(4,
            {{"include/ops/kernels.cuh", kKernelsCuh}, {"include/ops/detail/common.cuh", kCommonCuh},
             {"include/ops/detail/act.cuh", kActCuh}, {"src/ops.cu", kOpsCu}, {"klineage.toml", toml}},
            {"ops.cu"});
  const std::string act = (p.root / "include/ops/detail/act.cuh").string();
  const std::string kernels = (p.root / "include/ops/kernels.cuh").string();
  const std::string common = (p.root / "include/ops/detail/common.cuh").string();
  const std::string unit = (p.root / "src/ops.cu").string();
  const auto before = sourceTree(p.root);
  RecordingCompiler cc;
  FakeRunner gpu;
  OptimizeOptions opt;
  opt.config = p.config;
  opt.only_kernel = "relu_kernel";
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
  const nlohmann::json rep = p.report();
  INFO("kernels: " << rep["kernels"].dump() << "\nskipped: " << rep["skipped"].dump());
  CHECK(rep["skipped"].empty());

  // Each variant: the rewritten act.cuh and unchanged copies of kernels.cuh and common.cuh, at
  // the names the includes find them by under its include directory.
  unsigned variants = 0;
  std::string some_variant_unit, some_include_dir, some_source;
  for (const auto& v : rep["variants"]) {
    if (v["variant"]["kernel"] != "relu_kernel" || v["variant"]["is_original"].get<bool>()) continue;
    ++variants;
    const fs::path inc = v["variant"]["include_dir"].get<std::string>();
    some_variant_unit = v["variant"]["unit_source"];
    some_include_dir = inc.string();
    some_source = v["variant"]["source"];
    CHECK(v["variant"]["source"] == (inc / "ops/detail/act.cuh").string());
    CHECK(readFile(inc / "ops/kernels.cuh") == kKernelsCuh);
    CHECK(readFile(inc / "ops/detail/common.cuh") == kCommonCuh);
    CHECK(readFile(inc / "ops/detail/act.cuh") != kActCuh);
  }
  REQUIRE(variants >= 1);
  // The unit's copy, preprocessed by nvcc with the variant's include directory first, reads the
  // rewritten header and none of the originals.
  const std::string cmd = "'" + klineage::test::nvccPath() + "' -E -x cu -I'" + some_include_dir + "' -I'" +
                          (p.root / "src").string() + "' -I'" + (p.root / "include").string() + "' '" +
                          some_variant_unit + "' > '" + (p.root / "build/pre.txt").string() + "' 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string pre = readFile(p.root / "build/pre.txt");
  CHECK(pre.find(some_source) != std::string::npos);
  CHECK(pre.find(act) == std::string::npos);
  CHECK(pre.find(kernels) == std::string::npos);

  // The selection: act.cuh at its mirrored name, the two others as companions; all depend on it.
  const Selection sel = p.selection();
  const SelectedSource* h = sel.findHeader(act);
  REQUIRE(h != nullptr);
  CHECK(h->include_name == "ops/detail/act.cuh");
  CHECK(h->companions == std::map<std::string, std::string>{{"ops/kernels.cuh", kernels}, {"ops/detail/common.cuh", common}});
  CHECK(h->depends_on.count(kernels));
  CHECK(h->depends_on.count(common));
  CHECK(sourceTree(p.root) == before);

  const fs::path include_dir = p.root / "build/klineage/kernels/include";
  auto read = [](const std::string& f) { return readFile(f); };
  HeaderPlacement fresh = placeHeaders(sel, unit, include_dir.string(), read);
  REQUIRE(fresh.used.size() == 1);
  CHECK(readFile(include_dir / "ops/detail/act.cuh") == readFile(h->selected));
  CHECK(readFile(include_dir / "ops/kernels.cuh") == kKernelsCuh);
  CHECK(readFile(include_dir / "ops/detail/common.cuh") == kCommonCuh);
  CHECK(std::count(fresh.depends_on.begin(), fresh.depends_on.end(), kernels) == 1);
  // An edit of a header between the source and the kernel makes the selection stale: every copy goes.
  p.write("include/ops/kernels.cuh", std::string(kKernelsCuh) + "// edited\n");
  HeaderPlacement stale = placeHeaders(sel, unit, include_dir.string(), read);
  CHECK(stale.used.empty());
  REQUIRE(stale.stale.size() == 1);
  CHECK(stale.stale[0].changed_files == std::vector<std::string>{kernels});
  CHECK_FALSE(fs::exists(include_dir / "ops/detail/act.cuh"));
  CHECK_FALSE(fs::exists(include_dir / "ops/kernels.cuh"));
  CHECK_FALSE(fs::exists(include_dir / "ops/detail/common.cuh"));
}
