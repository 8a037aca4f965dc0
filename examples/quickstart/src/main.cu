// quickstart: runs every kernel of the `kernels` library (compiled from whatever KLineage selected)
// on real data, checks the results against the CPU and reports the kernels' times.
// Exit status: 0 all checks passed, 1 a check failed, 77 no CUDA device (nothing was run).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels.h"

namespace {

#define CHECK_CUDA(call)                                                                    \
  do {                                                                                      \
    cudaError_t err_ = (call);                                                              \
    if (err_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "quickstart: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

std::vector<float> uniform(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

// |got - want| <= atol + rtol * |want| everywhere; prints the first mismatch.
bool compare(const char* kernel, const std::vector<float>& got, const std::vector<float>& want,
             double rtol, double atol) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double d = std::fabs(double(got[i]) - double(want[i]));
    if (!(d <= atol + rtol * std::fabs(double(want[i])))) {
      if (bad++ == 0) first = i;
    }
  }
  if (bad) {
    std::printf("quickstart: FAILED: %s: %zu of %zu elements differ; first at %zu: got %.9g, expected %.9g\n",
                kernel, bad, want.size(), first, got[first], want[first]);
    return false;
  }
  std::printf("quickstart: %s: ok (%zu elements)\n", kernel, want.size());
  return true;
}

// Average time of `reps` launches, in milliseconds.
template <class Launch>
float timeIt(Launch launch, int reps = 20) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(launch());  // warm-up
  CHECK_CUDA(cudaEventRecord(start));
  for (int r = 0; r < reps; ++r) CHECK_CUDA(launch());
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  return ms / reps;
}

}  // namespace

int main() {
  int devices = 0;
  cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::printf("quickstart: no CUDA device (%s); nothing to run\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    return 77;
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("quickstart: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);

  const int n = 1 << 26;
  const size_t bytes = size_t(n) * sizeof(float);
  bool ok = true;

  float *d_a = nullptr, *d_b = nullptr;
  CHECK_CUDA(cudaMalloc(&d_a, bytes));
  CHECK_CUDA(cudaMalloc(&d_b, bytes));

  // saxpy: y = a * x + y
  {
    const float a = 2.0f;
    std::vector<float> x = uniform(n, 1), y = uniform(n, 2), want(n), got(n);
    for (int i = 0; i < n; ++i) want[i] = a * x[i] + y[i];
    CHECK_CUDA(cudaMemcpy(d_a, x.data(), bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_b, y.data(), bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(launch_saxpy(n, a, d_a, d_b));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(got.data(), d_b, bytes, cudaMemcpyDeviceToHost));
    ok = compare("saxpy", got, want, 1e-5, 1e-6) && ok;
    float ms = timeIt([&] { return launch_saxpy(n, a, d_a, d_b); });
    std::printf("quickstart: saxpy: %.3f ms (%.0f GB/s)\n", ms, 3.0 * bytes / (ms * 1e6));
  }

  // relu: out = max(in, 0)
  {
    std::vector<float> in = uniform(n, 3), want(n), got(n);
    for (int i = 0; i < n; ++i) want[i] = in[i] > 0.0f ? in[i] : 0.0f;
    CHECK_CUDA(cudaMemcpy(d_a, in.data(), bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_b, 0xff, bytes));  // NaNs: every element must be written
    CHECK_CUDA(launch_relu(n, d_a, d_b));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(got.data(), d_b, bytes, cudaMemcpyDeviceToHost));
    ok = compare("relu", got, want, 0.0, 0.0) && ok;
    float ms = timeIt([&] { return launch_relu(n, d_a, d_b); });
    std::printf("quickstart: relu: %.3f ms (%.0f GB/s)\n", ms, 2.0 * bytes / (ms * 1e6));
  }

  CHECK_CUDA(cudaFree(d_a));
  CHECK_CUDA(cudaFree(d_b));
  if (!ok) return 1;
  std::printf("quickstart: all checks passed\n");
  return 0;
}
