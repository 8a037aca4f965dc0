// The pipeline's seams with fakes: captured launches (a fake capturer), replay and its fidelity
// check, tolerance widening, capture reuse and invalidation, the check on every captured shape,
// budget and geometry refusals, the guard that keeps the original when the re-applied source
// differs from the gated one, `klineage gate`'s exit codes, and the local backend on several
// (fake) devices.
#include <algorithm>
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/launch_record.h"
#include "gate/backend.h"
#include "apply.h"
#include "context.h"
#include "features/feature.h"
#include "optimize.h"
#include "run_key.h"
#include "plan.h"
#include "select.h"
#include "support/pipeline_project.h"

using klineage::test::FakeCompiler;
using klineage::test::Project;
namespace fs = std::filesystem;
using namespace klineage;

namespace {

std::string hexLE(unsigned long long v, unsigned bytes) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < bytes; ++i, v >>= 8) {
    s += d[(v >> 4) & 15];
    s += d[v & 15];
  }
  return s;
}

// One captured launch of saxpy(int n, float a, const float* x, float* y) with n elements.
// `shift` moves every device address, as another run of the program may.
void writeSaxpyRecord(const fs::path& dir, unsigned n, const std::string& mangled, unsigned long long shift = 0) {
  fs::create_directories(dir);
  const std::string x(n * 4, '\1'), y(n * 4, '\2');
  atomicWrite(dir / "a0.before.bin", x);
  atomicWrite(dir / "a0.after.bin", x);
  atomicWrite(dir / "a1.before.bin", y);
  atomicWrite(dir / "a1.after.bin", y);
  LaunchRecord r;
  r.kernel = "saxpy";
  r.mangled = mangled;
  r.grid = {(n + 255) / 256, 1, 1};
  r.block = {256, 1, 1};
  const unsigned long long bx = 0x7f0000100000ull + shift, by = 0x7f0000800000ull + shift;
  r.params = {{0, 0, 4, hexLE(n, 4), std::nullopt},
              {1, 4, 4, "00000040", std::nullopt},
              {2, 8, 8, hexLE(bx, 8), RecordedPointer{0, 0}},
              {3, 16, 8, hexLE(by, 8), RecordedPointer{1, 0}}};
  r.allocations = {{0, bx, n * 4ull, "a0.before.bin", "a0.after.bin", crc32Of(x.data(), x.size()), crc32Of(x.data(), x.size())},
                   {1, by, n * 4ull, "a1.before.bin", "a1.after.bin", crc32Of(y.data(), y.size()), crc32Of(y.data(), y.size())}};
  saveRecord(dir.string(), r);
}

// One captured launch of relu(int n, const float* in, float* out) with n elements.
void writeReluRecord(const fs::path& dir, unsigned n, const std::string& mangled, unsigned long long shift = 0) {
  fs::create_directories(dir);
  const std::string in(n * 4, '\1'), out(n * 4, '\1');
  atomicWrite(dir / "a0.before.bin", in);
  atomicWrite(dir / "a1.before.bin", out);
  LaunchRecord r;
  r.kernel = "relu";
  r.mangled = mangled;
  r.grid = {(n + 255) / 256, 1, 1};
  r.block = {256, 1, 1};
  const unsigned long long bi = 0x7f0002100000ull + shift, bo = 0x7f0002800000ull + shift;
  r.params = {{0, 0, 4, hexLE(n, 4), std::nullopt},
              {1, 8, 8, hexLE(bi, 8), RecordedPointer{0, 0}},
              {2, 16, 8, hexLE(bo, 8), RecordedPointer{1, 0}}};
  const uint32_t crc = crc32Of(in.data(), in.size());
  r.allocations = {{0, bi, n * 4ull, "a0.before.bin", "a0.before.bin", crc, crc},
                   {1, bo, n * 4ull, "a1.before.bin", "a1.before.bin", crc, crc}};
  saveRecord(dir.string(), r);
}

// Writes a capture of two saxpy launches (n = 4096 and n = 1024) where the real one would, only
// of the kernels it is asked for (with `relu_too`, relu's launch as well), as the real one does.
struct FakeCapturer : Capturer {
  int calls = 0;
  bool relu_too = false;
  std::vector<std::vector<std::string>> asked;  // the kernels each call listed (manifest names)
  int capture(const CaptureOptions& o, CaptureSummary* out) override {
    ++calls;
    asked.push_back(o.kernels_names);
    std::string mangled, relu;
    for (size_t i = 0; i < o.kernels_names.size(); ++i) {
      if (o.kernels_names[i] == "saxpy") mangled = o.kernels_mangled[i];
      if (o.kernels_names[i] == "relu") relu = o.kernels_mangled[i];
    }
    // Each capture at other addresses: the same launches, as a real run of the program may place them.
    const unsigned long long shift = (calls - 1) * 0x10000000ull;
    CaptureSummary s;
    s.command = o.command;
    if (!mangled.empty()) {
      writeSaxpyRecord(fs::path(o.out_dir) / "saxpy.0", 4096, mangled, shift);
      writeSaxpyRecord(fs::path(o.out_dir) / "saxpy.1", 1024, mangled, shift);
      s.records = {"saxpy.0", "saxpy.1"};
    }
    if (relu_too && !relu.empty()) {
      writeReluRecord(fs::path(o.out_dir) / "relu.0", 2048, relu, shift);
      s.records.push_back("relu.0");
    }
    if (s.records.empty() && !o.allow_none) return kExitCaptureNoKernels;
    fs::create_directories(o.out_dir);
    atomicWrite(fs::path(o.out_dir) / "capture.json", nlohmann::json(s).dump(2));
    *out = s;
    return 0;
  }
};

