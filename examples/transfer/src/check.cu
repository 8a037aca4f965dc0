// The transfer suite's test program: calls every launcher of include/transfer/transfer.h once, on
// deterministic pseudo-random inputs (fixed seeds) large enough that each kernel takes measurable
// time on an H100, checks each result against a CPU reference computed in double, prints one line
// per kernel and exits 1 if any result is wrong (2 on a CUDA error, 77 without a CUDA device).
//
// Tolerances (|got - want| <= tol, element by element; NaN never passes):
//   - exact (tol 0): data movement and integer results (transpose, gather, histogram, relu, argmax,
//     max, min, vector add, blur).
//   - a sum of terms t_k, in any order (sums, dot, scan, gemm, gemv, column sums, convolutions):
//     tol = 1e-4 * sqrt(sum t_k^2), the size of a random-sign sum of those terms. A float sum of
//     K terms in any reasonable order is off by about 2^-24 * sqrt(K) times that (two orders of
//     magnitude inside the bound here), while a term lost or counted twice is outside it. For the
//     scan the bound is 1e-5 times the running sum of |t_k| (Hillis-Steele adds each prefix in a
//     tree of depth log2(segment)). The double sum is held to 1e-10 instead of 1e-4.
//   - elementwise float formulas: a few ulps of the result's magnitude (see each test).
// Outputs the kernel must write in full are filled with NaN (all bits set) before the launch, so an
// element left unwritten fails; byte outputs are filled with 0xff and integer outputs with -1.
// The GEMMs and the convolutions are checked on a sample (every 8th / 64th row and the last row;
// the first and last 64 Ki outputs and every 61st in between) to keep the CPU time small.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "transfer/transfer.h"

namespace {

#define CUDA_CHECK(call)                                                                            \
  do {                                                                                              \
    cudaError_t err_ = (call);                                                                      \
    if (err_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(2);                                                                                 \
    }                                                                                               \
  } while (0)

// A launcher returns nothing: check the launch, then wait for the kernel and report its faults.
void finish(const char* what) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: CUDA error: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

// ---------------------------------------------------------------- inputs

// splitmix64: a fixed sequence for a fixed seed on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0xD1B54A32D192ED03ull + 1) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // uniform on a grid of 2^24 points in [lo, hi)
  float uniform(float lo, float hi) {
    const double u = double(next() >> 40) * (1.0 / 16777216.0);
    return float(double(lo) + u * (double(hi) - double(lo)));
  }
  double uniform_double(double lo, double hi) {
    const double u = double(next() >> 11) * (1.0 / 9007199254740992.0);
    return lo + u * (hi - lo);
  }
  uint32_t below(uint32_t n) { return uint32_t((next() >> 32) % n); }

 private:
  uint64_t state_;
};

std::vector<float> random_floats(size_t n, float lo, float hi, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  float* p = v.data();
  for (size_t i = 0; i < n; ++i) p[i] = rng.uniform(lo, hi);
  return v;
}

// ---------------------------------------------------------------- device buffers

