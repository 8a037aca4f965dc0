// The runner's checks on a fake driver (fake_cuda.h): kernels are C++ functions over host memory,
// so each way a wrong or hostile variant could pass is tried without a GPU.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "core/fill.h"
#include "core/fs.h"
#include "fake_cuda.h"
#include "runner/device_fill.h"
#include "runner/job_check.h"
#include "runner/run_job.h"
#include "support/temp_dir.h"

using namespace klineage;
using fake::Launch;

namespace {

constexpr int kN = 1000;  // not a multiple of 4, 8 or 32

// saxpy(int n, float a, const float* x, float* y), one thread per element.
CUresult saxpyBody(const Launch& l, long long i_end_adjust = 0) {
  const int n = l.arg<int>(0);
  const float a = l.arg<float>(1);
  const float* x = l.ptr<float>(2);
  float* y = l.ptr<float>(3);
  for (long long i = 0; i < l.threads() && i < n + i_end_adjust; ++i) y[i] = a * x[i] + y[i];
  return CUDA_SUCCESS;
}

fake::Kernel timed(float ms, std::function<CUresult(const Launch&)> body) {
  return [=](const Launch& l, float* t) {
    *t = ms;
    return body(l);
  };
}

RunnerJob saxpyJob(int n = kN) {
  RunnerJob job;
  job.original = {"orig.cubin", "saxpy", {(n + 255) / 256, 1, 1}, {256, 1, 1}, 0, std::vector<DeviceGlobal>{}};
  job.variant = {"var.cubin", "saxpy", {(n + 255) / 256, 1, 1}, {256, 1, 1}, 0, std::vector<DeviceGlobal>{}};
  ParamSpec pn{"n", false, ElemType::I32, 4};
  pn.ivalue = n;
  ParamSpec pa{"a", false, ElemType::F32, 4};
  pa.fvalue = 2;
  ParamSpec px{"x", true, ElemType::F32, 8};
  px.elements = n;
  px.init = {InitSpec::Uniform, -1, 1};
  ParamSpec py = px;
  py.name = "y";
  py.output = true;
  job.params = {pn, pa, px, py};
  job.profile.min_runs = 20;
  job.profile.min_ms = 0;
  job.profile.warmup = 1;
  return job;
}

RunnerResult runWith(const RunnerJob& job, fake::Kernel original, fake::Kernel variant,
                     std::map<std::string, std::vector<unsigned char>> variant_globals = {}) {
  fake::reset();
  fake::addModule("orig.cubin", {{{"saxpy", std::move(original)}}, {}});
  fake::addModule("var.cubin", {{{"saxpy", std::move(variant)}}, std::move(variant_globals)});
  return runner::runJob(fake::api(), fake::device(), job);
}

fake::Kernel original() { return timed(1.0f, [](const Launch& l) { return saxpyBody(l); }); }

}  // namespace

TEST_CASE("runner: a correct, faster variant passes after three input sets and checked timed runs", "[runner]") {
  RunnerResult r = runWith(saxpyJob(), original(), timed(0.5f, [](const Launch& l) { return saxpyBody(l); }));
  INFO(r.reason);
  CHECK(r.status == RunStatus::Ok);
  CHECK(r.outcome == Outcome::Passed);
  REQUIRE(r.seeds_used.size() == 3);  // seeds 1, 2 and one drawn at random
  CHECK(r.seeds_used[0] == 1);
  CHECK(r.seeds_used[1] == 2);
  CHECK(r.timed_runs_checked >= 1);
  CHECK(r.speedup == Approx(2.0));
}

TEST_CASE("runner: the random input set differs from run to run", "[runner]") {
  auto fast = timed(0.5f, [](const Launch& l) { return saxpyBody(l); });
  RunnerResult a = runWith(saxpyJob(), original(), fast), b = runWith(saxpyJob(), original(), fast);
  REQUIRE(a.seeds_used.size() == 3);
  REQUIRE(b.seeds_used.size() == 3);
  CHECK(a.seeds_used[2] != b.seeds_used[2]);
}

TEST_CASE("runner: a write past the end of a buffer is runtime-failed, naming the element", "[runner]") {
  RunnerResult r = runWith(saxpyJob(), original(), timed(0.5f, [](const Launch& l) {
                             saxpyBody(l);
                             l.ptr<float>(3)[l.arg<int>(0)] = 0;  // y[n]
                             return CUDA_SUCCESS;
                           }));
  CHECK(r.outcome == Outcome::RuntimeFailed);
  CHECK_THAT(r.reason, Catch::Contains("wrote outside y: y[1000] (byte 0 past the end)"));
}

TEST_CASE("runner: a write before the start of a buffer is runtime-failed", "[runner]") {
  RunnerResult r = runWith(saxpyJob(), original(), timed(0.5f, [](const Launch& l) {
                             saxpyBody(l);
                             l.ptr<float>(3)[-2] = 1;  // y[-2]
                             return CUDA_SUCCESS;
                           }));
  CHECK(r.outcome == Outcome::RuntimeFailed);
  CHECK_THAT(r.reason, Catch::Contains("wrote outside y: y[-2] (8 bytes before the start)"));
}

TEST_CASE("runner: a read past the end reads NaN from the guard, so it reaches the output", "[runner]") {
  RunnerResult r = runWith(saxpyJob(), original(), timed(0.5f, [](const Launch& l) {
                             const int n = l.arg<int>(0);
                             const float* x = l.ptr<float>(2);
                             float* y = l.ptr<float>(3);
                             for (int i = 0; i < n; ++i) y[i] = 2 * x[i] + y[i] + 0.0f * x[i + 1];
                             return CUDA_SUCCESS;
                           }));
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::Contains("y[999]"));
}

TEST_CASE("runner: a variant that writes an input is wrong-result, unless the original writes it too", "[runner]") {
  auto clobber = [](const Launch& l) {
    saxpyBody(l);
    l.ptr<float>(2)[7] = 0;  // x[7]
    return CUDA_SUCCESS;
  };
  RunnerResult r = runWith(saxpyJob(), original(), timed(0.5f, clobber));
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::Contains("the variant wrote to input x") && Catch::Contains("x[7]"));

  // The original updates x as well: x is then compared like an output, and the same write passes.
  RunnerResult both = runWith(saxpyJob(), timed(1.0f, clobber), timed(0.5f, clobber));
  INFO(both.reason);
  CHECK(both.outcome == Outcome::Passed);
}

TEST_CASE("runner: __device__ state left changed by a run is wrong-result", "[runner]") {
  RunnerJob job = saxpyJob();
  job.variant.globals = std::vector<DeviceGlobal>{{"calls", 4}};
  RunnerResult r = runWith(job, original(),
                           timed(0.5f,
                                 [](const Launch& l) {
                                   int* calls = static_cast<int*>(l.globals.at("calls"));
                                   ++*calls;
                                   return saxpyBody(l);
                                 }),
                           {{"calls", std::vector<unsigned char>(4, 0)}});
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::Contains("keeps state between launches") && Catch::Contains("'calls'"));

  // A variable the variant resets before it returns is fine (e.g. a last-block counter).
  RunnerResult ok = runWith(job, original(),
                            timed(0.5f,
                                  [](const Launch& l) {
                                    int* calls = static_cast<int*>(l.globals.at("calls"));
                                    ++*calls;
                                    saxpyBody(l);
                                    *calls = 0;
                                    return CUDA_SUCCESS;
                                  }),
                            {{"calls", std::vector<unsigned char>(4, 0)}});
  INFO(ok.reason);
  CHECK(ok.outcome == Outcome::Passed);
}

