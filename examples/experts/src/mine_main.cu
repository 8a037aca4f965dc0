// `experts --only mine`: runs each mineable expert (src/mine/, include/mine.h) once on the inputs and
// sizes src/main.cu gives the naive kernel of the same name (the same generators and seeds; --quick:
// its small sizes), and checks it against a double-precision CPU reference with the tolerance
// src/main.cu checks that naive kernel with. The capture of `RUN experts ARGS --only mine` records
// these launches for `klineage mine` (docs/lineage.md), so what the miner measures is the naive
// kernels' shapes. Not timed: the miner times them. Buffers are freed after each expert, so the
// capture snapshots only the allocations of the launch it records.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "mine.h"

namespace {

// ---------------------------------------------------------------- inputs, as src/main.cu

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

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "experts: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

// A device buffer; every failure clears `good` (and the later calls do nothing).
template <class T>
struct Buf {
  T* p = nullptr;
  size_t n;
  bool& good;
  Buf(size_t count, bool& g) : n(count), good(g) {
    good = good && ok(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T)), "cudaMalloc");
  }
  ~Buf() { cudaFree(p); }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  void upload(const std::vector<T>& h) {
    good = good && ok(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  void poison() { good = good && ok(cudaMemset(p, 0xff, n * sizeof(T)), "cudaMemset"); }  // NaN for floats
  std::vector<T> download() {
    std::vector<T> h(n);
    good = good && ok(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return h;
  }
};

// A launch's status, then its completion (`good = good && launched(launch_...(...), "...")`: no
// launch after a failed allocation or copy).
bool launched(cudaError_t e, const char* kernel) { return ok(e, kernel) && ok(cudaDeviceSynchronize(), kernel); }

// ---------------------------------------------------------------- checks, as src/main.cu

// |got - want| <= atol + rtol * |want| everywhere; prints the first mismatch.
template <class G>
bool compare(const char* kernel, const std::vector<G>& got, const std::vector<double>& want, double rtol, double atol) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(double(got[i]) - want[i]);
    if (!(d <= atol + rtol * std::fabs(want[i])) && bad++ == 0) first = i;
  }
  if (bad)
    std::printf("experts: FAILED: %s: %zu of %zu elements differ (rtol %g, atol %g); first at %zu: got %.9g, expected %.9g\n",
                kernel, bad, want.size(), rtol, atol, first, double(got[first]), want[first]);
  return bad == 0;
}

bool compareScalar(const char* kernel, double got, double want, double tol) {
  const bool right = std::fabs(got - want) <= tol;
  if (!right)
    std::printf("experts: FAILED: %s: got %.9g, expected %.9g (|error| %.3g > %.3g)\n", kernel, got, want,
                std::fabs(got - want), tol);
  return right;
}

// The sums' tolerance of src/main.cu: |got - exact| <= 1e-6 * n * max|term| (see reduceTol there).
double reduceTol(const std::vector<double>& terms) {
  double m = 0;
  for (double t : terms) m = std::max(m, std::fabs(t));
  return 1e-6 * double(terms.size()) * m;
}

// The naive kernels' sizes in src/main.cu (its Sizes, full and --quick).
struct Sizes {
  int n_elem, cols_bias, n_red, rows, row_cols, t_rows, t_cols, m, n, k, n_hist;
};

bool report(const char* kernel, bool right) {
  std::printf("mine\t%s\t%s\n", kernel, right ? "ok" : "FAIL");
  return right;
}

// ---------------------------------------------------------------- the experts

bool elementwise(const Sizes& s) {
  const int n = s.n_elem, cols = s.cols_bias;
  std::vector<float> hx = uniform(n, -1, 1, 11), hy = uniform(n, -1, 1, 12), hb = uniform(cols, -1, 1, 13);
  bool all = true;
  {  // saxpy, in place
    bool good = true;
    Buf<float> x(n, good), y(n, good);
    x.upload(hx);
    y.upload(hy);
    const float a = 2.0f;
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) want[i] = double(std::fma(a, hx[i], hy[i]));
    good = good && launched(launch_mine_saxpy(n, a, x.p, y.p), "mine_saxpy");
    all = report("mine_saxpy", good && compare("mine_saxpy", y.download(), want, 1e-5, 1e-6) && good) && all;
  }
  {  // relu: exact
    bool good = true;
    Buf<float> in(n, good), out(n, good);
    in.upload(hx);
    out.poison();
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) want[i] = hx[i] > 0 ? hx[i] : 0.0;
    good = good && launched(launch_mine_relu(n, in.p, out.p), "mine_relu");
    all = report("mine_relu", good && compare("mine_relu", out.download(), want, 0.0, 0.0) && good) && all;
  }
  {  // bias_gelu: erf GELU of (in + bias[col])
    bool good = true;
    Buf<float> in(n, good), bias(cols, good), out(n, good);
    in.upload(hx);
    bias.upload(hb);
    out.poison();
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) {
      float v = hx[i] + hb[i % cols];
      want[i] = 0.5 * double(v) * (1.0 + std::erf(double(v * 0.70710678f)));
    }
    good = good && launched(launch_mine_bias_gelu(n, cols, in.p, bias.p, out.p), "mine_bias_gelu");
    all = report("mine_bias_gelu", good && compare("mine_bias_gelu", out.download(), want, 1e-5, 1e-6) && good) && all;
  }
  return all;
}