// One allocation per array, sized to the call, freed at the end of the scope.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&p_, std::max<size_t>(n_, 1) * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return p_; }
  void upload(const std::vector<T>& h) {
    if (h.size() != n_) std::abort();
    CUDA_CHECK(cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  // all bits set: NaN for float and double, -1 for int, 0xff for bytes
  void poison() { CUDA_CHECK(cudaMemset(p_, 0xff, n_ * sizeof(T))); }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    CUDA_CHECK(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  T* p_ = nullptr;
  size_t n_;
};

// ---------------------------------------------------------------- checking

int g_failures = 0;

// Collects |got - want| <= tol for the checked elements of one kernel's output and prints one line.
class Check {
 public:
  Check(const char* kernel, std::string shape) : kernel_(kernel), shape_(std::move(shape)) {}

  void expect(size_t i, double got, double want, double tol) {
    ++checked_;
    const double err = std::fabs(got - want);
    if (!(err <= tol)) {
      if (bad_++ == 0) {
        first_ = i;
        first_got_ = got;
        first_want_ = want;
        first_tol_ = tol;
      }
      return;
    }
    if (tol > 0) worst_ = std::max(worst_, err / tol);
  }

  // Prints the line; returns whether every checked element passed.
  bool done() {
    const bool ok = bad_ == 0 && checked_ > 0;
    std::printf("%-26s %-30s %-4s checked %9zu  worst |err|/tol %.2e\n", kernel_, shape_.c_str(),
                ok ? "ok" : "FAIL", checked_, worst_);
    if (bad_)
      std::printf("    %zu of %zu differ; first at %zu: got %.9g, expected %.9g, tolerance %.3g\n", bad_,
                  checked_, first_, first_got_, first_want_, first_tol_);
    if (!ok) ++g_failures;
    return ok;
  }

 private:
  const char* kernel_;
  std::string shape_;
  size_t checked_ = 0, bad_ = 0, first_ = 0;
  double first_got_ = 0, first_want_ = 0, first_tol_ = 0, worst_ = 0;
};

std::string shape1(size_t n) { return "n=" + std::to_string(n); }
std::string shape2(size_t a, size_t b) { return std::to_string(a) + "x" + std::to_string(b); }

// Compensated (Neumaier) double sum, for the scalar references.
struct AccurateSum {
  double sum = 0, comp = 0;
  void add(double x) {
    const double t = sum + x;
    comp += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  double value() const { return sum + comp; }
};

constexpr double kSumRtol = 1e-4;  // sums of float terms, relative to sqrt(sum of squared terms)

// ---------------------------------------------------------------- reductions

void test_reduce_sum() {
  const int n = (1 << 24) + 7;
  std::vector<float> h = random_floats(n, -1.0f, 1.0f, 101);
  DeviceBuffer<float> in(n), out(1);
  in.upload(h);
  out.poison();
  reduce_sum(in.get(), out.get(), n, 256);
  finish("reduce_sum");
  AccurateSum want;
  double sq = 0;
  for (int i = 0; i < n; ++i) {
    want.add(h[i]);
    sq += double(h[i]) * h[i];
  }
  Check c("block_reduce_sum", shape1(n));
  c.expect(0, out.download()[0], want.value(), kSumRtol * std::sqrt(sq));
  c.done();
}

void test_dot() {
  const int n = 1 << 24;
  std::vector<float> ha = random_floats(n, -1.0f, 1.0f, 102), hb = random_floats(n, -1.0f, 1.0f, 103);
  DeviceBuffer<float> a(n), b(n), out(1);
  a.upload(ha);
  b.upload(hb);
  out.poison();
  dot_product(a.get(), b.get(), out.get(), n);
  finish("dot_product");
  AccurateSum want;
  double sq = 0;
  for (int i = 0; i < n; ++i) {
    const double t = double(ha[i]) * hb[i];
    want.add(t);
    sq += t * t;
  }
  Check c("dot_kernel", shape1(n));
  c.expect(0, out.download()[0], want.value(), kSumRtol * std::sqrt(sq));
  c.done();
}

void test_max_int() {
  const unsigned int n = (1u << 24) + 100;
  Rng rng(104);
  std::vector<int> h(n);
  for (unsigned int i = 0; i < n; ++i) h[i] = int(uint32_t(rng.next() >> 32));
  DeviceBuffer<int> in(n), out(1);
  in.upload(h);
  out.poison();
  max_int(in.get(), out.get(), n);
  finish("max_int");
  int want = INT_MIN;
  for (unsigned int i = 0; i < n; ++i) want = std::max(want, h[i]);
  Check c("reduce_max_int", shape1(n));
  c.expect(0, out.download()[0], want, 0.0);
  c.done();
}

void test_min_float() {
  const int n = (1 << 24) - 3;
  std::vector<float> h = random_floats(n, -1000.0f, 1000.0f, 105);
  const int parts = min_float_workspace(n);
  DeviceBuffer<float> in(n), partial(parts), out(1);
  in.upload(h);
  partial.poison();
  out.poison();
  min_float(in.get(), partial.get(), out.get(), n);
  finish("min_float");
  float want = h[0];
  for (int i = 1; i < n; ++i) want = std::min(want, h[i]);
  Check c("min_partial+min_final", shape1(n));
  c.expect(0, out.download()[0], want, 0.0);
  c.done();
}

void test_sum_template() {
  {
    const size_t n = (size_t(1) << 24) + 1;
    std::vector<float> h = random_floats(n, -1.0f, 1.0f, 106);
    DeviceBuffer<float> in(n), out(1);
    in.upload(h);
    out.poison();
    sum_f32(in.get(), out.get(), n);
    finish("sum_f32");
    AccurateSum want;
    double sq = 0;
    for (size_t i = 0; i < n; ++i) {
      want.add(h[i]);
      sq += double(h[i]) * h[i];
    }
    Check c("sum_kernel<float>", shape1(n));
    c.expect(0, out.download()[0], want.value(), kSumRtol * std::sqrt(sq));
    c.done();
  }
  {
    const size_t n = (size_t(1) << 23) + 3;
    Rng rng(107);
    std::vector<double> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = rng.uniform_double(-1.0, 1.0);
    DeviceBuffer<double> in(n), out(1);
    in.upload(h);
    out.poison();
    sum_f64(in.get(), out.get(), n);
    finish("sum_f64");
    AccurateSum want;
    double sq = 0;
    for (size_t i = 0; i < n; ++i) {
      want.add(h[i]);
      sq += h[i] * h[i];
    }
    Check c("sum_kernel<double>", shape1(n));
    c.expect(0, out.download()[0], want.value(), 1e-10 * std::sqrt(sq));
    c.done();
  }
}

// ---------------------------------------------------------------- scan

void test_scan() {
  const int segs = 16384, len = 1024;
  const size_t n = size_t(segs) * len;
  std::vector<float> h = random_floats(n, -1.0f, 1.0f, 201);
  DeviceBuffer<float> in(n), out(n);
  in.upload(h);
  out.poison();
  scan_segments_inclusive(in.get(), out.get(), segs, len);
  finish("scan_segments_inclusive");
  std::vector<float> got = out.download();
  Check c("scan_segments_hs", shape2(segs, len));
  for (int s = 0; s < segs; ++s) {
    const float* x = h.data() + size_t(s) * len;
    const float* g = got.data() + size_t(s) * len;
    double run = 0, run_abs = 0;
    for (int i = 0; i < len; ++i) {
      run += x[i];
      run_abs += std::fabs(x[i]);
      c.expect(size_t(s) * len + i, g[i], run, 1e-5 * run_abs);
    }
  }
  c.done();
}

// ---------------------------------------------------------------- rows

void test_softmax() {
  const int N = 8192, C = 1024;
  const size_t n = size_t(N) * C;
  std::vector<float> h = random_floats(n, -4.0f, 4.0f, 301);
  DeviceBuffer<float> in(n), out(n);
  in.upload(h);
  out.poison();
  softmax_forward(out.get(), in.get(), N, C, 128);
  finish("softmax_forward");
  std::vector<float> got = out.download();
  Check c("softmax_forward_kernel", shape2(N, C));
  for (int r = 0; r < N; ++r) {
    const float* x = h.data() + size_t(r) * C;
    const float* g = got.data() + size_t(r) * C;
    double m = x[0], sum = 0;
    for (int j = 1; j < C; ++j) m = std::max(m, double(x[j]));
    for (int j = 0; j < C; ++j) sum += std::exp(x[j] - m);
    for (int j = 0; j < C; ++j) {
      const double want = std::exp(x[j] - m) / sum;
      c.expect(size_t(r) * C + j, g[j], want, 1e-4 * want);
    }
  }
  c.done();
}

void test_layernorm() {
  const int N = 8192, C = 1024;
  const size_t n = size_t(N) * C;
  std::vector<float> h = random_floats(n, -2.0f, 3.0f, 311), hw = random_floats(C, 0.5f, 1.5f, 312),
                     hb = random_floats(C, -0.5f, 0.5f, 313);
  DeviceBuffer<float> in(n), weight(C), bias(C), out(n), mean(N), rstd(N);
  in.upload(h);
  weight.upload(hw);
  bias.upload(hb);
  out.poison();
  mean.poison();
  rstd.poison();
  layernorm_forward(out.get(), mean.get(), rstd.get(), in.get(), weight.get(), bias.get(), N, C, 128);
  finish("layernorm_forward");
  std::vector<float> got = out.download(), got_mean = mean.download(), got_rstd = rstd.download();
  const double eps = double(1e-5f);  // the kernel's eps, a float
  Check c("layernorm_forward_kernel", shape2(N, C) + " (out)");
  Check cm("layernorm_forward_kernel", shape2(N, C) + " (mean)");
  Check cr("layernorm_forward_kernel", shape2(N, C) + " (rstd)");
  for (int r = 0; r < N; ++r) {
    const float* x = h.data() + size_t(r) * C;
    const float* g = got.data() + size_t(r) * C;
    double mu = 0, mean_abs = 0, var = 0;
    for (int j = 0; j < C; ++j) {
      mu += x[j];
      mean_abs += std::fabs(x[j]);
    }
    mu /= C;
    mean_abs /= C;
    for (int j = 0; j < C; ++j) var += (x[j] - mu) * (x[j] - mu);
    var /= C;
    const double s = 1.0 / std::sqrt(var + eps);
    cm.expect(r, got_mean[r], mu, 1e-4 * mean_abs);
    cr.expect(r, got_rstd[r], s, 1e-4 * s);
    for (int j = 0; j < C; ++j) {
      const double norm = (x[j] - mu) * s;
      const double want = norm * hw[j] + hb[j];
      c.expect(size_t(r) * C + j, g[j], want, 1e-4 * (std::fabs(norm * hw[j]) + std::fabs(hb[j])) + 1e-6);
    }
  }
  c.done();
  cm.done();
  cr.done();
}

void test_argmax() {
  const int rows = 8192, cols = 1024;
  const size_t n = size_t(rows) * cols;
  std::vector<float> h = random_floats(n, -1.0f, 1.0f, 321);
  DeviceBuffer<float> in(n), vmax(rows);
  DeviceBuffer<int> idx(rows);
  in.upload(h);
  vmax.poison();
  idx.poison();
  row_argmax(in.get(), vmax.get(), idx.get(), rows, cols);
  finish("row_argmax");
  std::vector<float> got_max = vmax.download();
  std::vector<int> got_idx = idx.download();
  Check c("row_max_argmax", shape2(rows, cols) + " (max, index)");
  for (int r = 0; r < rows; ++r) {
    const float* x = h.data() + size_t(r) * cols;
    int best = 0;
    for (int j = 1; j < cols; ++j)
      if (x[j] > x[best]) best = j;  // the first column holding the maximum
    c.expect(r, got_max[r], x[best], 0.0);
    c.expect(r, got_idx[r], best, 0.0);
  }
  c.done();
}

void test_column_sum() {
  const int height = 4096, width = 4096;
  const size_t n = size_t(height) * width;
  std::vector<float> h = random_floats(n, -1.0f, 1.0f, 331);
  DeviceBuffer<float> in(n), out(width);
  in.upload(h);
  out.poison();
  column_sum(in.get(), out.get(), height, width);
  finish("column_sum");
  std::vector<float> got = out.download();
  std::vector<double> sum(width, 0.0), sq(width, 0.0);
  for (int r = 0; r < height; ++r) {
    const float* x = h.data() + size_t(r) * width;
    for (int j = 0; j < width; ++j) {
      sum[j] += x[j];
      sq[j] += double(x[j]) * x[j];
    }
  }
  Check c("column_sums", shape2(height, width));
  for (int j = 0; j < width; ++j) c.expect(j, got[j], sum[j], kSumRtol * std::sqrt(sq[j]));
  c.done();
}

// ---------------------------------------------------------------- 2-D

void test_transpose() {
  const int w = 4096, h = 3000;  // h is not a multiple of the block's 8 rows
  const size_t n = size_t(w) * h;
  std::vector<float> hin = random_floats(n, -1.0f, 1.0f, 401);
  DeviceBuffer<float> in(n), out(n);
  in.upload(hin);
  out.poison();
  transpose(out.get(), in.get(), w, h);
  finish("transpose");
  std::vector<float> got = out.download();
  Check c("transpose_naive_kernel", shape2(h, w));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t o = size_t(x) * h + y;
      c.expect(o, got[o], hin[size_t(y) * w + x], 0.0);
    }
  c.done();
}

void test_laplacian() {
  const int nx = 4096, ny = 4096;
  const size_t n = size_t(nx) * ny;
  const float inv_h2 = float(nx) * float(nx);  // h = 1 / nx
  std::vector<float> hin = random_floats(n, -1.0f, 1.0f, 411);
  DeviceBuffer<float> in(n), out(n);
  in.upload(hin);
  out.poison();
  laplacian_2d(in.get(), out.get(), nx, ny, inv_h2);
  finish("laplacian_2d");
  std::vector<float> got = out.download();
  const float* u = hin.data();
  Check c("laplacian5", shape2(ny, nx));
  for (int row = 0; row < ny; ++row)
    for (int col = 0; col < nx; ++col) {
      const size_t p = size_t(row) * nx + col;
      if (row == 0 || row == ny - 1 || col == 0 || col == nx - 1) {
        c.expect(p, got[p], 0.0, 0.0);
        continue;
      }
      const double w = u[p - 1], e = u[p + 1], s = u[p - nx], nn = u[p + nx], ctr = u[p];
      const double want = (w + e + s + nn - 4.0 * ctr) * inv_h2;
      const double scale = (std::fabs(w) + std::fabs(e) + std::fabs(s) + std::fabs(nn) + 4.0 * std::fabs(ctr)) * inv_h2;
      c.expect(p, got[p], want, 1e-5 * scale);
    }
  c.done();
}

void test_blur() {
  const int w = 3840, h = 2160;
  const size_t n = size_t(w) * h;
  Rng rng(421);
  std::vector<unsigned char> img(n);
  for (size_t i = 0; i < n; ++i) img[i] = (unsigned char)(rng.next() >> 56);
  DeviceBuffer<unsigned char> in(n), out(n);
  in.upload(img);
  out.poison();
  box_blur(in.get(), out.get(), w, h);
  finish("box_blur");
  std::vector<unsigned char> got = out.download();
  Check c("box_blur_kernel", shape2(h, w));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int sum = 0, count = 0;
      for (int yy = std::max(y - 1, 0); yy <= std::min(y + 1, h - 1); ++yy)
        for (int xx = std::max(x - 1, 0); xx <= std::min(x + 1, w - 1); ++xx) {
          sum += img[size_t(yy) * w + xx];
          ++count;
        }
      const size_t p = size_t(y) * w + x;
      c.expect(p, got[p], sum / count, 0.0);
    }
  c.done();
}

void test_sgemm() {
  const size_t M = 1024, N = 1024, K = 1024;
  const float alpha = 1.5f, beta = -0.5f;
  std::vector<float> ha = random_floats(M * K, -1.0f, 1.0f, 431), hb = random_floats(K * N, -1.0f, 1.0f, 432),
                     hc = random_floats(M * N, -1.0f, 1.0f, 433);
  DeviceBuffer<float> A(M * K), B(K * N), C(M * N);
  A.upload(ha);
  B.upload(hb);
  C.upload(hc);  // an input too (beta != 0): every element read is also written
  sgemm(M, N, K, alpha, A.get(), B.get(), beta, C.get());
  finish("sgemm");
  std::vector<float> got = C.download();
  Check c("gemm_naive", shape2(M, N) + "x" + std::to_string(K) + " (rows %8)");
  std::vector<double> acc(N), sq(N);
  for (size_t i = 0; i < M; ++i) {
    if (i % 8 != 0 && i != M - 1) continue;
    std::fill(acc.begin(), acc.end(), 0.0);
    std::fill(sq.begin(), sq.end(), 0.0);
    for (size_t k = 0; k < K; ++k) {
      const double a = ha[i * K + k];
      const float* b = hb.data() + k * N;
      for (size_t j = 0; j < N; ++j) {
        const double t = a * b[j];
        acc[j] += t;
        sq[j] += t * t;
      }
    }
    for (size_t j = 0; j < N; ++j) {
      const double cij = hc[i * N + j];
      const double want = alpha * acc[j] + beta * cij;
      const double tol = kSumRtol * std::fabs(alpha) * std::sqrt(sq[j]) + 1e-6 * std::fabs(beta * cij);
      c.expect(i * N + j, got[i * N + j], want, tol);
    }
  }
  c.done();
}

void test_linear() {
  const int BT = 4096, C = 768, OC = 3 * 768;
  std::vector<float> hx = random_floats(size_t(BT) * C, -1.0f, 1.0f, 441),
                     hw = random_floats(size_t(OC) * C, -0.05f, 0.05f, 442), hb = random_floats(OC, -0.1f, 0.1f, 443);
  DeviceBuffer<float> inp(size_t(BT) * C), weight(size_t(OC) * C), bias(OC), out(size_t(BT) * OC);
  inp.upload(hx);
  weight.upload(hw);
  bias.upload(hb);
  out.poison();
  linear_forward(out.get(), inp.get(), weight.get(), bias.get(), BT, C, OC, 16);
  finish("linear_forward");
  std::vector<float> got = out.download();
  Check c("linear_forward_nt", shape2(BT, C) + " -> " + std::to_string(OC) + " (rows %64)");
  for (int t = 0; t < BT; ++t) {
    if (t % 64 != 0 && t != BT - 1) continue;
    const float* x = hx.data() + size_t(t) * C;
    for (int o = 0; o < OC; ++o) {
      const float* w = hw.data() + size_t(o) * C;
      double want = hb[o], sq = double(hb[o]) * hb[o];
      for (int k = 0; k < C; ++k) {
        const double term = double(x[k]) * w[k];
        want += term;
        sq += term * term;
      }
      const size_t p = size_t(t) * OC + o;
      c.expect(p, got[p], want, kSumRtol * std::sqrt(sq));
    }
  }
  c.done();
}

// ---------------------------------------------------------------- elementwise

void test_gelu() {
  const int n = (1 << 24) + 5;
  std::vector<float> h = random_floats(n, -5.0f, 5.0f, 501);
  DeviceBuffer<float> in(n), out(n);
  in.upload(h);
  out.poison();
  gelu_forward(out.get(), in.get(), n, 256);
  finish("gelu_forward");
  std::vector<float> got = out.download();
  const double k = std::sqrt(2.0 / 3.14159265358979323846);
  Check c("gelu_tanh_kernel", shape1(n));
  for (int i = 0; i < n; ++i) {
    const double x = h[i];
    const double want = 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
    // tanhf is good to a few ulps of 1 near +-1, which 1 + tanh turns into an absolute error
    c.expect(i, got[i], want, 1e-5 * std::fabs(want) + 1e-6 * std::fabs(x));
  }
  c.done();
}

void test_axpy() {
  const long n = (1L << 24) + 3;
  const float alpha = -1.25f;
  std::vector<float> hx = random_floats(n, -1.0f, 1.0f, 511), hy = random_floats(n, -1.0f, 1.0f, 512);
  DeviceBuffer<float> x(n), y(n);
  x.upload(hx);
  y.upload(hy);
  axpy(n, alpha, x.get(), y.get());
  finish("axpy");
  std::vector<float> got = y.download();
  Check c("axpy_kernel", shape1(n));
  for (long i = 0; i < n; ++i) {
    const double ax = double(alpha) * hx[i];
    c.expect(i, got[i], ax + hy[i], 1e-6 * (std::fabs(ax) + std::fabs(hy[i])));
  }
  c.done();
}

void test_relu() {
  const int n = (1 << 24) - 5;
  std::vector<float> h = random_floats(n, -1.0f, 1.0f, 521);
  DeviceBuffer<float> data(n);
  data.upload(h);
  relu_inplace(data.get(), n);
  finish("relu_inplace");
  std::vector<float> got = data.download();
  Check c("relu_inplace_kernel", shape1(n));
  for (int i = 0; i < n; ++i) c.expect(i, got[i], h[i] < 0.0f ? 0.0 : double(h[i]), 0.0);
  c.done();
}

void test_bias_residual() {
  const int rows = 8192, cols = 1024;
  const size_t n = size_t(rows) * cols;
  std::vector<float> hi = random_floats(n, -1.0f, 1.0f, 531), hr = random_floats(n, -1.0f, 1.0f, 532),
                     hb = random_floats(cols, -0.5f, 0.5f, 533);
  DeviceBuffer<float> inp(n), res(n), bias(cols), out(n);
  inp.upload(hi);
  res.upload(hr);
  bias.upload(hb);
  out.poison();
  add_bias_residual(out.get(), inp.get(), bias.get(), res.get(), rows, cols);
  finish("add_bias_residual");
  std::vector<float> got = out.download();
  Check c("bias_residual_add_kernel", shape2(rows, cols));
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < cols; ++j) {
      const size_t p = size_t(r) * cols + j;
      const double a = hi[p], b = hb[j], e = hr[p];
      c.expect(p, got[p], a + b + e, 1e-6 * (std::fabs(a) + std::fabs(b) + std::fabs(e)));
    }
  c.done();
}