// Fidelity, variant and per-record answers a test sets.
struct ReplayRunner : GpuRunner {
  bool fidelity_ok = true;
  bool nondeterministic = false;
  std::string wrong_on_record;  // a record directory's name on which every variant is wrong
  bool wrong_misaligned = false;  // every replay with misaligned allocations is wrong
  std::mutex m;
  std::vector<RunnerJob> jobs;
  DeviceProbe probe() override { return {true, "Fake GPU", "sm_90", "", 1}; }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    {
      std::lock_guard<std::mutex> l(m);
      jobs.push_back(job);
    }
    RunnerResult r;
    if (job.replay && job.replay->check_fidelity) {
      r.fidelity_ok = fidelity_ok;
      r.fidelity_reason = fidelity_ok ? "" : "allocation 1 differs at byte 8";
      r.nondeterministic = nondeterministic;
      r.widened_rtol = nondeterministic ? 0.02 : 0;
      r.outcome = Outcome::Passed;
      return r;
    }
    if (job.replay && wrong_misaligned && job.replay->misalign_bytes) {
      r.outcome = Outcome::WrongResult;
      r.reason = "y[0]: expected 1, got -2";
      return r;
    }
    if (job.replay && !wrong_on_record.empty() && fs::path(job.replay->record_dir).filename() == wrong_on_record) {
      r.outcome = Outcome::WrongResult;
      r.reason = "y[3]: expected 1, got 2";
      return r;
    }
    r.outcome = Outcome::Passed;
    klineage::test::setTimes(r, job.variant.grid.x < job.original.grid.x ? 1.3 : 1.05);
    return r;
  }
};

struct Run {
  FakeCompiler cc;
  FakeCapturer cap;
  RecordingStatus status;
  int operator()(Project& p, GpuRunner& gpu, OptimizeOptions opt = {}) {
    opt.config = p.config;
    PipelineSeams s;
    s.compiler = &cc;
    s.runner = &gpu;
    s.capturer = &cap;
    s.status = &status;
    return runOptimize(opt, s);
  }
};

const nlohmann::json* kernelEntry(const nlohmann::json& rep, const std::string& name) {
  for (const auto& k : rep["kernels"])
    if (k["kernel"] == name) return &k;
  return nullptr;
}

}  // namespace

TEST_CASE("seams: a faithful capture is replayed and every captured shape is checked", "[pipeline][capture]") {
  Project p(4);
  p.setConfig("run", {{"command", {"/bin/true"}}});
  ReplayRunner gpu;
  Run run;
  REQUIRE(run(p, gpu) == 0);
  CHECK(run.cap.calls == 1);
  const nlohmann::json rep = p.report();
  const auto* saxpy = kernelEntry(rep, "saxpy");
  REQUIRE(saxpy);
  CHECK((*saxpy)["gated_on"] == "capture");
  CHECK(fs::path((*saxpy)["record"].get<std::string>()).filename() == "saxpy.0");  // the largest
  // relu was not launched by the program: it falls back to its workload entry
  CHECK((*kernelEntry(rep, "relu"))["gated_on"] == "workload");
  CHECK(run.status.saw("relu: falling back to the workload entry"));
  // every saxpy variant ran on the largest launch and was then checked on the other one
  unsigned on_big = 0, on_small = 0;
  for (const auto& j : gpu.jobs) {
    if (!j.replay || j.replay->check_fidelity) continue;
    const std::string rec = fs::path(j.replay->record_dir).filename().string();
    on_big += rec == "saxpy.0" && j.profile.enabled;
    on_small += rec == "saxpy.1" && !j.profile.enabled;
  }
  CHECK(on_big >= 2);
  CHECK(on_small == on_big);
}

TEST_CASE("seams: a variant wrong on another captured shape is rejected and named so", "[pipeline][capture]") {
  Project p(4);
  p.setConfig("run", {{"command", {"/bin/true"}}});
  ReplayRunner gpu;
  gpu.wrong_on_record = "saxpy.1";
  Run run;
  REQUIRE(run(p, gpu) == 0);
  const nlohmann::json rep = p.report();
  unsigned rejected = 0;
  for (const auto& v : rep["variants"]) {
    if (v["variant"]["kernel"] != "saxpy" || v["variant"]["is_original"].get<bool>()) continue;
    CHECK(v["outcome"] == "wrong-result");
    CHECK(v["reason"].get<std::string>().find("on the captured launch") != std::string::npos);
    ++rejected;
  }
  CHECK(rejected >= 2);
  CHECK_FALSE(rep["selected"].contains("saxpy"));
}

