// `experts --only mine`: runs the mineable experts (src/mine/, include/mine.h) once each on fixed
// inputs and checks them against a CPU reference, so the capture of `RUN experts ARGS --only mine`
// records their launches for `klineage mine` (docs/lineage.md). Not timed: the miner times them.
#include <cmath>
#include <cstdio>
#include <vector>

#include "mine.h"

namespace {

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "experts: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

std::vector<float> inputs(size_t n, unsigned seed) {
  std::vector<float> v(n);
  unsigned s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = float(s >> 8) / float(1u << 24) - 0.5f;
  }
  return v;
}

}  // namespace

bool run_mine_experts(bool quick) {
  bool good = true;
  {  // mine_reduce_sum
    const int n = quick ? (1 << 20) + 3 : (1 << 24) + 3;
    std::vector<float> hx = inputs(n, 1);
    float *x = nullptr, *out = nullptr;
    good = ok(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc") && ok(cudaMalloc(&out, sizeof(float)), "cudaMalloc");
    good = good && ok(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    good = good && ok(launch_mine_reduce_sum(n, x, out), "mine_reduce_sum") && ok(cudaDeviceSynchronize(), "mine_reduce_sum");
    float got = 0;
    good = good && ok(cudaMemcpy(&got, out, sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    double want = 0, mag = 0;
    for (float v : hx) want += v, mag += std::fabs(v);
    const bool right = good && std::fabs(got - want) <= 1e-5 * mag + 1e-3;
    std::printf("mine\tmine_reduce_sum\t%s\n", right ? "ok" : "FAIL");
    good = good && right;
    cudaFree(x);
    cudaFree(out);
  }
  {  // mine_sgemm
    const int M = quick ? 256 : 1024, N = quick ? 192 : 1024, K = quick ? 320 : 1024;
    std::vector<float> ha = inputs(size_t(M) * K, 2), hb = inputs(size_t(K) * N, 3), hc(size_t(M) * N);
    float *a = nullptr, *b = nullptr, *c = nullptr;
    bool g = ok(cudaMalloc(&a, ha.size() * 4), "cudaMalloc") && ok(cudaMalloc(&b, hb.size() * 4), "cudaMalloc") &&
             ok(cudaMalloc(&c, hc.size() * 4), "cudaMalloc");
    g = g && ok(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy") &&
        ok(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
    g = g && ok(launch_mine_sgemm(M, N, K, a, b, c), "mine_sgemm") && ok(cudaDeviceSynchronize(), "mine_sgemm");
    g = g && ok(cudaMemcpy(hc.data(), c, hc.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    bool right = g;
    for (int i = 0; right && i < M; i += 37)  // a sample of rows and columns
      for (int j = 0; right && j < N; j += 29) {
        double want = 0, mag = 0;
        for (int k = 0; k < K; ++k) want += double(ha[size_t(i) * K + k]) * hb[size_t(k) * N + j], mag += std::fabs(ha[size_t(i) * K + k] * hb[size_t(k) * N + j]);
        right = std::fabs(hc[size_t(i) * N + j] - want) <= 1e-5 * mag + 1e-4;
      }
    std::printf("mine\tmine_sgemm\t%s\n", right ? "ok" : "FAIL");
    good = good && right;
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  return good;
}