void test_scale_clip() {
  const int n = 1 << 24;
  const float scale = 40000.0f;  // inputs in [-3, 3): about half the products exceed 65504
  std::vector<float> h = random_floats(n, -3.0f, 3.0f, 541);
  DeviceBuffer<float> in(n), out(n);
  in.upload(h);
  out.poison();
  scale_clip_half_range(in.get(), out.get(), scale, n);
  finish("scale_clip_half_range");
  std::vector<float> got = out.download();
  Check c("scale_clip_kernel", shape1(n));
  for (int i = 0; i < n; ++i) {
    const double want = std::min(std::max(double(h[i]) * scale, -65504.0), 65504.0);
    c.expect(i, got[i], want, 1e-7 * std::fabs(want));  // one float rounding of the product
  }
  c.done();
}

void test_vector_add() {
  const int n = 1 << 24;
  std::vector<float> ha = random_floats(n, -1.0f, 1.0f, 551), hb = random_floats(n, -1.0f, 1.0f, 552);
  DeviceBuffer<float> a(n), b(n), out(n);
  a.upload(ha);
  b.upload(hb);
  out.poison();
  vector_add(a.get(), b.get(), out.get(), n);
  finish("vector_add");
  std::vector<float> got = out.download();
  Check c("vecAdd", shape1(n));
  for (int i = 0; i < n; ++i) c.expect(i, got[i], ha[i] + hb[i], 0.0);  // the float sum, rounded once
  c.done();
}