TEST_CASE("seams: a variant with a path for unaligned pointers is replayed misaligned too, and rejected when wrong there",
          "[pipeline][capture][hardening]") {
  Project p(4);
  p.setConfig("run", {{"command", {"/bin/true"}}});
  ReplayRunner gpu;
  gpu.wrong_misaligned = true;
  Run run;
  REQUIRE(run(p, gpu) == 0);
  // The misaligned replays: the main captured launch, checked, not timed, no probes.
  std::set<std::string> misaligned_variants;
  for (const auto& j : gpu.jobs) {
    if (!j.replay || !j.replay->misalign_bytes) continue;
    CHECK(j.replay->misalign_bytes == 8);
    CHECK(fs::path(j.replay->record_dir).filename() == "saxpy.0");
    CHECK_FALSE(j.profile.enabled);
    CHECK_FALSE(j.replay->check_fidelity);
    CHECK(j.probes.empty());
    misaligned_variants.insert(j.variant.cubin);
  }
  CHECK_FALSE(misaligned_variants.empty());
  // Exactly the variants whose source has the alignment test run it, and they are rejected.
  const nlohmann::json rep = p.report();
  unsigned with_test = 0, without = 0;
  for (const auto& v : rep["variants"]) {
    if (v["variant"]["kernel"] != "saxpy" || v["variant"]["is_original"].get<bool>()) continue;
    INFO(v["variant"]["id"] << ": " << v["outcome"] << " " << v["reason"]);
    const bool has_test = readFile(v["variant"]["source"].get<std::string>()).find("& 15) == 0") != std::string::npos;
    CHECK(misaligned_variants.count(v["cubin"].get<std::string>()) == (has_test ? 1u : 0u));
    if (has_test) {
      ++with_test;
      CHECK(v["outcome"] == "wrong-result");
      CHECK_THAT(v["reason"].get<std::string>(),
                 Catch::Contains("saxpy.0 with its allocations 8 bytes past a 16-byte boundary: y[0]: expected 1, got -2"));
    } else {
      ++without;
      CHECK(v["outcome"] != "wrong-result");
    }
  }
  CHECK(with_test > 0);
  CHECK(without > 0);
  if (rep["selected"].contains("saxpy"))
    for (const auto& s : rep["selected"]["saxpy"]["skills"]) CHECK(s != "vectorize-access");
}

TEST_CASE("seams: an unfaithful replay falls back to the workload, a nondeterministic one widens the tolerance",
          "[pipeline][capture]") {
  SECTION("unfaithful") {
    Project p(2);
    p.setConfig("run", {{"command", {"/bin/true"}}});
    ReplayRunner gpu;
    gpu.fidelity_ok = false;
    Run run;
    REQUIRE(run(p, gpu) == 0);
    const nlohmann::json rep = p.report();
    CHECK((*kernelEntry(rep, "saxpy"))["gated_on"] == "workload");
    CHECK(run.status.saw("not replayable: allocation 1 differs at byte 8"));
    for (const auto& j : gpu.jobs)
      if (j.replay) CHECK(j.replay->check_fidelity);  // only the fidelity check replayed
  }
  SECTION("nondeterministic") {
    Project p(2);
    p.setConfig("run", {{"command", {"/bin/true"}}});
    ReplayRunner gpu;
    gpu.nondeterministic = true;
    Run run;
    REQUIRE(run(p, gpu) == 0);
    const nlohmann::json rep = p.report();
    const auto* saxpy = kernelEntry(rep, "saxpy");
    CHECK((*saxpy)["gated_on"] == "capture");
    CHECK((*saxpy)["notes"].dump().find("tolerance widened") != std::string::npos);
    unsigned variant_jobs = 0;
    for (const auto& j : gpu.jobs)
      if (j.replay && !j.replay->check_fidelity) {
        CHECK(j.tolerance.rtol >= 0.02);
        ++variant_jobs;
      }
    CHECK(variant_jobs > 0);
  }
}

TEST_CASE("seams: a capture is reused until a kernel's source changes, then taken again", "[pipeline][capture]") {
  Project p(1);
  p.setConfig("run", {{"command", {"/bin/true"}}});
  ReplayRunner gpu;
  Run run;
  OptimizeOptions no_cache;  // a run with nothing changed would stop before the capture
  no_cache.result_cache = false;
  REQUIRE(run(p, gpu, no_cache) == 0);
  REQUIRE(run(p, gpu, no_cache) == 0);
  CHECK(run.cap.calls == 1);
  CHECK(run.status.saw("reusing the capture in"));
  const fs::path captures = p.root / "build/klineage/kernels/captures";
  std::vector<fs::path> before;
  for (const auto& e : fs::directory_iterator(captures)) before.push_back(e.path());
  REQUIRE(before.size() == 1);
  // a change in the kernel's code: its source hash, so the key, changes
  std::string src = readFile(p.root / "src/saxpy.cu");
  src.replace(src.find("a * x[i]"), 8, "x[i] * a");
  atomicWrite(p.root / "src/saxpy.cu", src);
  REQUIRE(run(p, gpu, no_cache) == 0);
  CHECK(run.cap.calls == 2);
  std::vector<fs::path> after;
  for (const auto& e : fs::directory_iterator(captures)) after.push_back(e.path());
  REQUIRE(after.size() == 1);  // the old capture is gone
  CHECK(after[0] != before[0]);
  // a corrupt capture is taken again, not trusted
  atomicWrite(after[0] / "capture.json", "{ not json");
  REQUIRE(run(p, gpu, no_cache) == 0);
  CHECK(run.cap.calls == 3);
  CHECK(run.status.saw("is corrupt"));
}

