// experts: for each kind of kernel, runs the naive kernel (through the `naive` library's launch
// functions, so a build after `ninja optimize` runs the variants KLineage selected) and the expert
// reference (the `expert` library), checks both against a CPU reference and times both.
//
// Output: a human table, and one machine-readable line per kernel (fields separated by tabs):
//   kind<TAB>kernel<TAB>naive_ms<TAB>expert_ms<TAB>check
// check is "ok", "FAIL(naive)", "FAIL(expert)" or "FAIL(both)".
// Timing: 3 warm-up launches, then `--reps` (default 25, at least 20) timed launches, each alone
// between two cudaEvents, each preceded by a write of a buffer twice the L2 size (so no run finds
// its inputs in L2); the median is reported.
// Options: --only <kind> (elementwise, reduce, rows, transpose, sgemm, histogram, more; repeatable),
//          --quick (small sizes, for a smoke test), --reps <n>.
// Exit status: 0 every check passed, 1 a check failed (or a CUDA error), 2 bad arguments,
// 77 no CUDA device (nothing was run).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "experts.h"
#include "mine.h"
#include "naive.h"

namespace {

#define CHECK_CUDA(call)                                                                 \
  do {                                                                                   \
    cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "experts: %s failed: %s (%s:%d)\n", #call, cudaGetErrorString(err_), \
                   __FILE__, __LINE__);                                                  \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

// ---------------------------------------------------------------- inputs (fixed seeds)

uint64_t splitmix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<float> uniform(size_t n, float lo, float hi, uint64_t seed) {
  std::vector<float> v(n);
  const uint64_t key = splitmix(seed);
  for (size_t i = 0; i < n; ++i) {
    double u = double(splitmix(key + i) >> 11) * 0x1.0p-53;
    v[i] = float(lo + u * (hi - lo));
  }
  return v;
}

// ---------------------------------------------------------------- device buffers

template <class T>
struct Dev {
  T* p = nullptr;
  size_t n = 0;
  explicit Dev(size_t count) : n(count) { CHECK_CUDA(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T))); }
  ~Dev() { cudaFree(p); }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
  void upload(const std::vector<T>& h) { CHECK_CUDA(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); }
  std::vector<T> download() const {
    std::vector<T> h(n);
    CHECK_CUDA(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  void poison() { CHECK_CUDA(cudaMemset(p, 0xff, n * sizeof(T))); }  // NaN for floats
};

// ---------------------------------------------------------------- checks

// |got - want| <= atol + rtol * |want| everywhere; prints the first mismatch.
bool compare(const std::string& what, const std::vector<float>& got, const std::vector<double>& want, double rtol,
             double atol) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double d = std::fabs(double(got[i]) - want[i]);
    if (!(d <= atol + rtol * std::fabs(want[i])) && bad++ == 0) first = i;
  }
  if (bad)
    std::printf("experts: FAILED: %s: %zu of %zu elements differ (rtol %g, atol %g); first at %zu: got %.9g, expected %.9g\n",
                what.c_str(), bad, want.size(), rtol, atol, first, double(got[first]), want[first]);
  return bad == 0;
}

bool compareScalar(const std::string& what, double got, double want, double tol) {
  bool ok = std::fabs(got - want) <= tol;
  if (!ok) std::printf("experts: FAILED: %s: got %.9g, expected %.9g (|error| %.3g > %.3g)\n", what.c_str(), got, want, std::fabs(got - want), tol);
  return ok;
}

// ---------------------------------------------------------------- timing

struct Timer {
  void* flush = nullptr;
  size_t flush_bytes = 0;
  int reps = 25;
  cudaEvent_t start{}, stop{};

  void init(int l2_bytes, int r) {
    reps = r;
    flush_bytes = std::max<size_t>(size_t(2) * size_t(std::max(l2_bytes, 1 << 20)), size_t(8) << 20);
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
  }

  // Median of `reps` runs in ms, each after an L2 flush; 3 warm-up runs first.
  template <class Launch>
  double median(Launch launch) {
    for (int w = 0; w < 3; ++w) CHECK_CUDA(launch());
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float> ms(reps);
    for (int r = 0; r < reps; ++r) {
      CHECK_CUDA(cudaMemsetAsync(flush, r & 0xff, flush_bytes));
      CHECK_CUDA(cudaEventRecord(start));
      CHECK_CUDA(launch());
      CHECK_CUDA(cudaEventRecord(stop));
      CHECK_CUDA(cudaEventSynchronize(stop));
      CHECK_CUDA(cudaEventElapsedTime(&ms[r], start, stop));
    }
    std::sort(ms.begin(), ms.end());
    return reps % 2 ? ms[reps / 2] : 0.5 * (double(ms[reps / 2 - 1]) + double(ms[reps / 2]));
  }
};