TEST_CASE("runner: right on the checked runs, then fast and wrong: the timed runs are checked too", "[runner]") {
  // Its state lives where the runner cannot restore it (here: the host; on a GPU, say, the
  // device heap): it computes for its first 4 launches, then returns at once.
  auto calls = std::make_shared<int>(0);
  RunnerResult r = runWith(saxpyJob(), original(), [calls](const Launch& l, float* ms) {
    if ((*calls)++ < 4) {
      *ms = 1.0f;
      return saxpyBody(l);
    }
    *ms = 0.01f;
    return CUDA_SUCCESS;
  });
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::Contains("timed run"));
  CHECK(r.timed_runs_checked >= 1);
}

TEST_CASE("runner: a variant that recognizes the fixed seeds' data is caught by the random input set", "[runner]") {
  // x[0] as the documented generator fills it for seeds 1 and 2 (x is parameter 2).
  float known[2];
  for (int s = 0; s < 2; ++s) {
    std::vector<float> x(kN);
    fillBuffer(x.data(), ElemType::F32, kN, {InitSpec::Uniform, -1, 1}, s + 1, 2);
    known[s] = x[0];
  }
  RunnerResult r = runWith(saxpyJob(), original(), timed(0.1f, [known](const Launch& l) {
                             const float x0 = l.ptr<float>(2)[0];
                             if (x0 == known[0] || x0 == known[1]) return saxpyBody(l);
                             return CUDA_SUCCESS;  // "fast": does nothing
                           }));
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::StartsWith("seed " + std::to_string(r.seeds_used.at(2))));
}

TEST_CASE("runner: reusing the output the original left behind does not work: outputs are re-poisoned", "[runner]") {
  RunnerResult r = runWith(saxpyJob(), original(), timed(0.01f, [](const Launch&) { return CUDA_SUCCESS; }));
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::Contains("seed 1: y[0]"));
}

TEST_CASE("runner: probe shapes catch a variant that is right only for n a multiple of 4", "[runner]") {
  RunnerJob job = saxpyJob(1024);
  RunnerJob small = saxpyJob(37);
  ProbeSpec probe{"n = 37", small.params, {small.original.grid, small.original.block, 0},
                  {small.variant.grid, small.variant.block, 0}};
  job.probes = {probe};
  auto no_tail = timed(0.5f, [](const Launch& l) { return saxpyBody(l, -(l.arg<int>(0) % 4)); });
  RunnerResult r = runWith(job, original(), no_tail);
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::StartsWith("probe n = 37") && Catch::Contains("y[36]"));
  CHECK(r.probes_checked == 0);

  RunnerResult ok = runWith(job, original(), timed(0.5f, [](const Launch& l) { return saxpyBody(l); }));
  INFO(ok.reason);
  CHECK(ok.outcome == Outcome::Passed);
  CHECK(ok.probes_checked == 1);
  CHECK_THAT(ok.reason, Catch::Contains("1 probe shape"));
}

TEST_CASE("runner: the first mismatches are named, not only the first", "[runner]") {
  RunnerResult r = runWith(saxpyJob(), original(), timed(0.5f, [](const Launch& l) {
                             saxpyBody(l);
                             for (int i : {3, 5, 8}) l.ptr<float>(3)[i] += 1;
                             return CUDA_SUCCESS;
                           }));
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::Contains("y[3]") && Catch::Contains("also y[5]") && Catch::Contains("y[8]") &&
                           Catch::Contains("3 of 1000 elements differ"));
  REQUIRE(r.compares.size() == 1);
  CHECK(r.compares[0].samples.size() == 3);
}

TEST_CASE("runner: an invalid launch and a fault are runtime-failed", "[runner]") {
  RunnerJob job = saxpyJob();
  job.variant.block = {2048, 1, 1};
  RunnerResult r = runWith(job, original(), timed(0.5f, [](const Launch& l) { return saxpyBody(l); }));
  CHECK(r.outcome == Outcome::RuntimeFailed);
  CHECK_THAT(r.reason, Catch::Contains("launching the variant kernel saxpy") && Catch::Contains("block [2048,1,1]"));

  RunnerResult fault = runWith(saxpyJob(), original(), timed(0.5f, [](const Launch&) { return CUDA_ERROR_ILLEGAL_ADDRESS; }));
  CHECK(fault.outcome == Outcome::RuntimeFailed);
  CHECK_THAT(fault.reason, Catch::Contains("CUDA_ERROR_ILLEGAL_ADDRESS"));
}

TEST_CASE("runner: without guards (for compute-sanitizer) buffers are exactly their size", "[runner]") {
  RunnerJob job = saxpyJob();
  job.guard_bytes = 0;
  job.profile.enabled = false;
  RunnerResult r = runWith(job, original(), timed(0.5f, [](const Launch& l) { return saxpyBody(l); }));
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
}

TEST_CASE("runner: probes free their buffers", "[runner]") {
  RunnerJob job = saxpyJob(256);
  RunnerJob big = saxpyJob(100000);
  job.probes = {{"n = 100000", big.params, {big.original.grid, big.original.block, 0}, {big.variant.grid, big.variant.block, 0}}};
  job.profile.enabled = false;
  RunnerResult r = runWith(job, original(), timed(0.5f, [](const Launch& l) { return saxpyBody(l); }));
  CHECK(r.outcome == Outcome::Passed);
  CHECK(fake::liveBytes() < 100000 * 4);  // the probe's 2 x 400 kB buffers are gone
}

TEST_CASE("runner: a job gives back every allocation it made, however it ends", "[runner]") {
  // A serving runner (--serve) runs the next job in the same context and stops serving when the
  // device's free memory did not come back.
  RunnerResult timed_pass = runWith(saxpyJob(), original(), timed(0.5f, [](const Launch& l) { return saxpyBody(l); }));
  CHECK(timed_pass.outcome == Outcome::Passed);  // the L2 flush buffer and the timing events too
  CHECK(fake::liveBytes() == 0);
  RunnerResult wrong = runWith(saxpyJob(), original(), timed(0.5f, [](const Launch& l) {
    const CUresult rc = saxpyBody(l);
    l.ptr<float>(3)[0] += 1.0f;
    return rc;
  }));
  CHECK(wrong.outcome == Outcome::WrongResult);
  CHECK(fake::liveBytes() == 0);
  RunnerResult fault = runWith(saxpyJob(), original(), timed(0.5f, [](const Launch&) { return CUDA_ERROR_ILLEGAL_ADDRESS; }));
  CHECK(fault.outcome == Outcome::RuntimeFailed);
  CHECK(fake::liveBytes() == 0);
}

