// Expert references for the frozen transfer suite (examples/transfer): for each transfer kernel, the
// time a well-known library (CUB, cuBLAS), a reference written here, or the memory floor takes for
// the same work at the sizes examples/transfer/src/check.cu uses. bench/transfer_expert.sh prints
// them next to the naive and the selected (optimized) kernel's times from `ninja optimize`.
//
// Timing: like the gate (docs/runner-job.md): the L2 is flushed (a 256 MiB memset) before every run,
// device events around the run alone, the median of 21 runs after 3 warm-ups. Inputs are random
// (never zeros). The memory floor of a kernel that must read R and write W bytes is (R + W) over the
// device-to-device copy bandwidth measured here the same way (a copy of S bytes moves 2 S).
// Hand-written references are checked against the CPU on a few rows or segments first.
//
// Output: one line per reference, `ref <kernel> <ms> <what>`, then `bandwidth <GB/s>`.
// usage: transfer_refs            (needs a CUDA device; exit 77 without one)
#include <cublas_v2.h>
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "timing.cuh"

#define CB(call)                                                                                       \
  do {                                                                                                 \
    cublasStatus_t s_ = (call);                                                                        \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, int(s_));       \
      std::exit(2);                                                                                    \
    }                                                                                                  \
  } while (0)

namespace {

template <typename T>
T* devRandom(size_t n, unsigned seed, double lo = -1.0, double hi = 1.0) {
  std::vector<T> h(n);
  std::mt19937_64 r(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  for (auto& x : h) x = T(u(r));
  T* d = nullptr;
  CK(cudaMalloc(&d, n * sizeof(T)));
  CK(cudaMemcpy(d, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

void report(const char* kernel, double ms, const std::string& what) { std::printf("ref %-26s %10.4f %s\n", kernel, ms, what.c_str()); }

// ---- hand-written references (warp per row, the row in registers; one block per scan segment) ----

constexpr int kCols = 1024;  // the transfer rows' C

__global__ void softmax_ref(const float* __restrict__ in, float* __restrict__ out, int rows) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float4* x = reinterpret_cast<const float4*>(in + size_t(row) * kCols);
  float4 v[kCols / 128];
  float m = -INFINITY;
#pragma unroll
  for (int j = 0; j < kCols / 128; ++j) {
    v[j] = x[j * 32 + lane];
    m = fmaxf(m, fmaxf(fmaxf(v[j].x, v[j].y), fmaxf(v[j].z, v[j].w)));
  }
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kCols / 128; ++j) {
    v[j].x = expf(v[j].x - m), v[j].y = expf(v[j].y - m), v[j].z = expf(v[j].z - m), v[j].w = expf(v[j].w - m);
    s += v[j].x + v[j].y + v[j].z + v[j].w;
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  const float r = 1.0f / s;
  float4* y = reinterpret_cast<float4*>(out + size_t(row) * kCols);
#pragma unroll
  for (int j = 0; j < kCols / 128; ++j) y[j * 32 + lane] = make_float4(v[j].x * r, v[j].y * r, v[j].z * r, v[j].w * r);
}

__global__ void layernorm_ref(const float* __restrict__ in, const float* __restrict__ w, const float* __restrict__ b,
                              float* __restrict__ out, float* __restrict__ mean, float* __restrict__ rstd, int rows) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float4* x = reinterpret_cast<const float4*>(in + size_t(row) * kCols);
  float4 v[kCols / 128];
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kCols / 128; ++j) {
    v[j] = x[j * 32 + lane];
    s += v[j].x + v[j].y + v[j].z + v[j].w;
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  const float m = s / kCols;
  float q = 0.0f;
#pragma unroll
  for (int j = 0; j < kCols / 128; ++j) {
    const float a = v[j].x - m, c = v[j].y - m, d = v[j].z - m, e = v[j].w - m;
    q += a * a + c * c + d * d + e * e;
  }
  for (int o = 16; o > 0; o >>= 1) q += __shfl_xor_sync(0xffffffffu, q, o);
  const float rs = rsqrtf(q / kCols + 1e-5f);
  const float4* w4 = reinterpret_cast<const float4*>(w);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* y = reinterpret_cast<float4*>(out + size_t(row) * kCols);
#pragma unroll
  for (int j = 0; j < kCols / 128; ++j) {
    const float4 ww = w4[j * 32 + lane], bb = b4[j * 32 + lane];
    y[j * 32 + lane] = make_float4((v[j].x - m) * rs * ww.x + bb.x, (v[j].y - m) * rs * ww.y + bb.y,
                                   (v[j].z - m) * rs * ww.z + bb.z, (v[j].w - m) * rs * ww.w + bb.w);
  }
  if (lane == 0) mean[row] = m, rstd[row] = rs;
}

constexpr int kScanThreads = 256, kScanItems = 4;  // one segment of 1024 per block

__global__ void scan_ref(const float* __restrict__ in, float* __restrict__ out) {
  using Load = cub::BlockLoad<float, kScanThreads, kScanItems, cub::BLOCK_LOAD_VECTORIZE>;
  using Scan = cub::BlockScan<float, kScanThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  using Store = cub::BlockStore<float, kScanThreads, kScanItems, cub::BLOCK_STORE_VECTORIZE>;
  __shared__ typename Scan::TempStorage tmp;
  float items[kScanItems];
  const size_t base = size_t(blockIdx.x) * kScanThreads * kScanItems;
  Load().Load(in + base, items);
  Scan(tmp).InclusiveSum(items, items);
  Store().Store(out + base, items);
}

bool close(double got, double want, double tol) { return std::fabs(got - want) <= tol; }

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("skipped: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s\n", prop.name);
  bench::benchInit();
  cublasHandle_t blas;
  CB(cublasCreate(&blas));

  // The copy bandwidth: bytes read plus written per second.
  const size_t copy_bytes = size_t(512) << 20;
  void *ca = nullptr, *cb = nullptr;
  CK(cudaMalloc(&ca, copy_bytes));
  CK(cudaMalloc(&cb, copy_bytes));
  CK(cudaMemset(ca, 1, copy_bytes));
  const double copy_ms = bench::timeMs([&] { CK(cudaMemcpyAsync(cb, ca, copy_bytes, cudaMemcpyDeviceToDevice)); });
  const double bw = 2.0 * copy_bytes / (copy_ms * 1e-3);  // bytes / s
  CK(cudaFree(ca));
  CK(cudaFree(cb));
  std::printf("bandwidth %.1f GB/s (device-to-device copy of %zu MiB: %.4f ms)\n", bw * 1e-9, copy_bytes >> 20, copy_ms);
  auto floor = [&](const char* kernel, double bytes, const char* what) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "memory floor: %s, %.1f MB at %.0f GB/s", what, bytes * 1e-6, bw * 1e-9);
    report(kernel, bytes / bw * 1e3, buf);
  };

