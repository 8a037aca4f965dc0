// The runner's oracle (docs/runner-job.md, "The oracle") and the write-only outputs' pre-fill traps,
// on the fake driver (fake_cuda.h): kernels are C++ functions over host memory.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/compare.h"
#include "fake_cuda.h"
#include "runner/run_job.h"

using namespace klineage;
using fake::Launch;

namespace {

constexpr int kRows = 48, kCols = 4096;

fake::Kernel timed(float ms, std::function<CUresult(const Launch&)> body) {
  return [=](const Launch& l, float* t) {
    *t = ms;
    return body(l);
  };
}

// row_sum(int rows, int cols, const float* x, float* out): out[r] = sum of row r.
template <typename Acc>
CUresult sequentialRows(const Launch& l) {
  const int rows = l.arg<int>(0), cols = l.arg<int>(1);
  const float* x = l.ptr<float>(2);
  float* out = l.ptr<float>(3);
  for (int r = 0; r < rows; ++r) {
    Acc s = 0;
    for (int c = 0; c < cols; ++c) s += x[static_cast<size_t>(r) * cols + c];
    out[r] = static_cast<float>(s);
  }
  return CUDA_SUCCESS;
}

// warp-per-row: 32 strided partial sums, then a tree (what the GPU's shuffle reduction adds up).
CUresult warpRows(const Launch& l) {
  const int rows = l.arg<int>(0), cols = l.arg<int>(1);
  const float* x = l.ptr<float>(2);
  float* out = l.ptr<float>(3);
  for (int r = 0; r < rows; ++r) {
    float lane[32] = {};
    for (int c = 0; c < cols; ++c) lane[c % 32] += x[static_cast<size_t>(r) * cols + c];
    for (int off = 16; off > 0; off /= 2)
      for (int i = 0; i < off; ++i) lane[i] += lane[i + off];
    out[r] = lane[0];
  }
  return CUDA_SUCCESS;
}

// Every partial sum rounded to 11 significant bits (half precision's).
float toHalf(float v) {
  if (v == 0 || !std::isfinite(v)) return v;
  int e;
  const double m = std::frexp(v, &e);
  return static_cast<float>(std::ldexp(std::nearbyint(m * 2048) / 2048, e));
}
CUresult halfRows(const Launch& l) {
  const int rows = l.arg<int>(0), cols = l.arg<int>(1);
  const float* x = l.ptr<float>(2);
  float* out = l.ptr<float>(3);
  for (int r = 0; r < rows; ++r) {
    float s = 0;
    for (int c = 0; c < cols; ++c) s = toHalf(s + x[static_cast<size_t>(r) * cols + c]);
    out[r] = s;
  }
  return CUDA_SUCCESS;
}

RunnerJob rowSumJob(bool with_oracle) {
  RunnerJob job;
  job.original = {"orig.cubin", "row_sum", {kRows, 1, 1}, {1, 1, 1}, 0, std::vector<DeviceGlobal>{}};
  job.variant = {"var.cubin", "row_sum", {kRows, 1, 1}, {32, 1, 1}, 0, std::vector<DeviceGlobal>{}};
  ParamSpec pr{"rows", false, ElemType::I32, 4};
  pr.ivalue = kRows;
  ParamSpec pc{"cols", false, ElemType::I32, 4};
  pc.ivalue = kCols;
  ParamSpec px{"x", true, ElemType::F32, 8};
  px.elements = static_cast<unsigned long long>(kRows) * kCols;
  px.init = {InitSpec::Uniform, -1, 1};
  ParamSpec po{"out", true, ElemType::F32, 8};
  po.elements = kRows;
  po.init = {InitSpec::Poison};
  po.output = true;
  job.params = {pr, pc, px, po};
  job.profile.min_runs = 5;
  job.profile.min_ms = 0;
  job.profile.warmup = 1;
  if (with_oracle) job.oracle = OracleSpec{"oracle.cubin", "row_sum", {}};
  else job.oracle_none = "the promotion refused it";
  return job;
}

RunnerResult runRows(const RunnerJob& job, std::function<CUresult(const Launch&)> variant,
                     std::function<CUresult(const Launch&)> oracle = sequentialRows<double>) {
  fake::reset();
  fake::addModule("orig.cubin", {{{"row_sum", timed(1.0f, sequentialRows<float>)}}, {}});
  fake::addModule("oracle.cubin", {{{"row_sum", timed(1.0f, oracle)}}, {}});
  fake::addModule("var.cubin", {{{"row_sum", timed(0.1f, std::move(variant))}}, {}});
  return runner::runJob(fake::api(), fake::device(), job);
}

}  // namespace