TEST_CASE("runner: buffers larger than one chunk are filled and compared in parallel like one pass", "[runner]") {
  const int n = 3 * (1 << 20) + 77;  // four chunks, the last one partial
  RunnerJob job = saxpyJob(n);
  job.profile.enabled = false;
  const std::vector<int> bad = {5, (1 << 20) + 3, 2 * (1 << 20), n - 1};
  RunnerResult r = runWith(job, original(), timed(0.5f, [bad](const Launch& l) {
                             saxpyBody(l);
                             for (int i : bad) l.ptr<float>(3)[i] += 1;
                             return CUDA_SUCCESS;
                           }));
  CHECK(r.outcome == Outcome::WrongResult);
  REQUIRE(r.compares.size() == 1);
  const BufferCompare& c = r.compares[0];
  CHECK(c.mismatches == bad.size());
  REQUIRE(c.first_mismatch);
  CHECK(*c.first_mismatch == 5);
  REQUIRE(c.samples.size() == bad.size());
  for (size_t i = 0; i < bad.size(); ++i) CHECK(c.samples[i].index == static_cast<unsigned long long>(bad[i]));
  CHECK_THAT(r.reason, Catch::Contains("y[5]") && Catch::Contains("4 of 3145805 elements differ"));

  RunnerResult ok = runWith(job, original(), timed(0.5f, [](const Launch& l) { return saxpyBody(l); }));
  CHECK(ok.outcome == Outcome::Passed);
}

TEST_CASE("runner: timing stops once the slower kernel has max_ms of summed time", "[runner]") {
  // A 30 ms original against a 0.05 ms variant: min_ms of the variant would take 2000 runs of
  // both (a minute of the original); max_ms 1000 stops at the 34th run.
  RunnerJob job = saxpyJob();
  job.profile.min_runs = 20;
  job.profile.min_ms = 100;
  job.profile.max_ms = 1000;
  RunnerResult r = runWith(job, timed(30.0f, [](const Launch& l) { return saxpyBody(l); }),
                           timed(0.05f, [](const Launch& l) { return saxpyBody(l); }));
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  REQUIRE(r.original_time);
  CHECK(r.original_time->runs == 34);  // 34 * 30 ms >= 1000 ms
  CHECK(r.speedup == Approx(600.0));
  // Without the cap the loop would run until the variant's summed time reached min_ms.
  job.profile.max_ms = 1e9;
  r = runWith(job, timed(30.0f, [](const Launch& l) { return saxpyBody(l); }),
              timed(0.05f, [](const Launch& l) { return saxpyBody(l); }));
  REQUIRE(r.original_time);
  CHECK(r.original_time->runs == 2000);
}

TEST_CASE("runner: offset_elements passes a pointer that many elements into its allocation (a misaligned one)", "[runner]") {
  // One f32 element is 4 bytes: the pointer is 4 bytes past a 256-byte boundary, so not 16-byte
  // aligned (the precondition probe `klineage mine --probe` runs for aligned16, docs/lineage.md).
  RunnerJob job = saxpyJob();
  job.params[2].offset_elements = 1;
  job.params[3].offset_elements = 1;
  job.profile.enabled = false;
  std::vector<unsigned long long> seen;
  auto watch = [&seen](const Launch& l) {
    seen.push_back(l.arg<CUdeviceptr>(2) % 16);
    seen.push_back(l.arg<CUdeviceptr>(3) % 16);
    return saxpyBody(l);
  };
  RunnerResult r = runWith(job, timed(1.0f, watch), timed(0.5f, watch));
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  REQUIRE_FALSE(seen.empty());
  for (unsigned long long m : seen) CHECK(m == 4);
  // a variant that assumes 16-byte alignment (reads from the aligned address below) is caught
  RunnerResult wrong = runWith(job, original(), timed(0.5f, [](const Launch& l) {
                                 const int n = l.arg<int>(0);
                                 const float a = l.arg<float>(1);
                                 const float* x = reinterpret_cast<const float*>(
                                     reinterpret_cast<uintptr_t>(l.ptr<float>(2)) & ~uintptr_t{15});
                                 float* y = l.ptr<float>(3);
                                 for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
                                 return CUDA_SUCCESS;
                               }));
  CHECK(wrong.outcome == Outcome::WrongResult);
}

namespace {

// y = a * x + y in two passes (y += x, then y += (a - 1) * x): the same as saxpy unless y and x
// overlap, like a variant that assumes no aliasing (__restrict__).
CUresult twoPassSaxpy(const Launch& l) {
  const int n = l.arg<int>(0);
  const float a = l.arg<float>(1);
  const float* x = l.ptr<float>(2);
  float* y = l.ptr<float>(3);
  for (int i = 0; i < n; ++i) y[i] += x[i];
  for (int i = 0; i < n; ++i) y[i] += (a - 1) * x[i];
  return CUDA_SUCCESS;
}

RunnerJob aliasedJob() {
  RunnerJob job = saxpyJob();
  job.params[3].alias_of = "x";  // y = x: in place
  job.params[3].init = {};
  job.profile.enabled = false;
  return job;
}

}  // namespace

TEST_CASE("runner: alias_of makes a buffer point into another's allocation, compared as an output", "[runner]") {
  RunnerJob job = aliasedJob();
  std::vector<bool> same;
  RunnerResult r = runWith(job, timed(1.0f,
                                      [&same](const Launch& l) {
                                        same.push_back(l.arg<CUdeviceptr>(2) == l.arg<CUdeviceptr>(3));
                                        return saxpyBody(l);
                                      }),
                           original());
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  REQUIRE_FALSE(same.empty());
  for (bool s : same) CHECK(s);
  REQUIRE(r.compares.size() == 1);  // x, which y writes through
  CHECK(r.compares[0].param == "x");

  // Without aliasing the two-pass variant is right; with y = x it is not.
  RunnerJob plain = saxpyJob();
  plain.profile.enabled = false;
  CHECK(runWith(plain, original(), timed(0.5f, twoPassSaxpy)).outcome == Outcome::Passed);
  RunnerResult aliased = runWith(job, original(), timed(0.5f, twoPassSaxpy));
  CHECK(aliased.outcome == Outcome::WrongResult);
  CHECK_THAT(aliased.reason, Catch::Contains("x[0]"));

  // y one element into x: overlapping, not equal
  job.params[3].offset_elements = 1;
  job.params[3].elements = kN - 1;
  std::vector<long long> diff;
  r = runWith(job, timed(1.0f,
                         [&diff](const Launch& l) {
                           diff.push_back(static_cast<long long>(l.arg<CUdeviceptr>(3) - l.arg<CUdeviceptr>(2)));
                           return CUDA_SUCCESS;
                         }),
              timed(1.0f, [](const Launch&) { return CUDA_SUCCESS; }));
  CHECK(r.outcome == Outcome::Passed);
  REQUIRE_FALSE(diff.empty());
  CHECK(diff[0] == 4);
}