// ---------------------------------------------------------------- other

void test_gemv() {
  const int m = 16384, n = 2048;
  std::vector<float> hA = random_floats(size_t(m) * n, -1.0f, 1.0f, 601), hx = random_floats(n, -1.0f, 1.0f, 602);
  DeviceBuffer<float> A(size_t(m) * n), x(n), y(m);
  A.upload(hA);
  x.upload(hx);
  y.poison();
  gemv(m, n, A.get(), x.get(), y.get());
  finish("gemv");
  std::vector<float> got = y.download();
  Check c("gemv_row_kernel", shape2(m, n));
  for (int r = 0; r < m; ++r) {
    const float* a = hA.data() + size_t(r) * n;
    double want = 0, sq = 0;
    for (int j = 0; j < n; ++j) {
      const double t = double(a[j]) * hx[j];
      want += t;
      sq += t * t;
    }
    c.expect(r, got[r], want, kSumRtol * std::sqrt(sq));
  }
  c.done();
}

// Checks out[i] = sum_k taps[k] * in[i + k - ntaps / 2] on the first and last 64 Ki outputs and
// every 61st one in between.
void check_conv(const char* kernel, const std::vector<float>& got, const std::vector<float>& in,
                const std::vector<float>& taps) {
  const long n = long(in.size()), nt = long(taps.size()), r = nt / 2, edge = 65536;
  Check c(kernel, shape1(n) + ", " + std::to_string(nt) + " taps");
  for (long i = 0; i < n; ++i) {
    if (i >= edge && i < n - edge && i % 61 != 0) continue;
    double want = 0, sq = 0;
    for (long k = 0; k < nt; ++k) {
      const long j = i + k - r;
      if (j < 0 || j >= n) continue;
      const double t = double(taps[k]) * in[j];
      want += t;
      sq += t * t;
    }
    c.expect(i, got[i], want, kSumRtol * std::sqrt(sq));
  }
  c.done();
}

