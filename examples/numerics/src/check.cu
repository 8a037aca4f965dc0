// The numerics example's test program: runs each kernel once on random data and checks it against a
// double-precision reference on the CPU (normwise relative error under 1e-5). `ninja optimize`
// captures these launches and gates every variant on them.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "numerics.h"

namespace {

constexpr int kRows = 4096, kCols = 4096, kTaps = 31;

#define CHECK_CUDA(call)                                                                     \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

float* upload(const std::vector<float>& h) {
  float* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, h.size() * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

std::vector<float> download(const float* d, size_t n) {
  std::vector<float> h(n);
  CHECK_CUDA(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

// ||got - want|| / ||want||, in double.
bool close(const char* what, const std::vector<float>& got, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = got[i] - want[i];
    num += d * d;
    den += want[i] * want[i];
  }
  const double rel = std::sqrt(num / den);
  const bool ok = rel < 1e-5;
  std::printf("%-8s relative error %.3g  %s\n", what, rel, ok ? "ok" : "WRONG");
  return ok;
}

}  // namespace

int main() {
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> x(static_cast<size_t>(kRows) * kCols), v(kCols), taps(kTaps);
  for (auto& e : x) e = u(rng);
  for (auto& e : v) e = u(rng);
  for (auto& e : taps) e = u(rng) / kTaps;
  float *dx = upload(x), *dv = upload(v), *dtaps = upload(taps);
  float *drow = nullptr, *dy = nullptr, *dcol = nullptr, *dconv = nullptr;
  CHECK_CUDA(cudaMalloc(&drow, kRows * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, kRows * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dcol, kCols * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dconv, x.size() * sizeof(float)));

  CHECK_CUDA(row_sum(dx, drow, kRows, kCols));
  CHECK_CUDA(gemv(dx, dv, dy, kRows, kCols));
  CHECK_CUDA(col_sum(dx, dcol, kRows, kCols));
  CHECK_CUDA(conv1d(dx, dtaps, dconv, kRows, kCols, kTaps));
  CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<double> rs(kRows, 0), ys(kRows, 0), cs(kCols, 0), conv(x.size(), 0);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) {
      const double e = x[static_cast<size_t>(r) * kCols + c];
      rs[r] += e;
      ys[r] += e * v[c];
      cs[c] += e;
    }
  for (int r = 0; r < kRows; ++r)
    for (int i = 0; i < kCols; ++i)
      for (int t = 0; t < kTaps; ++t) {
        const int j = i + t - kTaps / 2;
        if (j >= 0 && j < kCols) conv[static_cast<size_t>(r) * kCols + i] += double(taps[t]) * x[static_cast<size_t>(r) * kCols + j];
      }
  bool ok = close("row_sum", download(drow, kRows), rs);
  ok = close("gemv", download(dy, kRows), ys) && ok;
  ok = close("col_sum", download(dcol, kCols), cs) && ok;
  ok = close("conv1d", download(dconv, x.size()), conv) && ok;
  for (float* p : {dx, dv, dtaps, drow, dy, dcol, dconv}) CHECK_CUDA(cudaFree(p));
  std::printf("%s\n", ok ? "numerics: all kernels match the reference" : "numerics: MISMATCH");
  return ok ? 0 : 1;
}