TEST_CASE("runner: a malformed alias is a malformed job", "[runner]") {
  klineage::test::TempDir dir("alias-job");
  const std::string cubin = dir.write("k.cubin", "fake");
  auto check = [&](RunnerJob job) {
    job.original.cubin = job.variant.cubin = cubin;
    const std::string path = dir.write("job.json", nlohmann::json(job).dump());
    RunnerJob back;
    return runner::readJob(path, &back);
  };
  RunnerJob ok = aliasedJob();
  CHECK(check(ok).empty());
  RunnerJob read;
  const std::string path = dir.write("job2.json", [&] {
    RunnerJob j = ok;
    j.original.cubin = j.variant.cubin = cubin;
    return nlohmann::json(j).dump();
  }());
  REQUIRE(runner::readJob(path, &read).empty());
  CHECK(read.params[3].alias_of == "x");

  RunnerJob unknown = aliasedJob();
  unknown.params[3].alias_of = "z";
  CHECK_THAT(check(unknown), Catch::Contains("params[3] (y): alias_of \"z\" names no other buffer parameter"));
  RunnerJob too_long = aliasedJob();
  too_long.params[3].offset_elements = 1;
  CHECK_THAT(check(too_long), Catch::Contains("reach past the end of x's allocation"));
  RunnerJob other_type = aliasedJob();
  other_type.params[3].type = ElemType::I32;
  CHECK_THAT(check(other_type), Catch::Contains("the same element type"));
}

TEST_CASE("runner: timed runs whose buffers are exactly right are checked on the device, no copy to the host", "[runner]") {
  RunnerResult r = runWith(saxpyJob(), original(), timed(0.5f, [](const Launch& l) { return saxpyBody(l); }));
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  REQUIRE(r.timed_runs_checked >= 1);
  CHECK(r.timed_runs_checked_on_gpu == r.timed_runs_checked);

  // Without the comparison module (a PTX JIT failure) every check is the host's, as before.
  fake::reset();
  fake::setJitAvailable(false);
  fake::addModule("orig.cubin", {{{"saxpy", original()}}, {}});
  fake::addModule("var.cubin", {{{"saxpy", timed(0.5f, [](const Launch& l) { return saxpyBody(l); })}}, {}});
  RunnerResult host = runner::runJob(fake::api(), fake::device(), saxpyJob());
  CHECK(host.outcome == Outcome::Passed);
  CHECK(host.timed_runs_checked >= 1);
  CHECK(host.timed_runs_checked_on_gpu == 0);
}

TEST_CASE("runner: a timed run within tolerance but not bit-equal goes to the host comparison, which accepts it", "[runner]") {
  RunnerJob job = saxpyJob();
  job.tolerance = {1e-6, 1e-3};
  // A reordering of its arithmetic: the last bit of some outputs differs.
  RunnerResult r = runWith(job, original(), timed(0.5f, [](const Launch& l) {
                             saxpyBody(l);
                             float* y = l.ptr<float>(3);
                             for (int i = 0; i < l.arg<int>(0); i += 7) y[i] = std::nextafter(y[i], 10.0f);
                             return CUDA_SUCCESS;
                           }));
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  CHECK(r.timed_runs_checked >= 1);
  CHECK(r.timed_runs_checked_on_gpu == 0);
}

TEST_CASE("runner: the device check never accepts what the host rejects: a computed NaN, a written input", "[runner]") {
  // The variant writes NaN where the original does too: the same bits, but the host comparison
  // rejects computed NaNs, so the device check must hand it over (and the host reject it).
  auto nan_at_5 = [](const Launch& l) {
    saxpyBody(l);
    l.ptr<float>(3)[5] = std::nanf("");
    return CUDA_SUCCESS;
  };
  RunnerResult nan = runWith(saxpyJob(), timed(1.0f, nan_at_5), timed(0.5f, nan_at_5));
  CHECK(nan.outcome == Outcome::WrongResult);
  CHECK(nan.timed_runs_checked_on_gpu == 0);

  // Right on the input sets, then (timed runs) writes its input x: the device check sees x differ
  // from its initial contents and the host names it.
  auto calls = std::make_shared<int>(0);
  RunnerResult in = runWith(saxpyJob(), original(), [calls](const Launch& l, float* ms) {
    *ms = 0.5f;
    saxpyBody(l);
    if ((*calls)++ >= 6) l.ptr<float>(2)[3] += 1.0f;
    return CUDA_SUCCESS;
  });
  CHECK(in.outcome == Outcome::WrongResult);
  CHECK_THAT(in.reason, Catch::Contains("input x"));
}

namespace {

// Runs a job on a fresh fake driver, the comparison module loadable or not.
RunnerResult runJit(bool jit, const RunnerJob& job, fake::Kernel original, fake::Kernel variant) {
  fake::reset();
  fake::setJitAvailable(jit);
  fake::addModule("orig.cubin", {{{"saxpy", std::move(original)}}, {}});
  fake::addModule("var.cubin", {{{"saxpy", std::move(variant)}}, {}});
  return runner::runJob(fake::api(), fake::device(), job);
}

fake::Kernel exact() { return timed(0.5f, [](const Launch& l) { return saxpyBody(l); }); }

// y as saxpy leaves it, then `change` applied to it.
fake::Kernel changed(std::function<void(const Launch&, float* y)> change) {
  return timed(0.5f, [change](const Launch& l) {
    saxpyBody(l);
    change(l, l.ptr<float>(3));
    return CUDA_SUCCESS;
  });
}

constexpr size_t kBufferBytes = kN * sizeof(float);  // x and y: a download of either

}  // namespace

TEST_CASE("runner: input sets whose outputs are exactly right are checked on the device, no download", "[runner]") {
  RunnerJob job = saxpyJob();
  RunnerResult r = runJit(true, job, original(), exact());
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  CHECK(r.input_sets_checked_on_gpu == 3);
  CHECK(r.timed_runs_checked_on_gpu == r.timed_runs_checked);
  CHECK(fake::downloads(kBufferBytes) == 0);  // neither kernel's x or y came to the host
  REQUIRE(r.compares.size() == 1);            // as the host comparison reports equal outputs
  CHECK(r.compares[0].param == "y");
  CHECK(r.compares[0].ok);
  CHECK(r.compares[0].mismatches == 0);
  CHECK_FALSE(r.compares[0].first_mismatch);

  // The same job with the comparison on the host: the same verdict, and the downloads of before
  // (the original's y and the variant's x and y for each input set).
  RunnerResult host = runJit(false, job, original(), exact());
  CHECK(host.outcome == Outcome::Passed);
  CHECK(host.input_sets_checked_on_gpu == 0);
  CHECK(host.timed_runs_checked_on_gpu == 0);
  CHECK(fake::downloads(kBufferBytes) >= 3 * 4);
}