TEST_CASE("seams: a kept capture's blobs are checked against their CRC-32 before reuse, a fresh one's sizes only",
          "[pipeline][capture]") {
  Project p(1);
  p.setConfig("run", {{"command", {"/bin/true"}}});
  ReplayRunner gpu;
  Run run;
  OptimizeOptions no_cache;
  no_cache.result_cache = false;
  REQUIRE(run(p, gpu, no_cache) == 0);
  REQUIRE(run.cap.calls == 1);
  const fs::path captures = p.root / "build/klineage/kernels/captures";
  fs::path dir;
  for (const auto& e : fs::directory_iterator(captures)) dir = e.path();
  // one byte of a kept blob changed, its size not: the next run sees it and captures again
  std::string blob = readFile(dir / "saxpy.0/a0.before.bin");
  blob[7] ^= 0x20;
  atomicWrite(dir / "saxpy.0/a0.before.bin", blob);
  REQUIRE(run(p, gpu, no_cache) == 0);
  CHECK(run.cap.calls == 2);
  CHECK(run.status.saw("CRC-32 does not match the record"));
  // a blob of the wrong size in the capture just taken: it is not used
  struct Truncating : FakeCapturer {
    int capture(const CaptureOptions& o, CaptureSummary* out) override {
      const int rc = FakeCapturer::capture(o, out);
      atomicWrite(fs::path(o.out_dir) / "saxpy.1/a1.before.bin", "short");
      return rc;
    }
  } truncating;
  atomicWrite(p.root / "src/saxpy.cu", readFile(p.root / "src/saxpy.cu") + "\n__global__ void edited() {}\n");
  PipelineSeams seams;
  FakeCompiler cc;
  RecordingStatus status;
  OptimizeOptions opt = no_cache;
  opt.config = p.config;
  seams.compiler = &cc;
  seams.runner = &gpu;
  seams.capturer = &truncating;
  seams.status = &status;
  CHECK(runOptimize(opt, seams) != 0);
  CHECK(status.saw("a1.before.bin: 5 bytes, the record says 4096"));
}

TEST_CASE("seams: a capture taken again after another kernel's edit reuses the unchanged kernel's results",
          "[pipeline][capture][cache]") {
  Project p(4);
  p.setConfig("run", {{"command", {"/bin/true"}}});
  ReplayRunner gpu;
  auto saxpyJobsSince = [&](size_t from) {
    return std::count_if(gpu.jobs.begin() + static_cast<long>(from), gpu.jobs.end(),
                         [](const RunnerJob& j) { return j.original.function.find("saxpy") != std::string::npos; });
  };
  Run run;
  REQUIRE(run(p, gpu) == 0);
  REQUIRE(run.cap.calls == 1);
  REQUIRE(saxpyJobsSince(0) > 1);  // its replay check and its variants
  const size_t before = gpu.jobs.size();
  // relu's code changes: the capture key does, so the program is captured again, at other addresses
  std::string src = readFile(p.root / "src/relu.cu");
  src.replace(src.find("in[i] > 0.0f"), 12, "0.0f < in[i]");
  atomicWrite(p.root / "src/relu.cu", src);
  REQUIRE(run(p, gpu) == 0);
  CHECK(run.cap.calls == 2);
  // saxpy's launches have the same content: its replay check and every variant from the cache
  // (relu, which the program does not launch, is gated again on its workload entry)
  CHECK(saxpyJobsSince(before) == 0);
  CHECK(run.status.saw("the replay check of its captured launch: from the result cache"));
  size_t variants = 0, cached = 0;
  const nlohmann::json rep = p.report();
  for (const auto& v : rep["variants"]) {
    if (v["variant"]["is_original"].get<bool>() || v["variant"]["kernel"] != "saxpy" || v.contains("same_as")) continue;
    ++variants;
    cached += v.value("cached", false);
  }
  CHECK(variants > 0);
  CHECK(cached == variants);
  // A launch whose data differ is gated again: another capture with other inputs
  const size_t jobs = gpu.jobs.size();
  struct OtherData : Capturer {
    int capture(const CaptureOptions& o, CaptureSummary* out) override {
      std::string mangled;
      for (size_t i = 0; i < o.kernels_names.size(); ++i)
        if (o.kernels_names[i] == "saxpy") mangled = o.kernels_mangled[i];
      writeSaxpyRecord(fs::path(o.out_dir) / "saxpy.0", 4096, mangled);
      writeSaxpyRecord(fs::path(o.out_dir) / "saxpy.1", 1000, mangled);  // another n
      CaptureSummary s;
      s.command = o.command;
      s.records = {"saxpy.0", "saxpy.1"};
      atomicWrite(fs::path(o.out_dir) / "capture.json", nlohmann::json(s).dump(2));
      *out = s;
      return 0;
    }
  } other;
  // (host code changes too: a kernel's edit alone keeps saxpy's launches, captured or not)
  src.replace(src.find("0.0f < in[i]"), 12, "in[i] > 0.0f");
  atomicWrite(p.root / "src/relu.cu", src + "\nint relu_host_helper() { return 1; }\n");
  PipelineSeams s;
  FakeCompiler cc;
  RecordingStatus status;
  OptimizeOptions opt;
  opt.config = p.config;
  s.compiler = &cc;
  s.runner = &gpu;
  s.capturer = &other;
  s.status = &status;
  REQUIRE(runOptimize(opt, s) == 0);
  CHECK(saxpyJobsSince(jobs) > 0);
}