TEST_CASE("runner oracle: a reassociated row sum passes against the oracle, with both errors", "[runner][oracle]") {
  RunnerResult r = runRows(rowSumJob(true), warpRows);
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  CHECK(r.oracle == "promoted");
  REQUIRE(r.compares.size() == 1);
  REQUIRE(r.compares[0].error_original);
  REQUIRE(r.compares[0].error_variant);
  CHECK(r.compares[0].error_original->max_rel > 0);
  CHECK(r.compares[0].error_variant->max_rel < r.compares[0].error_original->max_rel);
  CHECK(r.timed_runs_checked >= 1);
}

TEST_CASE("runner oracle: without the oracle the tolerance rejects the same correct variant", "[runner][oracle]") {
  // A tolerance of about an ulp (the default 1e-5 passes these 48 sums on some input sets): the
  // reassociated sums differ beyond it on the fixed seed 1 already.
  RunnerJob job = rowSumJob(false);
  job.tolerance = {2e-7, 0};
  RunnerResult r = runRows(job, warpRows);
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::StartsWith("seed 1: "));
  CHECK(r.oracle == "none: the promotion refused it");
  CHECK_FALSE(r.compares.empty());
  CHECK_FALSE(r.compares[0].error_variant);
}

TEST_CASE("runner oracle: half-precision sums are wrong-result, named against the oracle", "[runner][oracle]") {
  RunnerResult r = runRows(rowSumJob(true), halfRows);
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::Contains("less accurate than the original") &&
                           Catch::Contains("error against the oracle") && Catch::Contains("the original gives"));
}

TEST_CASE("runner oracle: an oracle module without the function falls back to the tolerance", "[runner][oracle]") {
  RunnerJob job = rowSumJob(true);
  job.oracle->function = "no_such_kernel";
  RunnerResult r = runRows(job, sequentialRows<float>);  // the original's own code: passes any rule
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  CHECK_THAT(r.oracle, Catch::StartsWith("none: the oracle did not load") && Catch::Contains("no_such_kernel"));
}

TEST_CASE("runner oracle: an oracle that writes outside its buffers is turned off, not the variant's fault",
          "[runner][oracle]") {
  RunnerResult r = runRows(rowSumJob(true), sequentialRows<float>, [](const Launch& l) {
    sequentialRows<double>(l);
    l.ptr<float>(3)[kRows] = 0;  // out[rows]: into the guard
    return CUDA_SUCCESS;
  });
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  CHECK_THAT(r.oracle, Catch::Contains("wrote outside its buffers"));
}

TEST_CASE("runner pre-fill: a variant that writes only where it finds the poison pattern is wrong-result",
          "[runner][prefill]") {
  // It writes everything when outputs start as 0xFF..FF and keeps what it finds otherwise: a
  // program that reuses the output buffer would read stale data.
  std::vector<float> seen;
  auto recognizer = [&seen](const Launch& l) {
    const int rows = l.arg<int>(0);
    float* out = l.ptr<float>(3);
    seen.assign(out, out + rows);
    sequentialRows<float>(l);
    for (int r = 0; r < rows; ++r)
      if (!isPoison(&seen[r], sizeof(float))) out[r] = seen[r];
    return CUDA_SUCCESS;
  };
  RunnerJob job = rowSumJob(false);
  job.oracle_none.clear();
  job.tolerance = {0, 0};
  RunnerResult r = runRows(job, recognizer);
  INFO(r.reason);
  CHECK(r.outcome == Outcome::WrongResult);
  // Seed 1 gets the poison pattern (it passes there), seed 2 random values (caught there).
  CHECK_THAT(r.reason, Catch::StartsWith("seed 2: out["));
  REQUIRE(r.seeds_used.size() == 2);
}