void test_conv1d() {
  const int n = 1 << 24, ntaps = 31;
  std::vector<float> h = random_floats(n, -1.0f, 1.0f, 611), taps = random_floats(ntaps, -0.1f, 0.1f, 612);
  DeviceBuffer<float> in(n), out(n), dtaps(ntaps);
  in.upload(h);
  dtaps.upload(taps);

  out.poison();
  conv1d_constant(in.get(), out.get(), taps.data(), n);
  finish("conv1d_constant");
  check_conv("conv1d_const_kernel", out.download(), h, taps);

  out.poison();
  conv1d(in.get(), dtaps.get(), out.get(), n, ntaps);
  finish("conv1d");
  check_conv("conv1d_kernel", out.download(), h, taps);
}

void test_histogram() {
  const long size = (1L << 24) + 123;
  Rng rng(621);
  std::vector<unsigned char> h(size);
  for (long i = 0; i < size; ++i) h[i] = (unsigned char)(rng.next() >> 56);
  DeviceBuffer<unsigned char> buf(size);
  DeviceBuffer<unsigned int> bins(256);
  buf.upload(h);
  bins.poison();
  histogram256(buf.get(), size, bins.get());
  finish("histogram256");
  std::vector<unsigned int> got = bins.download();
  std::vector<long> want(256, 0);
  for (long i = 0; i < size; ++i) ++want[h[i]];
  Check c("histo_kernel", shape1(size) + ", 256 bins");
  for (int b = 0; b < 256; ++b) c.expect(b, got[b], double(want[b]), 0.0);
  c.done();
}