  void* tmp = nullptr;
  size_t tmp_bytes = 0, need = 0;
  auto scratch = [&](size_t n) {
    if (n <= tmp_bytes) return;
    if (tmp) CK(cudaFree(tmp));
    CK(cudaMalloc(&tmp, n));
    tmp_bytes = n;
  };

  // ---- reductions: CUB, cuBLAS ----
  {
    const int n = (1 << 24) + 7;
    float* in = devRandom<float>(n, 101);
    float* out = nullptr;
    CK(cudaMalloc(&out, sizeof(float)));
    CK(cub::DeviceReduce::Sum(nullptr, need, in, out, n));
    scratch(need);
    report("block_reduce_sum", bench::timeMs([&] { CK(cub::DeviceReduce::Sum(tmp, need, in, out, n)); }), "cub::DeviceReduce::Sum");
    CK(cudaFree(in));
    const size_t n2 = (size_t(1) << 24) + 1;
    in = devRandom<float>(n2, 106);
    CK(cub::DeviceReduce::Sum(nullptr, need, in, out, n2));
    scratch(need);
    report("sum_kernel", bench::timeMs([&] { CK(cub::DeviceReduce::Sum(tmp, need, in, out, n2)); }), "cub::DeviceReduce::Sum (float)");
    CK(cudaFree(in));
    const int n3 = (1 << 24) - 3;
    in = devRandom<float>(n3, 105, -1000, 1000);
    CK(cub::DeviceReduce::Min(nullptr, need, in, out, n3));
    scratch(need);
    report("min_partial_kernel", bench::timeMs([&] { CK(cub::DeviceReduce::Min(tmp, need, in, out, n3)); }),
           "cub::DeviceReduce::Min (the whole minimum; the transfer splits it over two kernels)");
    CK(cudaFree(in));
    const int nd = 1 << 24;
    float* a = devRandom<float>(nd, 102);
    float* b = devRandom<float>(nd, 103);
    CB(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_DEVICE));
    report("dot_kernel", bench::timeMs([&] { CB(cublasSdot(blas, nd, a, 1, b, 1, out)); }), "cublasSdot");
    CB(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_HOST));
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(out));
    const unsigned ni = (1u << 24) + 100;
    int* ii = devRandom<int>(ni, 104, -2e9, 2e9);
    int* io = nullptr;
    CK(cudaMalloc(&io, sizeof(int)));
    CK(cub::DeviceReduce::Max(nullptr, need, ii, io, ni));
    scratch(need);
    report("reduce_max_int", bench::timeMs([&] { CK(cub::DeviceReduce::Max(tmp, need, ii, io, ni)); }), "cub::DeviceReduce::Max");
    CK(cudaFree(ii));
    CK(cudaFree(io));
  }
  // ---- scan: one block per segment with cub::BlockScan, checked on two segments ----
  {
    const int segs = 16384, len = kScanThreads * kScanItems;
    float* in = devRandom<float>(size_t(segs) * len, 201);
    float* out = nullptr;
    CK(cudaMalloc(&out, size_t(segs) * len * sizeof(float)));
    scan_ref<<<segs, kScanThreads>>>(in, out);
    CK(cudaGetLastError());
    std::vector<float> hi(2 * len), ho(2 * len);
    CK(cudaMemcpy(hi.data(), in + size_t(segs - 2) * len, 2 * len * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ho.data(), out + size_t(segs - 2) * len, 2 * len * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int s = 0; s < 2; ++s) {
      double run = 0, abs_run = 0;
      for (int i = 0; i < len; ++i) {
        run += hi[s * len + i], abs_run += std::fabs(hi[s * len + i]);
        ok &= close(ho[s * len + i], run, 1e-5 * abs_run + 1e-6);
      }
    }
    report("scan_segments_hs", bench::timeMs([&] { scan_ref<<<segs, kScanThreads>>>(in, out); }),
           std::string("cub::BlockScan, 256 threads x 4 per segment (check ") + (ok ? "ok)" : "FAILED)"));
    CK(cudaFree(in));
    CK(cudaFree(out));
  }
  // ---- rows: warp per row, the row in registers, checked on the last rows ----
  {
    const int N = 8192;
    const size_t n = size_t(N) * kCols;
    float* in = devRandom<float>(n, 301, -4, 4);
    float *out = nullptr, *mean = nullptr, *rstd = nullptr;
    CK(cudaMalloc(&out, n * sizeof(float)));
    CK(cudaMalloc(&mean, N * sizeof(float)));
    CK(cudaMalloc(&rstd, N * sizeof(float)));
    float* w = devRandom<float>(kCols, 312, 0.5, 1.5);
    float* b = devRandom<float>(kCols, 313, -0.5, 0.5);
    const int threads = 128, grid = N * 32 / threads;
    softmax_ref<<<grid, threads>>>(in, out, N);
    CK(cudaGetLastError());
    std::vector<float> hx(4 * kCols), hy(4 * kCols);
    CK(cudaMemcpy(hx.data(), in + n - 4 * kCols, hx.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hy.data(), out + n - 4 * kCols, hy.size() * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int r = 0; r < 4; ++r) {
      double m = -1e300, s = 0;
      for (int j = 0; j < kCols; ++j) m = std::max(m, double(hx[r * kCols + j]));
      for (int j = 0; j < kCols; ++j) s += std::exp(hx[r * kCols + j] - m);
      for (int j = 0; j < kCols; ++j) {
        const double want = std::exp(hx[r * kCols + j] - m) / s;
        ok &= close(hy[r * kCols + j], want, 1e-4 * want + 1e-9);
      }
    }
    report("softmax_forward_kernel", bench::timeMs([&] { softmax_ref<<<grid, threads>>>(in, out, N); }),
           std::string("warp per row, float4, the row in registers (check ") + (ok ? "ok)" : "FAILED)"));
    layernorm_ref<<<grid, threads>>>(in, w, b, out, mean, rstd, N);
    CK(cudaGetLastError());
    std::vector<float> hw(kCols), hb(kCols);
    CK(cudaMemcpy(hw.data(), w, kCols * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb.data(), b, kCols * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hy.data(), out + n - 4 * kCols, hy.size() * sizeof(float), cudaMemcpyDeviceToHost));
    ok = true;
    for (int r = 0; r < 4; ++r) {
      double m = 0, q = 0;
      for (int j = 0; j < kCols; ++j) m += hx[r * kCols + j];
      m /= kCols;
      for (int j = 0; j < kCols; ++j) q += (hx[r * kCols + j] - m) * (hx[r * kCols + j] - m);
      const double rs = 1.0 / std::sqrt(q / kCols + 1e-5);
      for (int j = 0; j < kCols; ++j) {
        const double want = (hx[r * kCols + j] - m) * rs * hw[j] + hb[j];
        ok &= close(hy[r * kCols + j], want, 1e-4 * (std::fabs(want) + 1.0));
      }
    }
    report("layernorm_forward_kernel", bench::timeMs([&] { layernorm_ref<<<grid, threads>>>(in, w, b, out, mean, rstd, N); }),
           std::string("warp per row, float4, the row in registers (check ") + (ok ? "ok)" : "FAILED)"));
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(mean));
    CK(cudaFree(rstd));
    CK(cudaFree(w));
    CK(cudaFree(b));
  }
  // ---- GEMM, GEMV, column sums: cuBLAS (fp32, default math: no TF32) ----
  {
    const int M = 1024, N = 1024, K = 1024;
    float* A = devRandom<float>(size_t(M) * K, 1);
    float* B = devRandom<float>(size_t(K) * N, 2);
    float* C = devRandom<float>(size_t(M) * N, 3);
    const float alpha = 1.5f, beta = -0.5f;
    // row-major C = alpha A B + beta C is column-major C^T = alpha B^T A^T + beta C^T
    report("gemm_naive", bench::timeMs([&] { CB(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, C, N)); }),
           "cublasSgemm");
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
    const int BT = 4096, Cin = 768, OC = 3 * 768;
    float* inp = devRandom<float>(size_t(BT) * Cin, 4);
    float* W = devRandom<float>(size_t(OC) * Cin, 5);
    float* out = nullptr;
    CK(cudaMalloc(&out, size_t(BT) * OC * sizeof(float)));
    const float one = 1.0f, zero = 0.0f;
    // out (BT x OC, row-major) = inp W^T: column-major out^T (OC x BT) = W (op T of C x OC) inp^T
    report("linear_forward_nt",
           bench::timeMs([&] { CB(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, OC, BT, Cin, &one, W, Cin, inp, Cin, &zero, out, OC)); }),
           "cublasSgemm (without the bias)");
    CK(cudaFree(inp));
    CK(cudaFree(W));
    CK(cudaFree(out));
    const int gm = 16384, gn = 2048;
    float* GA = devRandom<float>(size_t(gm) * gn, 6);
    float* x = devRandom<float>(gn, 7);
    float* y = nullptr;
    CK(cudaMalloc(&y, gm * sizeof(float)));
    // y = A x, A row-major m x n: column-major A^T (n x m), op T
    report("gemv_row_kernel", bench::timeMs([&] { CB(cublasSgemv(blas, CUBLAS_OP_T, gn, gm, &one, GA, gn, x, 1, &zero, y, 1)); }),
           "cublasSgemv");
    CK(cudaFree(GA));
    CK(cudaFree(x));
    CK(cudaFree(y));
    const int h = 4096, w = 4096;
    float* D = devRandom<float>(size_t(h) * w, 8);
    float* ones = nullptr;
    float* sums = nullptr;
    CK(cudaMalloc(&ones, h * sizeof(float)));
    CK(cudaMalloc(&sums, w * sizeof(float)));
    std::vector<float> h1(h, 1.0f);
    CK(cudaMemcpy(ones, h1.data(), h * sizeof(float), cudaMemcpyHostToDevice));
    // column sums of row-major h x w = (column-major w x h) times ones
    report("column_sums", bench::timeMs([&] { CB(cublasSgemv(blas, CUBLAS_OP_N, w, h, &one, D, w, ones, 1, &zero, sums, 1)); }),
           "cublasSgemv with a vector of ones");
    CK(cudaFree(D));
    CK(cudaFree(ones));
    CK(cudaFree(sums));
  }
  // ---- histogram: CUB ----
  {
    const long size = (1L << 24) + 123;
    unsigned char* buf = nullptr;
    CK(cudaMalloc(&buf, size));
    std::vector<unsigned char> hb(size);
    std::mt19937 r(621);
    for (auto& c : hb) c = static_cast<unsigned char>(r() >> 24);
    CK(cudaMemcpy(buf, hb.data(), size, cudaMemcpyHostToDevice));
    unsigned int* bins = nullptr;
    CK(cudaMalloc(&bins, 256 * sizeof(unsigned int)));
    CK(cub::DeviceHistogram::HistogramEven(nullptr, need, buf, bins, 257, 0, 256, size));
    scratch(need);
    report("histo_kernel", bench::timeMs([&] { CK(cub::DeviceHistogram::HistogramEven(tmp, need, buf, bins, 257, 0, 256, size)); }),
           "cub::DeviceHistogram::HistogramEven");
    CK(cudaFree(buf));
    CK(cudaFree(bins));
  }
  // ---- the rest: the memory floor (no library does these; the data must move at least once) ----
  const double F = 4.0, M24 = double(1 << 24);
  floor("row_max_argmax", 8192.0 * 1024 * F + 8192.0 * 8, "read the matrix, write max and index per row");
  floor("transpose_naive_kernel", 2.0 * 4096 * 3000 * F, "read and write 4096 x 3000");
  floor("laplacian5", 2.0 * 4096 * 4096 * F, "read and write 4096 x 4096");
  floor("box_blur_kernel", 2.0 * 3840 * 2160, "read and write 3840 x 2160 bytes");
  floor("conv1d_kernel", 2.0 * M24 * F, "read and write 2^24");
  floor("conv1d_const_kernel", 2.0 * M24 * F, "read and write 2^24");
  floor("gelu_tanh_kernel", 2.0 * (M24 + 5) * F, "read and write 2^24");
  floor("axpy_kernel", 3.0 * (M24 + 3) * F, "read x and y, write y");
  floor("relu_inplace_kernel", 1.5 * (M24 - 5) * F, "read all, write the negative half");
  floor("bias_residual_add_kernel", 3.0 * 8192 * 1024 * F, "read inp and residual, write out");
  floor("scale_clip_kernel", 2.0 * M24 * F, "read and write 2^24");
  floor("vecAdd", 3.0 * M24 * F, "read a and b, write c");
  floor("gather_kernel", M24 * 4 + (1 << 22) * F + M24 * F, "read the indices and the source once, write dst");
  CB(cublasDestroy(blas));
  if (tmp) CK(cudaFree(tmp));
  CK(cudaFree(bench::flushBuffer()));
  return 0;
}