TEST_CASE("runner: one element different in an input set is rejected with the host's message", "[runner]") {
  auto one_off = changed([](const Launch&, float* y) { y[17] += 0.5f; });
  RunnerResult dev = runJit(true, saxpyJob(), original(), one_off);
  RunnerResult host = runJit(false, saxpyJob(), original(), one_off);
  CHECK(dev.outcome == Outcome::WrongResult);
  CHECK(dev.input_sets_checked_on_gpu == 0);
  CHECK_THAT(dev.reason, Catch::StartsWith("seed 1: y[17]: expected ") && Catch::Contains("1 of 1000 elements differ"));
  CHECK(dev.reason == host.reason);
  REQUIRE(dev.compares.size() == 1);
  REQUIRE(host.compares.size() == 1);
  CHECK(dev.compares[0].mismatches == 1);
  CHECK(dev.compares[0].first_mismatch == host.compares[0].first_mismatch);
  CHECK(dev.compares[0].expected == host.compares[0].expected);
  CHECK(dev.compares[0].actual == host.compares[0].actual);

  // A NaN where the original has a number, and a write to an input: the same messages as on the host.
  auto nan = changed([](const Launch&, float* y) { y[5] = std::nanf(""); });
  RunnerResult dn = runJit(true, saxpyJob(), original(), nan), hn = runJit(false, saxpyJob(), original(), nan);
  CHECK(dn.outcome == Outcome::WrongResult);
  CHECK_THAT(dn.reason, Catch::StartsWith("seed 1: y[5]: expected ") && Catch::Contains("got nan"));
  CHECK(dn.reason == hn.reason);
  auto writes_x = changed([](const Launch& l, float*) { l.ptr<float>(2)[7] = 0; });
  RunnerResult dx = runJit(true, saxpyJob(), original(), writes_x), hx = runJit(false, saxpyJob(), original(), writes_x);
  CHECK(dx.outcome == Outcome::WrongResult);
  CHECK_THAT(dx.reason, Catch::Contains("the variant wrote to input x") && Catch::Contains("x[7]"));
  CHECK(dx.reason == hx.reason);

  // Right on seeds 1 and 2, wrong on the random third: named by that seed.
  auto calls = std::make_shared<int>(0);
  RunnerResult third = runJit(true, saxpyJob(), original(), [calls](const Launch& l, float* ms) {
    *ms = 0.5f;
    saxpyBody(l);
    if ((*calls)++ == 2) l.ptr<float>(3)[999] = 0;
    return CUDA_SUCCESS;
  });
  CHECK(third.outcome == Outcome::WrongResult);
  CHECK(third.input_sets_checked_on_gpu == 2);
  CHECK_THAT(third.reason, Catch::StartsWith("seed " + std::to_string(third.seeds_used.at(2)) + ": y[999]"));
}

TEST_CASE("runner: an input set within tolerance but not bit-equal is accepted by the host comparison", "[runner]") {
  RunnerJob job = saxpyJob();
  job.tolerance = {1e-6, 1e-3};
  RunnerResult r = runJit(true, job, original(), changed([](const Launch& l, float* y) {
                            for (int i = 0; i < l.arg<int>(0); i += 7) y[i] = std::nextafter(y[i], 10.0f);
                          }));
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  CHECK(r.input_sets_checked_on_gpu == 0);
  CHECK(r.timed_runs_checked_on_gpu == 0);
  REQUIRE(r.compares.size() == 1);
  CHECK(r.compares[0].ok);
  CHECK(r.compares[0].max_abs_err > 0);  // the host's numbers
  CHECK(fake::downloads(kBufferBytes) > 0);
}

TEST_CASE("runner: without the comparison module the input sets and probes are checked on the host as before", "[runner]") {
  RunnerJob job = saxpyJob(1024);
  RunnerJob small = saxpyJob(37);
  job.probes = {{"n = 37", small.params, {small.original.grid, small.original.block, 0},
                 {small.variant.grid, small.variant.block, 0}}};
  RunnerResult r = runJit(false, job, original(), exact());
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  CHECK(r.probes_checked == 1);
  CHECK(r.input_sets_checked_on_gpu == 0);
  CHECK(r.probes_checked_on_gpu == 0);
  CHECK(fake::downloads(1024 * sizeof(float)) >= 3 * 3);  // per input set: the original's y, the variant's x and y
  CHECK(fake::downloads(37 * sizeof(float)) >= 3);

  // A wrong probe is named as before.
  auto no_tail = timed(0.5f, [](const Launch& l) { return saxpyBody(l, -(l.arg<int>(0) % 4)); });
  RunnerResult host = runJit(false, job, original(), no_tail), dev = runJit(true, job, original(), no_tail);
  CHECK(host.outcome == Outcome::WrongResult);
  CHECK_THAT(host.reason, Catch::StartsWith("probe n = 37") && Catch::Contains("y[36]"));
  CHECK(dev.outcome == Outcome::WrongResult);
  CHECK(dev.input_sets_checked_on_gpu == 3);  // n = 1024: no tail
  // the probe's random seed (and so the values) differ between the runs: the same element is named
  CHECK_THAT(dev.reason, Catch::StartsWith("probe n = 37") && Catch::Contains("): y[36]: expected ") &&
                             Catch::Contains("(1 of 37 elements differ"));
  REQUIRE(dev.compares.size() == 1);
  CHECK(dev.compares[0].first_mismatch == host.compares.at(0).first_mismatch);
}

TEST_CASE("runner: a probe shape is checked on the device", "[runner]") {
  RunnerJob job = saxpyJob(1024);
  RunnerJob small = saxpyJob(37);
  job.probes = {{"n = 37", small.params, {small.original.grid, small.original.block, 0},
                 {small.variant.grid, small.variant.block, 0}}};
  RunnerResult r = runJit(true, job, original(), exact());
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  CHECK(r.probes_checked == 1);
  CHECK(r.probes_checked_on_gpu == 1);
  CHECK(fake::downloads(37 * sizeof(float)) == 0);
  CHECK(fake::downloads(1024 * sizeof(float)) == 0);
}

TEST_CASE("runner: the original writing an input, aliases and offsets keep their rules on the device", "[runner]") {
  auto clobber = [](const Launch& l) {
    saxpyBody(l);
    l.ptr<float>(2)[7] = 0;  // x[7]
    return CUDA_SUCCESS;
  };
  // The original updates x: x is compared like an output from then on, on the device too.
  RunnerResult both = runJit(true, saxpyJob(), timed(1.0f, clobber), timed(0.5f, clobber));
  INFO(both.reason);
  CHECK(both.outcome == Outcome::Passed);
  CHECK(both.input_sets_checked_on_gpu == 3);
  CHECK(both.compares.size() == 2);  // x and y
  // ... and a variant that does not write it is wrong there.
  RunnerResult missing = runJit(true, saxpyJob(), timed(1.0f, clobber), exact());
  CHECK(missing.outcome == Outcome::WrongResult);
  CHECK_THAT(missing.reason, Catch::StartsWith("seed 1: x[7]"));

  // Offsets: the whole allocation is compared, the element before the pointer included.
  RunnerJob off = saxpyJob();
  off.params[2].offset_elements = 3;
  off.params[3].offset_elements = 3;
  off.profile.enabled = false;
  RunnerResult ok = runJit(true, off, original(), exact());
  CHECK(ok.outcome == Outcome::Passed);
  CHECK(ok.input_sets_checked_on_gpu == 3);
  RunnerResult before = runJit(true, off, original(), changed([](const Launch&, float* y) { y[-1] = 1; }));
  CHECK(before.outcome == Outcome::WrongResult);
  CHECK_THAT(before.reason, Catch::StartsWith("seed 1: y[-1]"));

  // An alias: y written through x's allocation, compared as x.
  RunnerResult aliased = runJit(true, aliasedJob(), original(), exact());
  CHECK(aliased.outcome == Outcome::Passed);
  CHECK(aliased.input_sets_checked_on_gpu == 3);
  RunnerResult two_pass = runJit(true, aliasedJob(), original(), timed(0.5f, twoPassSaxpy));
  CHECK(two_pass.outcome == Outcome::WrongResult);
  CHECK_THAT(two_pass.reason, Catch::StartsWith("seed 1: x[0]"));
}