void test_gather() {
  const size_t n = size_t(1) << 24, src_n = size_t(1) << 22;
  std::vector<float> hsrc = random_floats(src_n, -1.0f, 1.0f, 631);
  std::vector<int> hidx(n);
  Rng rng(632);
  for (size_t i = 0; i < n; ++i) hidx[i] = int(rng.below(uint32_t(src_n)));
  DeviceBuffer<float> src(src_n), dst(n);
  DeviceBuffer<int> idx(n);
  src.upload(hsrc);
  idx.upload(hidx);
  dst.poison();
  gather(dst.get(), src.get(), idx.get(), n);
  finish("gather");
  std::vector<float> got = dst.download();
  Check c("gather_kernel", shape1(n) + " from " + std::to_string(src_n));
  for (size_t i = 0; i < n; ++i) c.expect(i, got[i], hsrc[hidx[i]], 0.0);
  c.done();
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "transfer_check: no CUDA device; nothing was run\n");
    return 77;
  }

  test_reduce_sum();
  test_dot();
  test_max_int();
  test_min_float();
  test_sum_template();
  test_scan();
  test_softmax();
  test_layernorm();
  test_argmax();
  test_column_sum();
  test_transpose();
  test_laplacian();
  test_blur();
  test_sgemm();
  test_linear();
  test_gelu();
  test_axpy();
  test_relu();
  test_bias_residual();
  test_scale_clip();
  test_vector_add();
  test_gemv();
  test_conv1d();
  test_histogram();
  test_gather();

  if (g_failures) {
    std::printf("transfer: %d check(s) FAILED\n", g_failures);
    return 1;
  }
  std::printf("transfer: every kernel matches its reference\n");
  return 0;
}