TEST_CASE("seams: after an edit of one kernel only its launches are captured again, after a host edit all of them",
          "[pipeline][capture][cache]") {
  Project p(1);
  p.setConfig("run", {{"command", {"/bin/true"}}});
  ReplayRunner gpu;
  Run run;
  run.cap.relu_too = true;
  OptimizeOptions no_cache;  // every run captures or reuses; only the capture is under test
  no_cache.result_cache = false;
  REQUIRE(run(p, gpu, no_cache) == 0);
  REQUIRE(run.cap.calls == 1);
  CHECK(std::set<std::string>(run.cap.asked[0].begin(), run.cap.asked[0].end()) == std::set<std::string>{"saxpy", "relu"});
  const fs::path captures = p.root / "build/klineage/kernels/captures";
  auto captureDir = [&] {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(captures)) dirs.push_back(e.path());
    REQUIRE(dirs.size() == 1);
    return dirs[0];
  };
  const fs::path first = captureDir();
  const std::string saxpy_blob = readFile(first / "saxpy.0/a0.before.bin");
  // relu's body changes, nothing else: only relu is captured again, saxpy's launches are kept
  std::string src = readFile(p.root / "src/relu.cu");
  src.replace(src.find("in[i] > 0.0f"), 12, "0.0f < in[i]");
  atomicWrite(p.root / "src/relu.cu", src);
  REQUIRE(run(p, gpu, no_cache) == 0);
  REQUIRE(run.cap.calls == 2);
  CHECK(run.cap.asked[1] == std::vector<std::string>{"relu"});
  CHECK(run.status.saw("(only relu, changed since the last capture; the 2 launches of 1 other kernel(s) are kept"));
  CHECK(run.status.saw("klineage: 1 of 2 sources unchanged since the last extraction: not parsed again"));  // relu.cu is
  const fs::path second = captureDir();
  CHECK(second != first);
  const CaptureSummary sum = nlohmann::json::parse(readFile(second / "capture.json")).get<CaptureSummary>();
  CHECK(sum.records == std::vector<std::string>{"relu.0", "saxpy.0", "saxpy.1"});
  CHECK(readFile(second / "saxpy.0/a0.before.bin") == saxpy_blob);  // the first capture's, at its addresses
  CHECK(loadRecord((second / "saxpy.0").string()).allocations[0].base == 0x7f0000100000ull);
  CHECK(loadRecord((second / "relu.0").string()).allocations[0].base == 0x7f0002100000ull + 0x10000000ull);
  // the merged capture is reused as a whole by the next run
  REQUIRE(run(p, gpu, no_cache) == 0);
  CHECK(run.cap.calls == 2);
  CHECK(run.status.saw("reusing the capture in " + second.string()));
  // host code changes (a line outside every kernel): everything is captured again
  atomicWrite(p.root / "src/relu.cu", readFile(p.root / "src/relu.cu") + "\n// the sizes changed\n");
  src = readFile(p.root / "src/relu.cu");
  src.replace(src.find("0.0f < in[i]"), 12, "in[i] > 0.0f");
  atomicWrite(p.root / "src/relu.cu", src);
  REQUIRE(run(p, gpu, no_cache) == 0);
  REQUIRE(run.cap.calls == 3);
  CHECK(std::set<std::string>(run.cap.asked[2].begin(), run.cap.asked[2].end()) == std::set<std::string>{"saxpy", "relu"});
  CHECK(loadRecord((captureDir() / "saxpy.0").string()).allocations[0].base == 0x7f0000100000ull + 0x20000000ull);
  // so does a capture without its basis.json (taken before this was recorded)
  fs::remove(captureDir() / "basis.json");
  src.replace(src.find("in[i] > 0.0f"), 12, "0.0f < in[i]");
  atomicWrite(p.root / "src/relu.cu", src);
  REQUIRE(run(p, gpu, no_cache) == 0);
  REQUIRE(run.cap.calls == 4);
  CHECK(run.cap.asked[3].size() == 2);
  // a kept blob cut short since: not kept, the whole program is captured again
  atomicWrite(captureDir() / "saxpy.1/a1.before.bin", "short");
  src.replace(src.find("0.0f < in[i]"), 12, "in[i] > 0.0f");
  atomicWrite(p.root / "src/relu.cu", src);
  REQUIRE(run(p, gpu, no_cache) == 0);
  REQUIRE(run.cap.calls == 5);
  CHECK(run.cap.asked[4].size() == 2);
  CHECK(run.status.saw("cannot keep launches of the last capture"));
  // the source directory named through a symlink (clang names the kernels' files by their real
  // paths): a kernel-only edit is still one
  const fs::path link = p.root.string() + "-link";
  fs::remove(link);
  fs::create_directory_symlink(p.root, link);
  p.setConfig("source_dir", link.string());
  src.replace(src.find("in[i] > 0.0f"), 12, "0.0f < in[i]");
  atomicWrite(p.root / "src/relu.cu", src);
  REQUIRE(run(p, gpu, no_cache) == 0);
  CHECK(run.cap.asked.back() == std::vector<std::string>{"relu"});
  src.replace(src.find("0.0f < in[i]"), 12, "in[i] > 0.0f");
  atomicWrite(p.root / "src/relu.cu", src);
  REQUIRE(run(p, gpu, no_cache) == 0);
  CHECK(run.cap.asked.back() == std::vector<std::string>{"relu"});
  fs::remove(link);
}

TEST_CASE("seams: the replay check runs a kernel with atomics more often to see float atomics differ",
          "[pipeline][capture]") {
  auto fidelityRuns = [](Project& p) {
    p.setConfig("run", {{"command", {"/bin/true"}}});
    ReplayRunner gpu;
    Run run;
    OptimizeOptions only;
    only.only_kernel = "saxpy";
    REQUIRE(run(p, gpu, only) == 0);
    for (const auto& j : gpu.jobs)
      if (j.replay && j.replay->check_fidelity) return j.replay->determinism_runs;
    FAIL("no replay check");
    return 0u;
  };
  Project plain(1);
  CHECK(fidelityRuns(plain) == 2);
  // The same launch, its sum made with an atomic
  std::string atomic = readFile(fs::path(KLINEAGE_SOURCE_DIR) / "examples/quickstart/src/saxpy.cu");
  atomic.replace(atomic.find("y[i] = a * x[i] + y[i];"), 23, "atomicAdd(&y[i], a * x[i]);");
  Project with_atomics(1, {{"src/saxpy.cu", atomic}});
  CHECK(fidelityRuns(with_atomics) == kAtomicsDeterminismRuns);
}

