// Issue 7: a template kernel defined in an include/*.cuh header, launched from a .cu, through the
// whole `klineage optimize` pipeline with a fake compiler and a fake GPU: its variants are the
// header rewritten and compiled through the including source, the selected header lands in the
// build tree (never the source tree), and the materialize decision puts it first while fresh and
// takes it away when the header changes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <mutex>

#include "core/fs.h"
#include "gate/selection.h"
#include "optimize.h"
#include "support/pipeline_project.h"

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