struct Result {
  std::string kind, kernel;
  double naive_ms, expert_ms;
  bool naive_ok, expert_ok;
  double bytes_or_flops;  // for the human table: bytes moved (or flops for sgemm)
  bool flops;
};

struct Sizes {
  int n_elem, cols_bias, n_red, rows, row_cols, t_rows, t_cols, m, n, k, n_hist;
  bool big_gemm;
  int more_rows, row_sums_cols, gemv_cols, n_sum_squares, n_count;  // more
};

Timer timer;
std::vector<Result> results;

void record(const char* kind, const char* kernel, double naive_ms, double expert_ms, bool naive_ok, bool expert_ok,
            double amount, bool flops = false) {
  results.push_back({kind, kernel, naive_ms, expert_ms, naive_ok, expert_ok, amount, flops});
}

// ---------------------------------------------------------------- kinds

void runElementwise(const Sizes& s) {
  const int n = s.n_elem, cols = s.cols_bias;
  const double fbytes = double(n) * sizeof(float);
  Dev<float> x(n), y(n), out(n), bias(cols);
  std::vector<float> hx = uniform(n, -1, 1, 11), hy = uniform(n, -1, 1, 12), hb = uniform(cols, -1, 1, 13);
  x.upload(hx);
  bias.upload(hb);

  {  // saxpy (in place: y is restored before each check)
    const float a = 2.0f;
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) want[i] = double(std::fma(a, hx[i], hy[i]));
    // an unfused a*x+y is also right: compare within one rounding of either
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      y.upload(hy);
      CHECK_CUDA(e ? expert_saxpy(n, a, x.p, y.p) : launch_saxpy(n, a, x.p, y.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compare(std::string(e ? "expert " : "naive ") + "saxpy", y.download(), want, 1e-5, 1e-6);
    }
    double tn = timer.median([&] { return launch_saxpy(n, a, x.p, y.p); });
    double te = timer.median([&] { return expert_saxpy(n, a, x.p, y.p); });
    record("elementwise", "saxpy", tn, te, ok[0], ok[1], 3 * fbytes);
  }
  {  // scale_add<float>: saxpy as a template kernel in a header (include/naive_templates.cuh)
    const float a = 2.0f;
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) want[i] = double(std::fma(a, hx[i], hy[i]));
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      y.upload(hy);
      CHECK_CUDA(e ? expert_saxpy(n, a, x.p, y.p) : launch_scale_add(n, a, x.p, y.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compare(std::string(e ? "expert " : "naive ") + "scale_add", y.download(), want, 1e-5, 1e-6);
    }
    double tn = timer.median([&] { return launch_scale_add(n, a, x.p, y.p); });
    double te = timer.median([&] { return expert_saxpy(n, a, x.p, y.p); });
    record("elementwise", "scale_add", tn, te, ok[0], ok[1], 3 * fbytes);
  }
  {  // relu
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) want[i] = hx[i] > 0 ? hx[i] : 0.0;
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      out.poison();
      CHECK_CUDA(e ? expert_relu(n, x.p, out.p) : launch_relu(n, x.p, out.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compare(std::string(e ? "expert " : "naive ") + "relu", out.download(), want, 0.0, 0.0);
    }
    double tn = timer.median([&] { return launch_relu(n, x.p, out.p); });
    double te = timer.median([&] { return expert_relu(n, x.p, out.p); });
    record("elementwise", "relu", tn, te, ok[0], ok[1], 2 * fbytes);
  }
  {  // bias_gelu: erf GELU of (in + bias[col]); device erff is within 2 ulp
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) {
      float v = hx[i] + hb[i % cols];
      want[i] = 0.5 * double(v) * (1.0 + std::erf(double(v * 0.70710678f)));
    }
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      out.poison();
      CHECK_CUDA(e ? expert_bias_gelu(n, cols, x.p, bias.p, out.p) : launch_bias_gelu(n, cols, x.p, bias.p, out.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compare(std::string(e ? "expert " : "naive ") + "bias_gelu", out.download(), want, 1e-5, 1e-6);
    }
    double tn = timer.median([&] { return launch_bias_gelu(n, cols, x.p, bias.p, out.p); });
    double te = timer.median([&] { return expert_bias_gelu(n, cols, x.p, bias.p, out.p); });
    record("elementwise", "bias_gelu", tn, te, ok[0], ok[1], 2 * fbytes);
  }
}