TEST_CASE("seams: the RUN program linked again into the same bytes is no change, another program is",
          "[pipeline][capture][cache]") {
  Project p(1);
  // A program as nvcc leaves it: its temporary file names carry the compiling process's id.
  const auto program = [&](const std::string& pid, const std::string& code) {
    return p.write("bin/check", "\x7f" "ELF " + code + " tmpxft_" + pid + "_00000000-6_check.cudafe1.cpp end");
  };
  const std::string path = program("00001559", "main");
  p.setConfig("run", {{"command", {path}}});
  ReplayRunner gpu;
  Run run;
  REQUIRE(run(p, gpu) == 0);
  REQUIRE(run.cap.calls == 1);
  const size_t jobs = gpu.jobs.size();
  program("000017f8", "main");  // compiled and linked again by another nvcc process
  REQUIRE(run(p, gpu) == 0);
  CHECK(run.status.saw("nothing changed since the last run"));
  CHECK(run.cap.calls == 1);
  CHECK(gpu.jobs.size() == jobs);
  program("000017f8", "main2");  // its code changed: captured and run again
  REQUIRE(run(p, gpu) == 0);
  CHECK(run.cap.calls == 2);
  const std::string changed = klineage::programHash(path);
  const std::string one = klineage::programHash(program("0000abcd", "main"));
  CHECK(changed != one);
  CHECK(one == klineage::programHash(program("00001559", "main")));
  CHECK(klineage::programHash((p.root / "bin/none").string()) == "(missing)");
}

TEST_CASE("seams: the budget caps variants per kernel, a kernel launched from outside gets no geometry change",
          "[pipeline]") {
  Project p(2);
  ReplayRunner gpu;
  Run run;
  REQUIRE(run(p, gpu) == 0);
  nlohmann::json rep = p.report();
  std::map<std::string, unsigned> per_kernel;
  for (const auto& v : rep["variants"])
    if (!v["variant"]["is_original"].get<bool>()) ++per_kernel[v["variant"]["kernel"].get<std::string>()];
  CHECK(per_kernel["saxpy"] == 2);
  CHECK(per_kernel["relu"] == 2);

  // relu launched only from outside the target's sources (no launch site KLineage can rewrite):
  // vectorize (grid.x / 4) is refused
  Project q(16);
  std::string relu = readFile(q.root / "src/relu.cu");
  const auto at = relu.find("cudaError_t launch_relu");
  REQUIRE(at != std::string::npos);
  atomicWrite(q.root / "src/relu.cu", relu.substr(0, at));
  Run run2;
  REQUIRE(run2(q, gpu) == 0);
  rep = q.report();
  const std::string refused = (*kernelEntry(rep, "relu"))["skills_not_applied"].dump();
  CHECK(refused.find("needs a launch-geometry change") != std::string::npos);
  for (const auto& v : rep["variants"])
    if (v["variant"]["kernel"] == "relu") CHECK(v["variant"]["geometry"]["grid_x_divisor"] == 1);
}

TEST_CASE("seams: klineage gate exits with the rejected variant's outcome code", "[pipeline][gate]") {
  Project p(1);
  const std::string saxpy = readFile(p.root / "src/saxpy.cu");
  const std::string good = p.write("good.cu", saxpy);
  const std::string other = p.write("other.cu", saxpy + "\n// another copy\n");
  struct Verdicts : ReplayRunner {
    Outcome second = Outcome::Passed;
    int n = 0;
    RunnerResult run(const RunnerJob& job, const std::string& wd, double t) override {
      RunnerResult r = ReplayRunner::run(job, wd, t);
      if (job.variant.cubin.find("other") != std::string::npos && job.profile.enabled) {
        r.outcome = second;
        r.reason = "as the test says";
      }
      return r;
    }
  };
  for (auto [o, code] : std::vector<std::pair<Outcome, int>>{{Outcome::Passed, 0},
                                                              {Outcome::WrongResult, 10},
                                                              {Outcome::RuntimeFailed, 11},
                                                              {Outcome::Timeout, 12}}) {
    Verdicts gpu;
    gpu.second = o;
    OptimizeOptions opt;
    opt.extra_variant_kernel = "saxpy";
    opt.only_kernel = "saxpy";
    opt.extra_variant_sources = {good, other};
    opt.skip_skills = true;
    opt.write_selection = false;
    Run run;
    INFO(outcomeName(o));
    CHECK(run(p, gpu, opt) == code);
    CHECK(gateExitCode(o) == code);
  }
  // a variant whose kernel changed its signature is not-run: 14
  std::string changed = saxpy;
  changed.replace(changed.find("int n"), 5, "long n");
  const std::string bad = p.write("bad.cu", changed);
  ReplayRunner gpu;
  OptimizeOptions opt;
  opt.extra_variant_kernel = "saxpy";
  opt.only_kernel = "saxpy";
  opt.extra_variant_sources = {bad};
  opt.skip_skills = true;
  opt.write_selection = false;
  Run run;
  CHECK(run(p, gpu, opt) == 14);
}