TEST_CASE("runner pre-fill: the third input set's outputs start as the second's results", "[runner][prefill]") {
  // A variant that leaves one element alone when it holds a plausible value: passes on the poison
  // and random pre-fills only when they are never plausible; the stale pre-fill is a correct answer
  // of another input set, so it fails at the third input set at the latest.
  auto lazy = [](const Launch& l) {
    const int rows = l.arg<int>(0);
    float* out = l.ptr<float>(3);
    const float kept = out[5];
    sequentialRows<float>(l);
    if (std::isfinite(kept) && std::fabs(kept) < 1000) out[5] = kept;  // "already computed"
    return CUDA_SUCCESS;
  };
  RunnerJob job = rowSumJob(false);
  job.oracle_none.clear();
  job.tolerance = {0, 0};
  RunnerResult r = runRows(job, lazy);
  INFO(r.reason);
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::Contains("out[5]"));
  REQUIRE(r.seeds_used.size() == 3);  // the random input set, the third, whose outputs start stale
  CHECK_THAT(r.reason, Catch::StartsWith("seed " + std::to_string(r.seeds_used[2]) + ": "));
}

TEST_CASE("runner pre-fill: elements neither kernel writes compare equal under every pre-fill", "[runner][prefill]") {
  // Both leave out[0] unwritten: whatever the pre-fill put there is the same on both sides.
  auto skipFirst = [](const Launch& l) {
    const int rows = l.arg<int>(0);
    float* out = l.ptr<float>(3);
    const float keep = out[0];
    sequentialRows<float>(l);
    (void)rows;
    out[0] = keep;
    return CUDA_SUCCESS;
  };
  fake::reset();
  fake::addModule("orig.cubin", {{{"row_sum", timed(1.0f, skipFirst)}}, {}});
  fake::addModule("var.cubin", {{{"row_sum", timed(0.5f, skipFirst)}}, {}});
  RunnerJob job = rowSumJob(false);
  job.oracle_none.clear();
  job.tolerance = {0, 0};
  job.random_seeds = 2;  // four input sets: poison, random values, stale, poison
  RunnerResult r = runner::runJob(fake::api(), fake::device(), job);
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  CHECK(r.seeds_used.size() == 4);
}

TEST_CASE("runner oracle: a broken oracle does not loosen the gate: the tolerance decides", "[runner][oracle]") {
  auto scaled = [](float f) {
    return [f](const Launch& l) {
      sequentialRows<double>(l);
      float* out = l.ptr<float>(3);
      for (int r = 0; r < l.arg<int>(0); ++r) out[r] *= f;
      return CUDA_SUCCESS;
    };
  };
  // The oracle is 1% off; a variant 1.5% off would be within 2x the original's error against it.
  RunnerResult r = runRows(rowSumJob(true), scaled(1.015f), scaled(1.01f));
  CHECK(r.outcome == Outcome::WrongResult);
  CHECK_THAT(r.reason, Catch::Contains("not trusted") && Catch::Contains("expected"));
}

TEST_CASE("runner oracle: the oracle launches with twice the original's dynamic shared memory", "[runner][oracle]") {
  // promote-precision turns a kernel's `extern __shared__ float` array into doubles: the oracle
  // needs twice the bytes; the original and the variant keep theirs.
  RunnerJob job = rowSumJob(true);
  job.original.shmem = 4096;
  job.variant.shmem = 1024;
  unsigned original_shmem = 0, oracle_shmem = 0, variant_shmem = 0;
  fake::reset();
  fake::addModule("orig.cubin", {{{"row_sum", timed(1.0f, [&](const Launch& l) {
                                      original_shmem = l.shmem;
                                      return sequentialRows<float>(l);
                                    })}},
                                  {}});
  fake::addModule("oracle.cubin", {{{"row_sum", timed(1.0f, [&](const Launch& l) {
                                        oracle_shmem = l.shmem;
                                        return sequentialRows<double>(l);
                                      })}},
                                    {}});
  fake::addModule("var.cubin", {{{"row_sum", timed(0.1f, [&](const Launch& l) {
                                     variant_shmem = l.shmem;
                                     return warpRows(l);
                                   })}},
                                 {}});
  RunnerResult r = runner::runJob(fake::api(), fake::device(), job);
  INFO(r.reason);
  CHECK(r.outcome == Outcome::Passed);
  CHECK(r.oracle == "promoted");
  CHECK(original_shmem == 4096);
  CHECK(oracle_shmem == 8192);
  CHECK(variant_shmem == 1024);
}