// Reduction tolerance. The worst-case bound for fp32 summation in any order, (n - 1) u sum|t_i|
// (u = 2^-24), is useless at n = 2^24 (it exceeds sum|t_i| itself), and the order of atomic or
// tree summation is not fixed. We use |got - exact| <= 1e-6 * n * max|t_i|, i.e. about
// 17 u n max|t|: for i.i.d. terms the rounding error of any order grows like u sqrt(n) times the
// partial sums (<= n max|t|), so this bound is met with a wide margin by every correct summation
// order (atomics included) while a lost or doubled block of terms is far outside it. Max is exact.
double reduceTol(const std::vector<double>& terms) {
  double m = 0;
  for (double t : terms) m = std::max(m, std::fabs(t));
  return 1e-6 * double(terms.size()) * m;
}

void runReduce(const Sizes& s) {
  const int n = s.n_red;
  const double fbytes = double(n) * sizeof(float);
  Dev<float> x(n), y(n), out(1);
  std::vector<float> hx = uniform(n, -1, 1, 21), hy = uniform(n, -1, 1, 22);
  x.upload(hx);
  y.upload(hy);
  auto scalar = [&] { return double(out.download()[0]); };
  {
    std::vector<double> t(hx.begin(), hx.end());
    double want = 0;
    for (double v : t) want += v;
    const double tol = reduceTol(t);
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      out.poison();
      CHECK_CUDA(e ? expert_reduce_sum(n, x.p, out.p) : launch_reduce_sum(n, x.p, out.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compareScalar(std::string(e ? "expert " : "naive ") + "reduce_sum", scalar(), want, tol);
    }
    double tn = timer.median([&] { return launch_reduce_sum(n, x.p, out.p); });
    double te = timer.median([&] { return expert_reduce_sum(n, x.p, out.p); });
    record("reduce", "reduce_sum", tn, te, ok[0], ok[1], fbytes);
  }
  {
    std::vector<double> t(n);
    double want = 0;
    for (int i = 0; i < n; ++i) want += (t[i] = double(hx[i]) * double(hy[i]));
    const double tol = reduceTol(t);
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      out.poison();
      CHECK_CUDA(e ? expert_reduce_dot(n, x.p, y.p, out.p) : launch_reduce_dot(n, x.p, y.p, out.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compareScalar(std::string(e ? "expert " : "naive ") + "reduce_dot", scalar(), want, tol);
    }
    double tn = timer.median([&] { return launch_reduce_dot(n, x.p, y.p, out.p); });
    double te = timer.median([&] { return expert_reduce_dot(n, x.p, y.p, out.p); });
    record("reduce", "reduce_dot", tn, te, ok[0], ok[1], 2 * fbytes);
  }
  {
    double want = *std::max_element(hx.begin(), hx.end());
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      out.poison();
      CHECK_CUDA(e ? expert_reduce_max(n, x.p, out.p) : launch_reduce_max(n, x.p, out.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compareScalar(std::string(e ? "expert " : "naive ") + "reduce_max", scalar(), want, 0.0);
    }
    double tn = timer.median([&] { return launch_reduce_max(n, x.p, out.p); });
    double te = timer.median([&] { return expert_reduce_max(n, x.p, out.p); });
    record("reduce", "reduce_max", tn, te, ok[0], ok[1], fbytes);
  }
}

void runRows(const Sizes& s) {
  const int rows = s.rows, cols = s.row_cols;
  const size_t n = size_t(rows) * cols;
  const double fbytes = double(n) * sizeof(float);
  Dev<float> in(n), out(n), gamma(cols), beta(cols);
  std::vector<float> hin = uniform(n, -1, 1, 31), hg = uniform(cols, 0.5f, 1.5f, 32), hb = uniform(cols, -0.5f, 0.5f, 33);
  in.upload(hin);
  gamma.upload(hg);
  beta.upload(hb);
  {  // softmax: fp32 sums of `cols` terms, expf within 2 ulp: rtol 1e-4
    std::vector<double> want(n);
    for (int r = 0; r < rows; ++r) {
      const float* x = &hin[size_t(r) * cols];
      double m = x[0], sum = 0;
      for (int c = 1; c < cols; ++c) m = std::max(m, double(x[c]));
      for (int c = 0; c < cols; ++c) sum += std::exp(x[c] - m);
      for (int c = 0; c < cols; ++c) want[size_t(r) * cols + c] = std::exp(x[c] - m) / sum;
    }
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      out.poison();
      CHECK_CUDA(e ? expert_softmax_rows(rows, cols, in.p, out.p) : launch_softmax_rows(rows, cols, in.p, out.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compare(std::string(e ? "expert " : "naive ") + "softmax_rows", out.download(), want, 1e-4, 1e-7);
    }
    double tn = timer.median([&] { return launch_softmax_rows(rows, cols, in.p, out.p); });
    double te = timer.median([&] { return expert_softmax_rows(rows, cols, in.p, out.p); });
    record("rows", "softmax_rows", tn, te, ok[0], ok[1], 2 * fbytes);
  }
  {  // layernorm, biased variance, eps 1e-5
    const float eps = 1e-5f;
    std::vector<double> want(n);
    for (int r = 0; r < rows; ++r) {
      const float* x = &hin[size_t(r) * cols];
      double mean = 0, var = 0;
      for (int c = 0; c < cols; ++c) mean += x[c];
      mean /= cols;
      for (int c = 0; c < cols; ++c) var += (x[c] - mean) * (x[c] - mean);
      var /= cols;
      const double rstd = 1.0 / std::sqrt(var + eps);
      for (int c = 0; c < cols; ++c) want[size_t(r) * cols + c] = (x[c] - mean) * rstd * hg[c] + hb[c];
    }
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      out.poison();
      CHECK_CUDA(e ? expert_layernorm_rows(rows, cols, eps, in.p, gamma.p, beta.p, out.p)
                   : launch_layernorm_rows(rows, cols, eps, in.p, gamma.p, beta.p, out.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compare(std::string(e ? "expert " : "naive ") + "layernorm_rows", out.download(), want, 1e-4, 1e-4);
    }
    double tn = timer.median([&] { return launch_layernorm_rows(rows, cols, eps, in.p, gamma.p, beta.p, out.p); });
    double te = timer.median([&] { return expert_layernorm_rows(rows, cols, eps, in.p, gamma.p, beta.p, out.p); });
    record("rows", "layernorm_rows", tn, te, ok[0], ok[1], 2 * fbytes);
  }
}

void runTranspose(const Sizes& s) {
  const int rows = s.t_rows, cols = s.t_cols;
  const size_t n = size_t(rows) * cols;
  Dev<float> in(n), out(n);
  std::vector<float> hin = uniform(n, -1, 1, 41);
  in.upload(hin);
  std::vector<double> want(n);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) want[size_t(c) * rows + r] = hin[size_t(r) * cols + c];
  bool ok[2];
  for (int e = 0; e < 2; ++e) {
    out.poison();
    CHECK_CUDA(e ? expert_transpose(rows, cols, in.p, out.p) : launch_transpose(rows, cols, in.p, out.p));
    CHECK_CUDA(cudaDeviceSynchronize());
    ok[e] = compare(std::string(e ? "expert " : "naive ") + "transpose", out.download(), want, 0.0, 0.0);
  }
  double tn = timer.median([&] { return launch_transpose(rows, cols, in.p, out.p); });
  double te = timer.median([&] { return expert_transpose(rows, cols, in.p, out.p); });
  record("transpose", "transpose", tn, te, ok[0], ok[1], 2.0 * double(n) * sizeof(float));
}

// C = A * B, row-major. Checked in full (or on `samples` random elements when samples > 0)
// against a double-precision product, rtol 1e-3 / atol 1e-3 (as the gate).
void runOneGemm(const char* name, int M, int N, int K, int samples) {
  Dev<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N);
  std::vector<float> ha = uniform(A.n, -1, 1, 51), hb = uniform(B.n, -1, 1, 52);
  A.upload(ha);
  B.upload(hb);
  std::vector<size_t> at;  // checked elements
  std::vector<double> want;
  if (samples <= 0) {
    std::vector<double> row(N);
    want.assign(size_t(M) * N, 0.0);
    for (int i = 0; i < M; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int k = 0; k < K; ++k) {
        const double a = ha[size_t(i) * K + k];
        const float* b = &hb[size_t(k) * N];
        for (int j = 0; j < N; ++j) row[j] += a * b[j];
      }
      std::copy(row.begin(), row.end(), want.begin() + size_t(i) * N);
    }
  } else {
    for (int s = 0; s < samples; ++s) {
      size_t i = splitmix(1000 + s) % M, j = splitmix(2000 + s) % N;
      double acc = 0;
      for (int k = 0; k < K; ++k) acc += double(ha[i * K + k]) * double(hb[size_t(k) * N + j]);
      at.push_back(i * N + j);
      want.push_back(acc);
    }
  }
  bool ok[2];
  for (int e = 0; e < 2; ++e) {
    C.poison();
    CHECK_CUDA(e ? expert_sgemm(M, N, K, A.p, B.p, C.p) : launch_sgemm(M, N, K, A.p, B.p, C.p));
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float> got = C.download();
    if (!at.empty()) {
      std::vector<float> picked;
      for (size_t p : at) picked.push_back(got[p]);
      got.swap(picked);
    }
    ok[e] = compare(std::string(e ? "expert " : "naive ") + name, got, want, 1e-3, 1e-3);
  }
  double tn = timer.median([&] { return launch_sgemm(M, N, K, A.p, B.p, C.p); });
  double te = timer.median([&] { return expert_sgemm(M, N, K, A.p, B.p, C.p); });
  record("sgemm", name, tn, te, ok[0], ok[1], 2.0 * M * N * K, true);
}

void runSgemm(const Sizes& s) {
  runOneGemm("sgemm", s.m, s.n, s.k, 0);
  if (s.big_gemm) runOneGemm("sgemm_4096", 4096, 4096, 4096, 512);
}

void runHistogram(const Sizes& s) {
  const int n = s.n_hist;
  Dev<unsigned char> data(n);
  Dev<unsigned int> bins(256);
  std::vector<unsigned char> hd(n);
  const uint64_t key = splitmix(61);
  // skewed toward low values (half the inputs in 16 bins) so some bins are hot, as in images
  for (int i = 0; i < n; ++i) {
    uint64_t b = splitmix(key + uint64_t(i));
    hd[i] = (b >> 63) ? static_cast<unsigned char>(b & 15) : static_cast<unsigned char>(b & 255);
  }
  data.upload(hd);
  std::vector<double> want(256, 0.0);
  for (unsigned char v : hd) want[v] += 1;
  bool ok[2];
  for (int e = 0; e < 2; ++e) {
    bins.poison();
    CHECK_CUDA(e ? expert_histogram(n, data.p, bins.p) : launch_histogram(n, data.p, bins.p));
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<unsigned int> got = bins.download();
    std::vector<float> gotf(got.begin(), got.end());  // only to print the first mismatch
    bool same = true;
    for (int b = 0; b < 256; ++b) same = same && double(got[b]) == want[b];
    if (!same) compare(std::string(e ? "expert " : "naive ") + "histogram", gotf, want, 0.0, 0.0);
    ok[e] = same;
  }
  double tn = timer.median([&] { return launch_histogram(n, data.p, bins.p); });
  double te = timer.median([&] { return expert_histogram(n, data.p, bins.p); });
  record("histogram", "histogram", tn, te, ok[0], ok[1], double(n));
}

// Sum of squares: every term is >= 0, so the naive kernel's chain of fp32 atomicAdds into one
// value is biased, not only noisy: once the running sum S is large, each term loses its part below
// half an ulp of S (terms under ulp(S)/2 vanish), downwards on average. For uniform(-1, 1) inputs
// (S -> n/3) this error grows faster than n: -3.7e-4 of the sum at n = 2^20 and -2.1e-2 at 2^24
// (these inputs on an H200; one-chain summation on the CPU, in any order, gives the same), while
// the expert's per-block sums are within ~1e-6. The reduce_sum bound (1e-6 * n * max|t|) suits
// mean-zero terms only; here it would reject the naive kernel from n ~ 2^16 on. So sum_squares runs
// at n = 2^20 and is checked with |got - exact| <= 1e-3 * sum|t_i| (the gate's rtol 1e-3): 2.5x
// the one-chain error, the largest any summation order gives here.
double sumSquaresTol(const std::vector<double>& terms) {
  double s = 0;
  for (double t : terms) s += std::fabs(t);
  return 1e-3 * s;
}

void runMore(const Sizes& s) {
  {  // row_sums: fp32 sums of `cols` terms, reordered by the expert: rtol 1e-4, atol 1e-4
    const int rows = s.more_rows, cols = s.row_sums_cols;
    const size_t n = size_t(rows) * cols;
    Dev<float> in(n), out(rows);
    std::vector<float> hin = uniform(n, -1, 1, 71);
    in.upload(hin);
    std::vector<double> want(rows, 0.0);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) want[r] += hin[size_t(r) * cols + c];
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      out.poison();
      CHECK_CUDA(e ? expert_row_sums(rows, cols, in.p, out.p) : launch_row_sums(rows, cols, in.p, out.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compare(std::string(e ? "expert " : "naive ") + "row_sums", out.download(), want, 1e-4, 1e-4);
    }
    double tn = timer.median([&] { return launch_row_sums(rows, cols, in.p, out.p); });
    double te = timer.median([&] { return expert_row_sums(rows, cols, in.p, out.p); });
    record("more", "row_sums", tn, te, ok[0], ok[1], (double(n) + rows) * sizeof(float));
  }
  {  // gemv, y = A x: fp32 dot products of `cols` terms, reordered by the expert: rtol 1e-4, atol 1e-4
    const int rows = s.more_rows, cols = s.gemv_cols;
    const size_t n = size_t(rows) * cols;
    Dev<float> A(n), x(cols), y(rows);
    std::vector<float> ha = uniform(n, -1, 1, 72), hx = uniform(cols, -1, 1, 73);
    A.upload(ha);
    x.upload(hx);
    std::vector<double> want(rows, 0.0);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) want[r] += double(ha[size_t(r) * cols + c]) * double(hx[c]);
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      y.poison();
      CHECK_CUDA(e ? expert_gemv(rows, cols, A.p, x.p, y.p) : launch_gemv(rows, cols, A.p, x.p, y.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compare(std::string(e ? "expert " : "naive ") + "gemv", y.download(), want, 1e-4, 1e-4);
    }
    double tn = timer.median([&] { return launch_gemv(rows, cols, A.p, x.p, y.p); });
    double te = timer.median([&] { return expert_gemv(rows, cols, A.p, x.p, y.p); });
    record("more", "gemv", tn, te, ok[0], ok[1], (double(n) + cols + rows) * sizeof(float));
  }
  {  // sum_squares (tolerance: sumSquaresTol above)
    const int n = s.n_sum_squares;
    Dev<float> x(n), out(1);
    std::vector<float> hx = uniform(n, -1, 1, 74);
    x.upload(hx);
    std::vector<double> t(n);
    double want = 0;
    for (int i = 0; i < n; ++i) want += (t[i] = double(hx[i]) * double(hx[i]));
    const double tol = sumSquaresTol(t);
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      out.poison();
      CHECK_CUDA(e ? expert_sum_squares(n, x.p, out.p) : launch_sum_squares(n, x.p, out.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compareScalar(std::string(e ? "expert " : "naive ") + "sum_squares", double(out.download()[0]), want, tol);
    }
    double tn = timer.median([&] { return launch_sum_squares(n, x.p, out.p); });
    double te = timer.median([&] { return expert_sum_squares(n, x.p, out.p); });
    record("more", "sum_squares", tn, te, ok[0], ok[1], double(n) * sizeof(float));
  }
  {  // count_positive: exact
    const int n = s.n_count;
    Dev<float> x(n);
    Dev<unsigned int> count(1);
    std::vector<float> hx = uniform(n, -1, 1, 75);
    x.upload(hx);
    double want = 0;
    for (float v : hx) want += v > 0.0f ? 1 : 0;
    bool ok[2];
    for (int e = 0; e < 2; ++e) {
      count.poison();
      CHECK_CUDA(e ? expert_count_positive(n, x.p, count.p) : launch_count_positive(n, x.p, count.p));
      CHECK_CUDA(cudaDeviceSynchronize());
      ok[e] = compareScalar(std::string(e ? "expert " : "naive ") + "count_positive", double(count.download()[0]), want, 0.0);
    }
    double tn = timer.median([&] { return launch_count_positive(n, x.p, count.p); });
    double te = timer.median([&] { return expert_count_positive(n, x.p, count.p); });
    record("more", "count_positive", tn, te, ok[0], ok[1], double(n) * sizeof(float));
  }
}

void usage() {
  std::fprintf(stderr,
               "usage: experts [--quick] [--reps N] [--only KIND]...\n"
               "  KIND: elementwise, reduce, rows, transpose, sgemm, histogram, more, mine\n");
}

}  // namespace

int main(int argc, char** argv) {
  // "mine": the mineable experts (include/mine.h), only when asked for (`--only mine`).
  const std::vector<std::string> kinds = {"elementwise", "reduce", "rows", "transpose", "sgemm", "histogram", "more", "mine"};
  std::set<std::string> only;
  bool quick = false;
  int reps = 25;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--only" && i + 1 < argc) {
      std::string k = argv[++i];
      if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) {
        std::fprintf(stderr, "experts: unknown kind '%s'\n", k.c_str());
        usage();
        return 2;
      }
      only.insert(k);
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
      if (reps < 1) {
        usage();
        return 2;
      }
    } else {
      usage();
      return 2;
    }
  }

  int devices = 0;
  cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::printf("experts: no CUDA device (%s); nothing to run\n", err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    return 77;
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  timer.init(prop.l2CacheSize, reps);
  std::printf("experts: %s (sm_%d%d), L2 %d MiB, %d timed runs per kernel (median), cuBLAS math mode %s%s\n", prop.name,
              prop.major, prop.minor, prop.l2CacheSize >> 20, reps, expert_sgemm_math_mode(), quick ? ", --quick sizes" : "");

  Sizes s = quick ? Sizes{1 << 20, 2048, 1 << 20, 512, 2048, 250, 700, 256, 128, 96, 1 << 20, false,
                          512, 1024, 2048, 1 << 16, 1 << 20}
                  : Sizes{1 << 26, 2048, 1 << 24, 4096, 2048, 2500, 7000, 1536, 1024, 768, 1 << 26, true,
                          8192, 1024, 2048, 1 << 20, 1 << 24};
  auto want = [&](const char* k) { return only.empty() || only.count(k); };
  if (want("elementwise")) runElementwise(s);
  if (want("reduce")) runReduce(s);
  if (want("rows")) runRows(s);
  if (want("transpose")) runTranspose(s);
  if (want("sgemm")) runSgemm(s);
  if (want("histogram")) runHistogram(s);
  if (want("more")) runMore(s);
  if (only.count("mine") && !run_mine_experts(quick)) return 1;

  bool all_ok = true;
  std::printf("\n%-12s %-15s %12s %12s %10s  %-22s %s\n", "kind", "kernel", "naive ms", "expert ms", "expert x", "expert rate", "check");
  for (const Result& r : results) {
    char rate[64];
    if (r.flops) std::snprintf(rate, sizeof rate, "%.1f TFLOP/s", r.bytes_or_flops / (r.expert_ms * 1e9));
    else std::snprintf(rate, sizeof rate, "%.0f GB/s", r.bytes_or_flops / (r.expert_ms * 1e6));
    const bool ok = r.naive_ok && r.expert_ok;
    all_ok = all_ok && ok;
    std::printf("%-12s %-15s %12.4f %12.4f %9.2fx  %-22s %s\n", r.kind.c_str(), r.kernel.c_str(), r.naive_ms, r.expert_ms,
                r.naive_ms / r.expert_ms, rate, ok ? "ok" : "FAIL");
  }
  std::printf("\n");
  for (const Result& r : results) {
    const char* check = r.naive_ok && r.expert_ok ? "ok" : !r.naive_ok && !r.expert_ok ? "FAIL(both)" : !r.naive_ok ? "FAIL(naive)" : "FAIL(expert)";
    std::printf("%s\t%s\t%.6f\t%.6f\t%s\n", r.kind.c_str(), r.kernel.c_str(), r.naive_ms, r.expert_ms, check);
  }
  if (!all_ok) {
    std::printf("experts: some checks FAILED\n");
    return 1;
  }
  std::printf("experts: all checks passed\n");
  return 0;
}