TEST_CASE("runner: when a probe does not fit beside the kept outputs, they go to the host and the job goes on", "[runner]") {
  const int n = 10000;  // 40000 bytes a buffer, 40512 with its guards
  RunnerJob job = saxpyJob(n);
  job.guard_bytes = 256;
  job.probes = {{"same size", job.params, {job.original.grid, job.original.block, 0},
                 {job.variant.grid, job.variant.block, 0}}};
  fake::reset();
  fake::addModule("orig.cubin", {{{"saxpy", original()}}, {}});
  fake::addModule("var.cubin", {{{"saxpy", exact()}}, {}});
  // The job: x and y with guards (2 x 40512), their initial copies (2 x 40000), y's expected_dev
  // (40000) and the comparison's count (8): 201032. The probe's x, its copy and y then need 322056:
  // y does not fit. Without y's expected_dev (161032) they do (282056; y's copy and expected_dev
  // do not: that probe is checked on the host). Timing: y's expected_dev again and the flush buffer.
  fake::setMemoryLimit(300000);
  RunnerResult r = runner::runJob(fake::api(), fake::device(), job);
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  CHECK(r.input_sets_checked_on_gpu == 3);
  CHECK(r.probes_checked == 1);
  CHECK(r.probes_checked_on_gpu == 0);
  CHECK(r.timed_runs_checked >= 1);
  CHECK(r.timed_runs_checked_on_gpu == r.timed_runs_checked);  // uploaded again from the host copy
}

namespace {

std::string hexOf(const void* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<const unsigned char*>(p)[i];
    s += d[c >> 4];
    s += d[c & 15];
  }
  return s;
}

// A recorded saxpy launch (n, a, x -> allocation 0, y -> allocation 1) with its before and after
// blobs in `dir`, and the replay job for it.
std::pair<RunnerJob, LaunchRecord> saxpyReplay(const klineage::test::TempDir& dir) {
  std::vector<float> x(kN), y(kN), after(kN);
  for (int i = 0; i < kN; ++i) {
    x[i] = 0.25f * (i % 17) - 1;
    y[i] = 0.5f * (i % 5);
    after[i] = 2.0f * x[i] + y[i];
  }
  auto blob = [&](const std::string& name, const std::vector<float>& v) {
    dir.write(name, std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
  };
  blob("a0.before.bin", x);
  blob("a1.before.bin", y);
  blob("a1.after.bin", after);
  LaunchRecord rec;
  rec.kernel = rec.mangled = "saxpy";
  rec.grid = {(kN + 255) / 256, 1, 1};
  rec.block = {256, 1, 1};
  rec.dir = dir.path.string();
  const int n = kN;
  const float a = 2.0f;
  const unsigned long long ptr = 0;
  rec.params = {{0, 0, 4, hexOf(&n, 4), std::nullopt},
                {1, 4, 4, hexOf(&a, 4), std::nullopt},
                {2, 8, 8, hexOf(&ptr, 8), RecordedPointer{0, 0}},
                {3, 16, 8, hexOf(&ptr, 8), RecordedPointer{1, 0}}};
  const size_t bytes = kN * sizeof(float);
  rec.allocations = {{0, 0x1000, bytes, "a0.before.bin", "", crc32Of(x.data(), bytes), 0},
                     {1, 0x9000, bytes, "a1.before.bin", "a1.after.bin", crc32Of(y.data(), bytes),
                      crc32Of(after.data(), bytes)}};
  RunnerJob job = saxpyJob();
  ReplaySpec spec;
  spec.record_dir = rec.dir;
  spec.param_elem_types = {std::nullopt, std::nullopt, ElemType::F32, ElemType::F32};
  spec.param_names = {"n", "a", "x", "y"};
  job.replay = spec;
  return {job, rec};
}

}  // namespace

TEST_CASE("runner: replays still keep the original's outputs on the host for fidelity and the variant's check", "[runner]") {
  klineage::test::TempDir dir("replay");
  auto [job, rec] = saxpyReplay(dir);
  auto run = [&, &job = job, &rec = rec](fake::Kernel variant) {
    fake::reset();
    fake::addModule("orig.cubin", {{{"saxpy", original()}}, {}});
    fake::addModule("var.cubin", {{{"saxpy", std::move(variant)}}, {}});
    return runner::runJob(fake::api(), fake::device(), job, &rec);
  };
  RunnerResult ok = run(exact());
  INFO(ok.reason);
  CHECK(ok.outcome == Outcome::Passed);
  CHECK(ok.fidelity_ok == std::optional<bool>(true));
  CHECK_THAT(ok.reason, Catch::StartsWith("every allocation matches on the replayed launch"));
  CHECK(ok.input_sets_checked_on_gpu == 0);  // no input sets: the replayed launch is compared on the host
  CHECK(ok.timed_runs_checked >= 1);
  CHECK(ok.timed_runs_checked_on_gpu == ok.timed_runs_checked);  // expected uploaded for the timed runs

  RunnerResult wrong = run(changed([](const Launch&, float* y) { y[3] += 1; }));
  CHECK(wrong.outcome == Outcome::WrongResult);
  CHECK_THAT(wrong.reason, Catch::StartsWith("replayed launch: y[3]: expected "));
}

