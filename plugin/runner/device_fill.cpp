#include "runner/device_fill.h"

#include <cstring>
#include <vector>

#include "core/fill.h"
#include "device_fill_ptx.h"  // kDeviceFillPtx, generated from device_fill.cu

namespace klineage::runner {

namespace {
enum Kernel { kF32, kF64, kInt, kPattern };
}

DeviceFill::DeviceFill(const CudaApi& cu)
    : cu_(cu), module_(cu, kDeviceFillPtx, {"kl_fill_f32", "kl_fill_f64", "kl_fill_int", "kl_fill_pattern"},
                       "the fill module") {}

bool DeviceFill::fill(CUdeviceptr dst, ElemType type, unsigned long long n, const InitSpec& init, uint64_t seed,
                      unsigned param_index) {
  if (n == 0) return true;
  if (!module_.load()) return false;
  const FillPlan p = fillPlan(type, init, seed, param_index);
  int size = static_cast<int>(elemSize(type));
  if (dst % size) return false;  // cuMemAlloc's are 256-byte aligned; a shifted start goes to the host
  int mode = p.mode == FillPlan::UniformFloat || p.mode == FillPlan::UniformInt ? 0 : 1;
  unsigned long long key = p.key, lo = p.int_lo, span = p.int_span, pattern = p.pattern;
  double flo = p.lo, fhi = p.hi;
  CUfunction f;
  std::vector<void*> args;
  if (p.mode == FillPlan::Pattern) {
    f = module_.fn(kPattern);
    args = {&dst, &n, &size, &pattern};
  } else if (p.mode == FillPlan::UniformFloat || p.mode == FillPlan::IotaFloat) {
    f = module_.fn(type == ElemType::F64 ? kF64 : kF32);
    args = {&dst, &n, &mode, &key, &flo, &fhi};
  } else {
    f = module_.fn(kInt);
    args = {&dst, &n, &size, &mode, &key, &lo, &span};
  }
  const unsigned block = 256;
  const unsigned long long blocks = (n + block - 1) / block;
  const unsigned grid = static_cast<unsigned>(blocks < 8192 ? blocks : 8192);
  return cu_.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, nullptr, args.data(), nullptr) == CUDA_SUCCESS;
}

const char* deviceFillPtx() { return kDeviceFillPtx; }

std::string checkDeviceFill(const CudaApi& cu, unsigned* cases, unsigned long long n) {
  DeviceFill gpu(cu);
  const ElemType types[] = {ElemType::F32, ElemType::F64, ElemType::I8,  ElemType::U8,  ElemType::I16,
                            ElemType::U16, ElemType::I32, ElemType::U32, ElemType::I64, ElemType::U64};
  auto init = [](InitSpec::Kind k, double lo, double hi, double value) {
    InitSpec s;
    s.kind = k;
    s.lo = lo;
    s.hi = hi;
    s.value = value;
    return s;
  };
  // Ranges that are ordinary, lopsided, a single value, negative, and a type's whole width.
  const std::vector<InitSpec> inits = {
      init(InitSpec::Uniform, -1, 1, 0),      init(InitSpec::Uniform, 0.2, 0.8, 0), init(InitSpec::Uniform, 0, 1000, 0),
      init(InitSpec::Uniform, -3.5, -3.5, 0), init(InitSpec::Uniform, -1e18, 1e18, 0),
      init(InitSpec::Uniform, 0, 1.8e19, 0),  init(InitSpec::Constant, 0, 1, 3),   init(InitSpec::Constant, 0, 1, -0.1),
      init(InitSpec::Iota, 0, 1, 0),          init(InitSpec::Zeros, 0, 1, 0),       init(InitSpec::Poison, 0, 1, 0)};
  const uint64_t seeds[] = {0, 42, 0xFEDCBA9876543210ull};
  unsigned count = 0;
  CUdeviceptr d = 0;
  if (cu.cuMemAlloc(&d, n * 8) != CUDA_SUCCESS) return "no device memory for the check";
  std::vector<unsigned char> want(n * 8), got(n * 8);
  auto one = [&](ElemType t, const InitSpec& s, uint64_t seed, unsigned param) -> std::string {
    const size_t bytes = n * elemSize(t);
    fillBuffer(want.data(), t, n, s, seed, param);
    if (!gpu.fill(d, t, n, s, seed, param))
      return "the GPU fill is unavailable: " + (gpu.unavailable().empty() ? "its launch failed" : gpu.unavailable());
    if (cu.cuMemcpyDtoH(got.data(), d, bytes) != CUDA_SUCCESS) return "reading back the GPU fill failed";
    if (std::memcmp(want.data(), got.data(), bytes) == 0) return "";
    size_t at = 0;
    while (want[at] == got[at]) ++at;
    return std::string(elemTypeName(t)) + " init kind " + std::to_string(s.kind) + " [" + std::to_string(s.lo) + ", " +
           std::to_string(s.hi) + "] value " + std::to_string(s.value) + " seed " + std::to_string(seed) + " param " +
           std::to_string(param) + ": element " + std::to_string(at / elemSize(t)) + " differs";
  };
  auto all = [&]() -> std::string {
    for (ElemType t : types)
      for (const InitSpec& s : inits) {
        if (!checkInit(s, t).empty()) continue;  // a range this type cannot hold
        for (uint64_t seed : seeds)
          for (unsigned param : {0u, 3u}) {
            std::string bad = one(t, s, seed, param);
            if (!bad.empty()) return bad;
            ++count;
          }
      }
    return "";
  };
  const std::string bad = all();
  cu.cuMemFree(d);
  if (cases) *cases = count;
  return bad;
}

}  // namespace klineage::runner