TEST_CASE("seams: the local backend gates on every device at once, one job per device", "[pipeline][backend]") {
  struct Slow : GpuRunner {
    std::atomic<int>* now;
    std::atomic<int>* peak;
    int device;
    DeviceProbe probe() override { return {true, "Fake GPU", "sm_90", "", 3}; }
    RunnerResult run(const RunnerJob&, const std::string&, double) override {
      int n = ++*now;
      for (int p = *peak; n > p && !peak->compare_exchange_weak(p, n);) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      --*now;
      RunnerResult r;
      r.outcome = Outcome::Passed;
      r.device = "fake " + std::to_string(device);
      return r;
    }
  };
  std::atomic<int> now{0}, peak{0};
  std::vector<int> made;
  auto backend = makeLocalBackend([&](int d) {
    made.push_back(d);
    auto r = std::make_unique<Slow>();
    r->now = &now;
    r->peak = &peak;
    r->device = d;
    return r;
  });
  CHECK(backend->probe().count == 3);
  CHECK(made == std::vector<int>{-1, 0, 1, 2});  // one to probe, then one per device
  std::set<std::string> devices;
  unsigned submitted = 0, finished = 0;
  while (finished < 12) {
    while (submitted < 12 && backend->canRunMore()) {
      JobBundle b;
      b.id = std::to_string(submitted++);
      backend->submit(b);
    }
    devices.insert(backend->wait().result.device);
    ++finished;
  }
  CHECK(peak == 3);                 // never more than one job per device
  CHECK(devices.size() == 3);       // and every device used
  CHECK(backend->running() == 0);
}