TEST_CASE("runner: a replay's timed-run mismatch is judged against the original's own spread before it is wrong-result",
          "[runner]") {
  // Float atomics: the original's first runs agree (its determinism check sees nothing), later runs
  // differ from the first now and then. A variant whose timed runs differ by about as much is
  // correct; one that differs far more is not; a deterministic original leaves the mismatch as it is.
  klineage::test::TempDir dir("spread");
  auto [job, rec] = saxpyReplay(dir);
  auto jittery = [](float every_third) {
    auto calls = std::make_shared<int>(0);
    return timed(1.0f, [calls, every_third](const Launch& l) {
      saxpyBody(l);
      const int c = (*calls)++;
      if (c >= 4 && c % 3 == 0) l.ptr<float>(3)[7] += every_third;  // a later run, now and then
      return CUDA_SUCCESS;
    });
  };
  auto offAfter = [](float by) {  // the variant's timed runs (after its first check) are off by `by`
    auto calls = std::make_shared<int>(0);
    return timed(0.5f, [calls, by](const Launch& l) {
      saxpyBody(l);
      if ((*calls)++ >= 2) l.ptr<float>(3)[7] += by;
      return CUDA_SUCCESS;
    });
  };
  auto run = [&, &job = job, &rec = rec](fake::Kernel original, fake::Kernel variant) {
    fake::reset();
    fake::addModule("orig.cubin", {{{"saxpy", std::move(original)}}, {}});
    fake::addModule("var.cubin", {{{"saxpy", std::move(variant)}}, {}});
    return runner::runJob(fake::api(), fake::device(), job, &rec);
  };
  RunnerResult within = run(jittery(0.004f), offAfter(0.003f));
  INFO(within.reason);
  CHECK(within.outcome == Outcome::Passed);
  CHECK(within.nondeterministic);
  CHECK(within.widened_atol >= 0.008 - 1e-6);
  CHECK_THAT(within.reason, Catch::Contains("after a timed run differed"));

  RunnerResult beyond = run(jittery(0.004f), offAfter(0.5f));
  INFO(beyond.reason);
  CHECK(beyond.outcome == Outcome::WrongResult);
  CHECK_THAT(beyond.reason, Catch::StartsWith("timed run "));
  CHECK(beyond.nondeterministic);  // measured, and still too far

  RunnerResult deterministic = run(original(), offAfter(0.003f));
  INFO(deterministic.reason);
  CHECK(deterministic.outcome == Outcome::WrongResult);
  CHECK_THAT(deterministic.reason, Catch::StartsWith("timed run "));
  CHECK_FALSE(deterministic.nondeterministic);
}

TEST_CASE("runner: a float output of a kernel with atomics off its capture by a reordered sum's difference is replayable, widened",
          "[runner]") {
  // Under CUPTI the blocks' float atomics can add in another order than every replay on an idle GPU,
  // which then agree with each other: a capture off by ~1e-5 relative is the original's own result.
  klineage::test::TempDir dir("capture-order");
  auto [job, rec] = saxpyReplay(dir);
  const auto run = [&, &job = job, &rec = rec](float rel_off, unsigned determinism_runs) {
    std::vector<float> after(kN);
    for (int i = 0; i < kN; ++i) after[i] = 2.0f * (0.25f * (i % 17) - 1) + 0.5f * (i % 5);
    after[7] *= 1 + rel_off;  // what the capture saw
    dir.write("a1.after.bin", std::string(reinterpret_cast<const char*>(after.data()), after.size() * sizeof(float)));
    rec.allocations[1].after_crc32 = crc32Of(after.data(), after.size() * sizeof(float));
    RunnerJob j = job;
    j.replay->check_fidelity = true;
    j.replay->determinism_runs = determinism_runs;
    fake::reset();
    fake::addModule("orig.cubin", {{{"saxpy", original()}}, {}});
    fake::addModule("var.cubin", {{{"saxpy", exact()}}, {}});
    return runner::runJob(fake::api(), fake::device(), j, &rec);
  };
  RunnerResult reordered = run(5e-5f, 5);  // 2.5 captured as 2.500125: beyond rtol 1e-5, within 1e-4
  INFO(reordered.reason);
  CHECK(reordered.fidelity_ok == std::optional<bool>(true));
  CHECK(reordered.nondeterministic);
  CHECK(reordered.widened_rtol >= 2 * 4.9e-5);
  CHECK(reordered.outcome == Outcome::Passed);
  CHECK_THAT(reordered.reason, Catch::Contains("added in another order under capture"));

  RunnerResult no_atomics = run(5e-5f, 1);  // a kernel without atomics has one order: not replayable
  INFO(no_atomics.reason);
  CHECK(no_atomics.fidelity_ok == std::optional<bool>(false));
  CHECK_THAT(no_atomics.reason, Catch::StartsWith("replaying the original does not reproduce"));

  RunnerResult far = run(1e-2f, 5);  // 1% off is not a reordered sum
  INFO(far.reason);
  CHECK(far.fidelity_ok == std::optional<bool>(false));
  CHECK_FALSE(far.nondeterministic);
}

TEST_CASE("runner: a replayed blob is checked against the record's CRC-32 as it is read, and only when used",
          "[runner]") {
  klineage::test::TempDir dir("replay-crc");
  auto [job, rec] = saxpyReplay(dir);
  auto run = [&, &job = job, &rec = rec]() {
    fake::reset();
    fake::addModule("orig.cubin", {{{"saxpy", original()}}, {}});
    fake::addModule("var.cubin", {{{"saxpy", exact()}}, {}});
    return runner::runJob(fake::api(), fake::device(), job, &rec);
  };
  REQUIRE(run().outcome == Outcome::Passed);
  // the after blob changed behind the record: the replay check says so, naming it
  std::string after = readFile(dir.path / "a1.after.bin");
  after[100] ^= 0x5a;
  dir.write("a1.after.bin", after);
  RunnerResult corrupt = run();
  CHECK(corrupt.status == RunStatus::Error);
  CHECK_THAT(corrupt.reason, Catch::Contains("a1.after.bin") && Catch::Contains("CRC-32 does not match"));
  // a variant's job does not compare with the capture (check_fidelity false): it never reads it
  job.replay->check_fidelity = false;
  CHECK(run().outcome == Outcome::Passed);
  // a serving runner keeps what it read for the next job on the record; a blob rewritten since
  // (another modification time) is read and checked again
  runner::keepReplayBlobs(1ull << 30);
  CHECK(run().outcome == Outcome::Passed);
  CHECK(run().outcome == Outcome::Passed);
  std::string before = readFile(dir.path / "a0.before.bin");
  before[0] ^= 0x5a;
  dir.write("a0.before.bin", before);
  std::filesystem::last_write_time(dir.path / "a0.before.bin",
                                   std::filesystem::file_time_type::clock::now() + std::chrono::seconds(5));
  RunnerResult changed = run();
  runner::keepReplayBlobs(0);
  CHECK(changed.status == RunStatus::Error);
  CHECK_THAT(changed.reason, Catch::Contains("a0.before.bin") && Catch::Contains("CRC-32 does not match"));
  // a before blob is always read, and checked (a runner of one job keeps nothing)
  before[0] ^= 0x5a;
  dir.write("a0.before.bin", before);
  REQUIRE(run().outcome == Outcome::Passed);
  before[0] ^= 0x5a;
  dir.write("a0.before.bin", before);
  RunnerResult bad_input = run();
  CHECK(bad_input.status == RunStatus::Error);
  CHECK_THAT(bad_input.reason, Catch::Contains("a0.before.bin") && Catch::Contains("CRC-32 does not match"));
}