bool reductions(const Sizes& s) {
  const int n = s.n_red;
  std::vector<float> hx = uniform(n, -1, 1, 21), hy = uniform(n, -1, 1, 22);
  bool all = true;
  {  // sum
    bool good = true;
    Buf<float> x(n, good), out(1, good);
    x.upload(hx);
    out.poison();
    std::vector<double> t(hx.begin(), hx.end());
    double want = 0;
    for (double v : t) want += v;
    good = good && launched(launch_mine_reduce_sum(n, x.p, out.p), "mine_reduce_sum");
    const double got = out.download()[0];
    all = report("mine_reduce_sum", good && compareScalar("mine_reduce_sum", got, want, reduceTol(t))) && all;
  }
  {  // dot
    bool good = true;
    Buf<float> x(n, good), y(n, good), out(1, good);
    x.upload(hx);
    y.upload(hy);
    out.poison();
    std::vector<double> t(n);
    double want = 0;
    for (int i = 0; i < n; ++i) want += (t[i] = double(hx[i]) * double(hy[i]));
    good = good && launched(launch_mine_reduce_dot(n, x.p, y.p, out.p), "mine_reduce_dot");
    const double got = out.download()[0];
    all = report("mine_reduce_dot", good && compareScalar("mine_reduce_dot", got, want, reduceTol(t))) && all;
  }
  {  // max: exact
    bool good = true;
    Buf<float> x(n, good), out(1, good);
    x.upload(hx);
    out.poison();
    const double want = *std::max_element(hx.begin(), hx.end());
    good = good && launched(launch_mine_reduce_max(n, x.p, out.p), "mine_reduce_max");
    const double got = out.download()[0];
    all = report("mine_reduce_max", good && compareScalar("mine_reduce_max", got, want, 0.0)) && all;
  }
  {  // sum, float4 loads
    bool good = true;
    Buf<float> x(n, good), out(1, good);
    x.upload(hx);
    out.poison();
    std::vector<double> t(hx.begin(), hx.end());
    double want = 0;
    for (double v : t) want += v;
    good = good && launched(launch_mine_reduce_sum_vec4(n, x.p, out.p), "mine_reduce_sum_vec4");
    const double got = out.download()[0];
    all = report("mine_reduce_sum_vec4", good && compareScalar("mine_reduce_sum_vec4", got, want, reduceTol(t))) && all;
  }
  {  // max, float4 loads: exact
    bool good = true;
    Buf<float> x(n, good), out(1, good);
    x.upload(hx);
    out.poison();
    const double want = *std::max_element(hx.begin(), hx.end());
    good = good && launched(launch_mine_reduce_max_vec4(n, x.p, out.p), "mine_reduce_max_vec4");
    const double got = out.download()[0];
    all = report("mine_reduce_max_vec4", good && compareScalar("mine_reduce_max_vec4", got, want, 0.0)) && all;
  }
  return all;
}

