#include "runner/device_diff.h"

#include <cstring>
#include <vector>

#include "device_diff_ptx.h"  // kDeviceDiffPtx, generated from device_diff.cu

namespace klineage::runner {

DeviceDiff::DeviceDiff(const CudaApi& cu)
    : cu_(cu), module_(cu, kDeviceDiffPtx, {"kl_diff32", "kl_diff64"}, "the comparison module") {}

DeviceDiff::~DeviceDiff() {
  if (count_ && cu_.cuMemFree) cu_.cuMemFree(count_);
}

bool DeviceDiff::load() {
  if (count_) return true;
  if (!module_.unavailable().empty() || !module_.load()) return false;  // tried once
  if (cu_.cuMemAlloc(&count_, sizeof(unsigned long long)) != CUDA_SUCCESS) {
    count_ = 0;
    return module_.fail("no memory for the comparison's count");
  }
  return true;
}

bool DeviceDiff::same(CUdeviceptr a, CUdeviceptr b, size_t bytes, ElemType type) {
  if (bytes == 0) return true;
  if (!load()) return false;
  const bool wide = type == ElemType::F64 || type == ElemType::I64 || type == ElemType::U64;
  const size_t word = wide ? 8 : 4;
  // Narrow types compare as 32-bit words (bits only); the words must be aligned in both ranges.
  if (a % word || b % word) return false;
  const int float_rule = type == ElemType::F32 || type == ElemType::F64 ? 1 : 0;
  unsigned long long n = bytes / word;
  const size_t tail = bytes % word;
  // A float type's elements are words: a tail means a size the host must look at.
  if (tail && float_rule) return false;
  if (n) {
    if (cu_.cuMemsetD8Async(count_, 0, sizeof(unsigned long long), nullptr) != CUDA_SUCCESS) return false;
    void* args[] = {&a, &b, &n, const_cast<int*>(&float_rule), &count_};
    const unsigned block = 256;
    const unsigned long long blocks = (n + block - 1) / block;
    const unsigned grid = static_cast<unsigned>(blocks < 4096 ? blocks : 4096);
    if (cu_.cuLaunchKernel(module_.fn(wide ? 1 : 0), grid, 1, 1, block, 1, 1, 0, nullptr, args, nullptr) != CUDA_SUCCESS)
      return false;
    unsigned long long count = 1;
    if (cu_.cuMemcpyDtoH(&count, count_, sizeof count) != CUDA_SUCCESS || count != 0) return false;
  }
  if (tail) {  // the last bytes of a byte-typed range, on the host
    unsigned char ta[8], tb[8];
    const CUdeviceptr at = static_cast<CUdeviceptr>(n * word);
    if (cu_.cuMemcpyDtoH(ta, a + at, tail) != CUDA_SUCCESS || cu_.cuMemcpyDtoH(tb, b + at, tail) != CUDA_SUCCESS)
      return false;
    if (std::memcmp(ta, tb, tail) != 0) return false;
  }
  return true;
}

}  // namespace klineage::runner