TEST_CASE("runner: replay.misalign_bytes replays with every typed allocation 8 bytes past a 16-byte boundary",
          "[runner]") {
  klineage::test::TempDir dir("replay-misaligned");
  auto [job, rec] = saxpyReplay(dir);
  // What a vectorized variant with a wrong unaligned path does: right only on 16-byte aligned x.
  std::vector<unsigned long long> seen;
  auto alignedOnly = [&seen] {
    return changed([&seen](const Launch& l, float* y) {
      const auto x = l.arg<CUdeviceptr>(2);
      seen.push_back(x % 16);
      if (x % 16 != 0) y[0] = -y[0] - 1;
    });
  };
  auto run = [&, &job = job, &rec = rec](fake::Kernel variant) {
    fake::reset();
    fake::addModule("orig.cubin", {{{"saxpy", original()}}, {}});
    fake::addModule("var.cubin", {{{"saxpy", std::move(variant)}}, {}});
    return runner::runJob(fake::api(), fake::device(), job, &rec);
  };

  RunnerResult aligned = run(alignedOnly());
  INFO(aligned.reason);
  CHECK(aligned.outcome == Outcome::Passed);  // the blind spot: captured pointers are aligned
  REQUIRE_FALSE(seen.empty());
  CHECK(seen[0] == 0);

  job.replay->misalign_bytes = 8;
  job.profile.enabled = false;
  seen.clear();
  RunnerResult mis = run(alignedOnly());
  CHECK(mis.outcome == Outcome::WrongResult);
  CHECK_THAT(mis.reason, Catch::StartsWith("replayed launch, x (allocation 0), y (allocation 1) 8 bytes past a "
                                           "16-byte boundary: y[0]: expected "));
  REQUIRE_FALSE(seen.empty());
  CHECK(seen[0] == 8);

  // The same contents at the shifted pointers: the original reproduces the capture, and a correct
  // variant passes (the guards, now 8 bytes later, are intact).
  RunnerResult ok = run(exact());
  INFO(ok.reason);
  CHECK(ok.outcome == Outcome::Passed);
  CHECK(ok.fidelity_ok == std::optional<bool>(true));
  CHECK_THAT(ok.reason, Catch::StartsWith("every allocation matches on the replayed launch, x (allocation 0), y "
                                          "(allocation 1) 8 bytes past a 16-byte boundary"));

  // A write just before the shifted y is still caught by its guard.
  RunnerResult before = run(timed(0.5f, [](const Launch& l) {
    saxpyBody(l);
    l.ptr<float>(3)[-1] = 1;
    return CUDA_SUCCESS;
  }));
  CHECK(before.outcome == Outcome::RuntimeFailed);
  CHECK_THAT(before.reason, Catch::Contains("before the start"));

  // An allocation a pointer of unknown element type points into keeps its alignment.
  job.replay->param_elem_types[2] = std::nullopt;
  seen.clear();
  RunnerResult untyped = run(alignedOnly());
  CHECK(untyped.outcome == Outcome::Passed);
  REQUIRE_FALSE(seen.empty());
  CHECK(seen[0] == 0);
  CHECK_THAT(untyped.reason, Catch::Contains("replayed launch, y (allocation 1) 8 bytes past"));
}

TEST_CASE("runner job: replay.misalign_bytes round-trips and is 0 or 8", "[runner]") {
  klineage::test::TempDir dir("replay-misaligned-json");
  RunnerJob job = saxpyReplay(dir).first;
  job.replay->misalign_bytes = 8;
  nlohmann::json j;
  to_json(j, job);
  CHECK(j["replay"]["misalign_bytes"] == 8);
  RunnerJob back;
  from_json(j, back);
  REQUIRE(back.replay);
  CHECK(back.replay->misalign_bytes == 8);
  j["replay"]["misalign_bytes"] = 4;
  CHECK_THROWS_WITH(from_json(j, back), Catch::Contains("replay.misalign_bytes is 4, not 0 or 8"));
  j["replay"].erase("misalign_bytes");
  from_json(j, back);
  CHECK(back.replay->misalign_bytes == 0);
}

TEST_CASE("runner: the GPU fill writes the bytes fillBuffer writes, for every type and init kind", "[runner]") {
  fake::reset();
  unsigned cases = 0;
  // The fake's fill kernels follow runner/device_fill.cu from the launch arguments, so this checks
  // the arguments the runner derives (core/fill.h fillPlan); the GPU test runs the real kernels.
  CHECK(runner::checkDeviceFill(fake::api(), &cases, 3001) == "");
  CHECK(cases >= 300);
  CHECK(fake::fillLaunches() == cases);
}

TEST_CASE("runner: input sets are written on the GPU, and the kernels see what the host fill makes", "[runner]") {
  RunnerJob job = saxpyJob();
  job.random_seeds = 0;  // the same input sets both times
  job.params[3].init = {InitSpec::Iota, 0, 0};
  std::vector<std::vector<float>> seen[2];
  for (bool jit : {true, false}) {
    auto* into = &seen[jit ? 0 : 1];
    auto record = timed(1.0f, [into](const Launch& l) {
      const int n = l.arg<int>(0);
      std::vector<float> xy(l.ptr<float>(2), l.ptr<float>(2) + n);
      xy.insert(xy.end(), l.ptr<float>(3), l.ptr<float>(3) + n);
      into->push_back(std::move(xy));
      return saxpyBody(l);
    });
    RunnerResult r = runJit(jit, job, record, exact());
    INFO(r.reason);
    CHECK(r.outcome == Outcome::Passed);
    if (jit) CHECK(fake::fillLaunches() >= 2 * job.seeds.size());  // x and y of each input set
    else CHECK(fake::fillLaunches() == 0);
  }
  REQUIRE(seen[0].size() >= job.seeds.size());
  for (size_t s = 0; s < job.seeds.size(); ++s) {
    std::vector<float> want(2 * kN);
    fillBuffer(want.data(), ElemType::F32, kN, job.params[2].init, job.seeds[s], 2);
    fillBuffer(want.data() + kN, ElemType::F32, kN, job.params[3].init, job.seeds[s], 3);
    CHECK(seen[0][s] == want);
    CHECK(seen[1][s] == want);
  }
}

TEST_CASE("runner: with the GPU fill, a written input is named with the same values as with the host fill", "[runner]") {
  RunnerJob job = saxpyJob();
  job.random_seeds = 0;
  auto clobber = timed(0.5f, [](const Launch& l) {
    saxpyBody(l);
    l.ptr<float>(2)[7] = 0;  // x[7]
    return CUDA_SUCCESS;
  });
  RunnerResult gpu = runJit(true, job, original(), clobber);
  CHECK(fake::fillLaunches() > 0);
  RunnerResult host = runJit(false, job, original(), clobber);
  CHECK(gpu.outcome == Outcome::WrongResult);
  CHECK_THAT(gpu.reason, Catch::Contains("the variant wrote to input x") && Catch::Contains("x[7]: was "));
  CHECK(gpu.reason == host.reason);
}

TEST_CASE("runner: the GPU fill's PTX rounds like the host: no fused multiply-add, every kernel present", "[runner]") {
  const std::string ptx = runner::deviceFillPtx();
  for (const char* k : {"kl_fill_f32", "kl_fill_f64", "kl_fill_int", "kl_fill_pattern"})
    CHECK(ptx.find(std::string(".entry ") + k + "(") != std::string::npos);
  // An fma rounds once where the host's mul-then-add rounds twice: the bytes would differ (the
  // PTX is built with -fmad=false and fill_element.h uses the __d*_rn intrinsics).
  CHECK(ptx.find("fma.") == std::string::npos);
  CHECK(ptx.find("mul.rn.f64") != std::string::npos);
}