bool rows(const Sizes& s) {
  const int rows = s.rows, cols = s.row_cols;
  const size_t n = size_t(rows) * cols;
  std::vector<float> hin = uniform(n, -1, 1, 31), hg = uniform(cols, 0.5f, 1.5f, 32), hb = uniform(cols, -0.5f, 0.5f, 33);
  bool all = true;
  {  // softmax: rtol 1e-4, atol 1e-7
    bool good = true;
    Buf<float> in(n, good), out(n, good);
    in.upload(hin);
    out.poison();
    std::vector<double> want(n);
    for (int r = 0; r < rows; ++r) {
      const float* x = &hin[size_t(r) * cols];
      double m = x[0], sum = 0;
      for (int c = 1; c < cols; ++c) m = std::max(m, double(x[c]));
      for (int c = 0; c < cols; ++c) sum += std::exp(x[c] - m);
      for (int c = 0; c < cols; ++c) want[size_t(r) * cols + c] = std::exp(x[c] - m) / sum;
    }
    good = good && launched(launch_mine_softmax_rows(rows, cols, in.p, out.p), "mine_softmax_rows");
    all = report("mine_softmax_rows", good && compare("mine_softmax_rows", out.download(), want, 1e-4, 1e-7) && good) && all;
  }
  {  // layernorm, biased variance, eps 1e-5: rtol 1e-4, atol 1e-4
    bool good = true;
    const float eps = 1e-5f;
    Buf<float> in(n, good), gamma(cols, good), beta(cols, good), out(n, good);
    in.upload(hin);
    gamma.upload(hg);
    beta.upload(hb);
    out.poison();
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
    good = good && launched(launch_mine_layernorm_rows(rows, cols, eps, in.p, gamma.p, beta.p, out.p), "mine_layernorm_rows");
    all = report("mine_layernorm_rows", good && compare("mine_layernorm_rows", out.download(), want, 1e-4, 1e-4) && good) &&
          all;
  }
  return all;
}

bool transpose(const Sizes& s) {  // exact
  const int rows = s.t_rows, cols = s.t_cols;
  const size_t n = size_t(rows) * cols;
  std::vector<float> hin = uniform(n, -1, 1, 41);
  bool good = true;
  Buf<float> in(n, good), out(n, good);
  in.upload(hin);
  out.poison();
  std::vector<double> want(n);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) want[size_t(c) * rows + r] = hin[size_t(r) * cols + c];
  good = good && launched(launch_mine_transpose(rows, cols, in.p, out.p), "mine_transpose");
  return report("mine_transpose", good && compare("mine_transpose", out.download(), want, 0.0, 0.0) && good);
}

bool sgemm(const Sizes& s) {  // rtol 1e-3, atol 1e-3 against the double product, on 512 sampled elements
  const int M = s.m, N = s.n, K = s.k;
  std::vector<float> ha = uniform(size_t(M) * K, -1, 1, 51), hb = uniform(size_t(K) * N, -1, 1, 52);
  bool good = true;
  Buf<float> A(ha.size(), good), B(hb.size(), good), C(size_t(M) * N, good);
  A.upload(ha);
  B.upload(hb);
  C.poison();
  good = good && launched(launch_mine_sgemm(M, N, K, A.p, B.p, C.p), "mine_sgemm");
  const std::vector<float> hc = C.download();
  std::vector<float> got;
  std::vector<double> want;
  for (int t = 0; t < 512 && good; ++t) {
    const size_t i = splitmix(1000 + t) % M, j = splitmix(2000 + t) % N;
    double acc = 0;
    for (int k = 0; k < K; ++k) acc += double(ha[i * K + k]) * double(hb[size_t(k) * N + j]);
    got.push_back(hc[i * N + j]);
    want.push_back(acc);
  }
  return report("mine_sgemm", good && compare("mine_sgemm", got, want, 1e-3, 1e-3));
}

bool histogram(const Sizes& s) {  // exact counts
  const int n = s.n_hist;
  std::vector<unsigned char> hd(n);
  const uint64_t key = splitmix(61);
  // skewed toward low values (half the inputs in 16 bins), as src/main.cu: some bins are hot
  for (int i = 0; i < n; ++i) {
    uint64_t b = splitmix(key + uint64_t(i));
    hd[i] = (b >> 63) ? static_cast<unsigned char>(b & 15) : static_cast<unsigned char>(b & 255);
  }
  std::vector<double> want(256, 0.0);
  for (unsigned char v : hd) want[v] += 1;
  bool good = true;
  Buf<unsigned char> data(n, good);
  Buf<unsigned int> bins(256, good);
  data.upload(hd);
  bins.poison();
  good = good && launched(launch_mine_histogram(n, data.p, bins.p), "mine_histogram");
  return report("mine_histogram", good && compare("mine_histogram", bins.download(), want, 0.0, 0.0) && good);
}

}  // namespace

bool run_mine_experts(bool quick) {
  const Sizes s = quick ? Sizes{1 << 20, 2048, 1 << 20, 512, 2048, 250, 700, 256, 128, 96, 1 << 20}
                        : Sizes{1 << 26, 2048, 1 << 24, 4096, 2048, 2500, 7000, 1536, 1024, 768, 1 << 26};
  bool all = elementwise(s);
  all = reductions(s) && all;
  all = rows(s) && all;
  all = transpose(s) && all;
  all = sgemm(s) && all;
  all = histogram(s) && all;
  return all;
}