TEST_CASE("seams: a job bundle carries every file its job reads, with paths inside it", "[pipeline][backend]") {
  const fs::path dir = fs::temp_directory_path() / ("klineage-bundle-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  writeSaxpyRecord(dir / "rec", 256, "_Z5saxpyifPKfPf");
  atomicWrite(dir / "o.cubin", "original cubin");
  atomicWrite(dir / "v.cubin", "variant cubin");
  JobBundle b;
  b.id = "saxpy/1";
  b.job.original.cubin = (dir / "o.cubin").string();
  b.job.variant.cubin = (dir / "v.cubin").string();
  b.job.replay = ReplaySpec{};
  b.job.replay->record_dir = (dir / "rec").string();
  CHECK(b.files().size() == 3);
  atomicWrite(dir / "r.cubin", "oracle cubin");
  b.job.oracle = OracleSpec{(dir / "r.cubin").string(), "_Z5saxpyifPKfPf", {}};
  CHECK(b.files().size() == 4);
  REQUIRE(packBundle(b, (dir / "b.tar").string()).empty());
  fs::create_directories(dir / "x");
  REQUIRE(std::system(("tar -xf " + (dir / "b.tar").string() + " -C " + (dir / "x").string()).c_str()) == 0);
  const RunnerJob j = nlohmann::json::parse(readFile(dir / "x/job.json")).get<RunnerJob>();
  CHECK(j.original.cubin == "original.cubin");
  CHECK(j.variant.cubin == "variant.cubin");
  CHECK(j.replay->record_dir == "record");
  CHECK(readFile(dir / "x/original.cubin") == "original cubin");
  CHECK(readFile(dir / "x/variant.cubin") == "variant cubin");
  REQUIRE(j.oracle);
  CHECK(j.oracle->cubin == "oracle.cubin");
  CHECK(readFile(dir / "x/oracle.cubin") == "oracle cubin");
  // the record travels whole and still verifies
  CHECK(loadRecord((dir / "x/record").string()).allocations.size() == 2);
  // nothing in the job names the submitting machine's directory
  CHECK(readFile(dir / "x/job.json").find(dir.string()) == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("seams: a winner whose re-applied source differs from the gated one keeps the original", "[pipeline][select]") {
  Project proj(1);
  TargetSetup setup = loadTargetSetup(proj.config);
  FakeCompiler cc;
  ReplayRunner gpu;
  auto backend = makeLocalBackend([&](int) { return borrowedRunner(gpu); }, 1);
  FakeCapturer cap;
  RecordingStatus status;
  Pipeline p{setup, setup.config, BuildTreeLayout{setup.config.out_dir}, status, cc, *backend, cap, {}, 1, {}, true};
  for (const auto& f : setup.originals) p.originals[f] = readFile(f);
  const Manifest manifest = extractManifest(setup.config.target, setup.toParse());
  const std::vector<Skill> skills = loadSkills(setup.config.skills, transformIds(), featureIds());
  const Skill* restrict = nullptr;
  for (const auto& s : skills)
    if (s.id == "restrict-pointers") restrict = &s;
  REQUIRE(restrict);
  const std::string file = (proj.root / "src/saxpy.cu").string();
  StepResult step = applyStep(p.originals, setup.clang_args, file, "saxpy", *findTransform(restrict->transform),
                              Direction::Forward, paramsOf(*restrict), TransformFacts{});
  REQUIRE(step.applied);
  Plans plans;
  KernelPlan kp;
  kp.info = manifest.find("saxpy");
  plans.kernels.push_back(kp);
  VariantReport rep;
  rep.variant.id = "saxpy/1";
  rep.variant.kernel = "saxpy";
  rep.variant.kernel_file = file;
  rep.variant.skills = {"restrict-pointers"};
  rep.outcome = Outcome::Passed;
  rep.speedup = 1.2;
  const std::map<std::string, const VariantReport*> best{{"saxpy", &rep}};

  // the gated source is what re-applying gives: selected
  rep.variant.source = proj.write("gated/same.cu", step.overlay.at(file));
  SelectedFiles same = buildSelectedSources(p, best, plans, skills, manifest, (proj.root / "sel1").string());
  REQUIRE(same.selection.sources.size() == 1);
  CHECK(same.texts.at(file) == step.overlay.at(file));

  // the gated kernel differs from what re-applying gives: the original is kept, with a warning
  std::string other = step.overlay.at(file);
  other.replace(other.find("a * x[i]"), 8, "a * x[i] * 1.0f");
  rep.variant.source = proj.write("gated/other.cu", other);
  SelectedFiles differs = buildSelectedSources(p, best, plans, skills, manifest, (proj.root / "sel2").string());
  CHECK(differs.selection.sources.empty());
  CHECK(status.saw("would differ from the gated variant; keeping the original"));
}

TEST_CASE("plan: factsFor gives a transform the block as the earlier steps left the launch", "[pipeline][select]") {
  KernelPlan plan;
  plan.block_shape = Dim3{256, 1, 1};
  plan.block_size = 256;
  TransformFacts none = factsFor(plan, GeometryChange{});
  REQUIRE(none.block);
  CHECK(*none.block == Dim3{256, 1, 1});
  CHECK(none.block_size == 256);
  GeometryChange g;
  g.block_x = 32;
  g.block_y = 8;
  TransformFacts changed = factsFor(plan, g);
  REQUIRE(changed.block);
  CHECK(*changed.block == Dim3{32, 8, 1});
  CHECK(changed.block_size == 256);
  g.block_y.reset();
  g.block_x = 128;
  CHECK(factsFor(plan, g).block_size == 128);
  // only the size known: a changed block has none
  KernelPlan sized;
  sized.block_size = 256;
  CHECK(factsFor(sized, GeometryChange{}).block_size == 256);
  CHECK_FALSE(factsFor(sized, g).block_size);
  CHECK_FALSE(factsFor(sized, g).block);
  CHECK_FALSE(factsFor(KernelPlan{}, GeometryChange{}).shape());
}

TEST_CASE("seams: a winner's chain is re-applied with the block its earlier steps launch", "[pipeline][select]") {
  // block-size-128 launches 128 threads instead of 48; only then is block-reduce-atomic possible
  // (it needs a multiple of 32). Re-applied with the original's block, the second step refuses.
  const std::string sum =
      "__global__ void sum(int n, const float* x, float* out) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) atomicAdd(out, x[i]);\n"
      "}\n";
  Project proj(1, {{"src/sum.cu", sum}}, {"sum.cu"});
  TargetSetup setup = loadTargetSetup(proj.config);
  FakeCompiler cc;
  ReplayRunner gpu;
  auto backend = makeLocalBackend([&](int) { return borrowedRunner(gpu); }, 1);
  FakeCapturer cap;
  RecordingStatus status;
  Pipeline p{setup, setup.config, BuildTreeLayout{setup.config.out_dir}, status, cc, *backend, cap, {}, 1, {}, true};
  for (const auto& f : setup.originals) p.originals[f] = readFile(f);
  const Manifest manifest = extractManifest(setup.config.target, setup.toParse());
  const std::vector<Skill> skills = loadSkills(setup.config.skills, transformIds(), featureIds());
  auto skill = [&](const std::string& id) {
    for (const auto& s : skills)
      if (s.id == id) return &s;
    FAIL("no skill " << id);
    return static_cast<const Skill*>(nullptr);
  };
  const Skill* block = skill("block-size-128");
  const Skill* reduce = skill("block-reduce-atomic");
  const std::string file = (proj.root / "src/sum.cu").string();
  Plans plans;
  KernelPlan kp;
  kp.info = manifest.find("sum");
  REQUIRE(kp.info);
  kp.block_shape = Dim3{48, 1, 1};
  kp.block_size = 48;
  kp.geometry_may_change = true;
  plans.kernels.push_back(kp);

  // the chain as the search makes it: the second step sees the 128-thread block
  StepResult first = applyStep(p.originals, setup.clang_args, file, "sum", *findTransform(block->transform),
                               Direction::Forward, paramsOf(*block), factsFor(kp, GeometryChange{}));
  REQUIRE(first.applied);
  REQUIRE(first.geometry.block_x == 128);
  StepResult second = applyStep(first.overlay, setup.clang_args, file, "sum", *findTransform(reduce->transform),
                                Direction::Forward, paramsOf(*reduce), factsFor(kp, first.geometry));
  INFO(second.reason);
  REQUIRE(second.applied);
  GeometryChange chain_geometry = first.geometry;
  chain_geometry.compose(second.geometry);

  VariantReport rep;
  rep.variant.id = "sum/1";
  rep.variant.kernel = "sum";
  rep.variant.kernel_file = file;
  rep.variant.skills = {"block-size-128", "block-reduce-atomic"};
  rep.variant.transforms = {"block-size", "block-reduce-atomic"};
  rep.variant.geometry = chain_geometry;
  rep.variant.source = proj.write("gated/sum.cu", second.overlay.at(file));
  rep.outcome = Outcome::Passed;
  rep.speedup = 3.0;
  const std::map<std::string, const VariantReport*> best{{"sum", &rep}};
  SelectedFiles sel = buildSelectedSources(p, best, plans, skills, manifest, (proj.root / "sel").string());
  CHECK_FALSE(status.saw("keeping the original"));
  REQUIRE(sel.selection.sources.size() == 1);
  CHECK(sel.texts.at(file) == second.overlay.at(file));
}
