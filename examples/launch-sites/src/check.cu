// The launch-sites example's test program: calls each launcher on a few sizes (the first one large
// enough that the kernel takes measurable time), checks every result against a CPU reference in
// double, prints one line per kernel and exits 1 on a mismatch. `ninja optimize` captures these
// launches and gates every variant on them.
//
// Tolerances: the transpose moves floats, so it must be exact; the other results are compared
// normwise (||got - want|| / ||want||, in double) against 1e-5, so reordered float sums (a tiled
// GEMM, a warp-per-row softmax) still pass; the sum is of small integers, exact in float in any
// order, and is held to 1e-6 of itself. Buffers the kernel should write are filled with NaN first,
// so an element left unwritten fails.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "launch_sites.h"

namespace {

#define CHECK_CUDA(call)                                                                          \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

// A launcher returns nothing: check the launch, then wait for the kernel (and report its faults).
void finish_launch(const char* what) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// Deterministic pseudo-random values in [-scale, scale): xorshift32, 24 bits per value.
std::vector<float> random_floats(size_t n, uint32_t seed, float scale = 1.0f) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 0x9e3779b9u;
  if (s == 0) s = 1;
  for (auto& e : v) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    e = scale * (static_cast<float>(s >> 8) * (2.0f / 16777216.0f) - 1.0f);
  }
  return v;
}

// A device array of n floats, freed at the end of the scope. One allocation per array, sized to the
// call, so that a captured launch snapshots only what it uses.
class DeviceArray {
 public:
  explicit DeviceArray(size_t n) : n_(n) { CHECK_CUDA(cudaMalloc(&p_, bytes())); }
  ~DeviceArray() { cudaFree(p_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  float* get() const { return p_; }
  size_t bytes() const { return n_ * sizeof(float); }
  void upload(const std::vector<float>& h) {
    if (h.size() != n_) std::abort();
    CHECK_CUDA(cudaMemcpy(p_, h.data(), bytes(), cudaMemcpyHostToDevice));
  }
  void fill_nan() { CHECK_CUDA(cudaMemset(p_, 0xff, bytes())); }  // 0xffffffff is a NaN
  std::vector<float> download() const {
    std::vector<float> h(n_);
    CHECK_CUDA(cudaMemcpy(h.data(), p_, bytes(), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  float* p_ = nullptr;
  size_t n_;
};

// ||got - want|| / ||want||; infinite when got holds a NaN or an infinity.
double normwise_error(const std::vector<float>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) std::abort();
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    const double d = got[i] - want[i];
    num += d * d;
    den += want[i] * want[i];
  }
  if (den == 0) return num == 0 ? 0 : INFINITY;
  return std::sqrt(num / den);
}

// One kernel's calls: the sizes it ran on, its worst error, and whether every call passed.
struct Result {
  Result(const char* kernel_, const char* measure_, double tolerance_)
      : kernel(kernel_), measure(measure_), tolerance(tolerance_) {}

  const char* kernel;
  const char* measure;  // what `worst` is
  double tolerance;
  std::string sizes;
  double worst = 0;
  bool ok = true;

  void add(const std::string& size, double error) {
    sizes += (sizes.empty() ? "" : ", ") + size;
    const bool pass = error <= tolerance;  // false for NaN
    if (!pass) {
      std::printf("  %s %s: %s %.3g, above %.3g\n", kernel, size.c_str(), measure, error, tolerance);
      ok = false;
    }
    if (!(error <= worst)) worst = error;  // keeps a NaN or an infinity
  }
  void print() const {
    std::printf("%-12s %-5s worst %s %-9.3g on %s\n", kernel, ok ? "ok" : "WRONG", measure, worst,
                sizes.c_str());
  }
};

std::string dims(int a, int b) { return std::to_string(a) + "x" + std::to_string(b); }
std::string dims(int a, int b, int c) { return dims(a, b) + "x" + std::to_string(c); }

// ---------------------------------------------------------------------------------------------
// transpose: every element of out must be the float of in it was copied from, bit for bit.
void check_transpose(Result& res, int rows, int cols, uint32_t seed) {
  const size_t n = static_cast<size_t>(rows) * cols;
  const std::vector<float> h = random_floats(n, seed);
  DeviceArray in(n), out(n);
  in.upload(h);
  out.fill_nan();
  transpose(in.get(), out.get(), rows, cols);
  finish_launch("transpose");
  const std::vector<float> got = out.download();
  size_t wrong = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (!(got[static_cast<size_t>(c) * rows + r] == h[static_cast<size_t>(r) * cols + c])) ++wrong;
  res.add(dims(rows, cols), static_cast<double>(wrong));
}

// sgemm: C = alpha * A * B + beta * C0, checked on every row_step-th row of C (and its last row),
// all columns: the full reference of a 1024^3 product would take seconds on the CPU.
void check_sgemm(Result& res, int M, int N, int K, float alpha, float beta, int row_step,
                 uint32_t seed) {
  const size_t mk = static_cast<size_t>(M) * K, kn = static_cast<size_t>(K) * N,
               mn = static_cast<size_t>(M) * N;
  const std::vector<float> a = random_floats(mk, seed), b = random_floats(kn, seed + 1),
                           c0 = random_floats(mn, seed + 2);
  DeviceArray dA(mk), dB(kn), dC(mn);
  dA.upload(a);
  dB.upload(b);
  dC.upload(c0);
  sgemm(M, N, K, alpha, dA.get(), dB.get(), beta, dC.get());
  finish_launch("sgemm");
  const std::vector<float> c = dC.download();

  std::vector<float> got;
  std::vector<double> want;
  std::vector<int> rows_checked;
  for (int r = 0; r < M; r += row_step) rows_checked.push_back(r);
  if (rows_checked.back() != M - 1) rows_checked.push_back(M - 1);
  std::vector<double> acc(N);
  for (int r : rows_checked) {
    for (auto& e : acc) e = 0;
    for (int k = 0; k < K; ++k) {
      const double x = a[static_cast<size_t>(r) * K + k];
      const float* brow = &b[static_cast<size_t>(k) * N];
      for (int j = 0; j < N; ++j) acc[j] += x * brow[j];
    }
    for (int j = 0; j < N; ++j) {
      const size_t p = static_cast<size_t>(r) * N + j;
      got.push_back(c[p]);
      want.push_back(double(alpha) * acc[j] + double(beta) * c0[p]);
    }
  }
  std::string size = dims(M, N, K);
  if (row_step > 1) size += " (rows %" + std::to_string(row_step) + ")";
  res.add(size, normwise_error(got, want));
}

// stencil: the interior against the reference, and the boundary of out exactly as it was.
void check_stencil(Result& res, int nx, int ny, float alpha, uint32_t seed) {
  const size_t n = static_cast<size_t>(nx) * ny;
  const std::vector<float> h = random_floats(n, seed);
  DeviceArray in(n), out(n);
  in.upload(h);
  CHECK_CUDA(cudaMemset(out.get(), 0, out.bytes()));  // the boundary stays 0
  stencil(in.get(), out.get(), nx, ny, alpha);
  finish_launch("stencil");
  const std::vector<float> got = out.download();
  std::vector<double> want(n, 0.0);
  size_t boundary_changed = 0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const size_t p = static_cast<size_t>(j) * nx + i;
      if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
        if (!(got[p] == 0.0f)) ++boundary_changed;
        continue;
      }
      const double lap = double(h[p - 1]) + h[p + 1] + h[p - nx] + h[p + nx] - 4.0 * h[p];
      want[p] = h[p] + double(alpha) * lap;
    }
  const double err = normwise_error(got, want);
  if (boundary_changed)
    std::printf("  stencil %s: %zu boundary points written\n", dims(nx, ny).c_str(), boundary_changed);
  res.add(dims(nx, ny), boundary_changed ? INFINITY : err);
}

// row_softmax: every row of out against the softmax of its row, in double.
void check_row_softmax(Result& res, int rows, int cols, int block_size, uint32_t seed) {
  const size_t n = static_cast<size_t>(rows) * cols;
  const std::vector<float> h = random_floats(n, seed, 4.0f);
  DeviceArray in(n), out(n);
  in.upload(h);
  out.fill_nan();
  row_softmax(in.get(), out.get(), rows, cols, block_size);
  finish_launch("row_softmax");
  const std::vector<float> got = out.download();
  std::vector<double> want(n);
  for (int r = 0; r < rows; ++r) {
    const float* x = &h[static_cast<size_t>(r) * cols];
    double* y = &want[static_cast<size_t>(r) * cols];
    double m = x[0];
    for (int c = 1; c < cols; ++c) m = std::fmax(m, double(x[c]));
    double s = 0;
    for (int c = 0; c < cols; ++c) s += y[c] = std::exp(x[c] - m);
    for (int c = 0; c < cols; ++c) y[c] /= s;
  }
  res.add(dims(rows, cols), normwise_error(got, want));
}

// reduce_sum: the input is odd integers in [-7, 7], so every partial sum (a block's, the running
// total's: far below 2^24 here) is exact in float, whatever order a kernel adds them in: the result
// must then be the exact sum, and a dropped or doubled element changes it by at least 1. The test
// is still written as a relative tolerance (|got - sum| <= 1e-6 |sum|), which an exact result meets.
void check_reduce(Result& res, int n, int threads, uint32_t seed) {
  std::vector<float> h = random_floats(static_cast<size_t>(n), seed);
  for (auto& e : h) e = 2.0f * std::floor(4.0f * (e + 1.0f)) - 7.0f;  // [-1, 1) -> -7, -5, .., 5, 7
  DeviceArray in(static_cast<size_t>(n)), out(1);
  in.upload(h);
  out.fill_nan();  // the launcher zeroes it
  reduce_sum(in.get(), out.get(), n, threads);
  finish_launch("reduce_sum");
  const float got = out.download()[0];
  double sum = 0;
  for (float x : h) sum += x;
  double err = std::fabs(double(got) - sum);  // NaN if got is
  if (sum != 0) err /= std::fabs(sum);
  else if (err != 0) err = INFINITY;
  res.add(std::to_string(n) + " (" + std::to_string(threads) + " threads)", err);
}

}  // namespace

int main() {
  constexpr int kSoftmaxBlock = 256;  // one block size for every row_softmax call
  Result tr{"transpose", "wrong elements", 0};
  Result mm{"sgemm", "rel error", 1e-5};
  Result st{"stencil", "rel error", 1e-5};
  Result sm{"row_softmax", "rel error", 1e-5};
  Result rd{"reduce_sum", "rel error", 1e-6};

  check_transpose(tr, 4096, 4096, 1);
  check_transpose(tr, 2049, 3071, 2);  // neither a multiple of the block
  check_transpose(tr, 17, 4099, 3);

  check_sgemm(mm, 1024, 1024, 1024, 1.0f, 0.0f, 16, 10);
  check_sgemm(mm, 1000, 1100, 300, 0.5f, 2.0f, 7, 11);
  check_sgemm(mm, 333, 259, 190, -1.0f, 0.25f, 1, 12);

  check_stencil(st, 4096, 4096, 0.2f, 20);
  check_stencil(st, 1000, 777, 0.1f, 21);
  check_stencil(st, 5, 3, 0.2f, 22);  // a single interior row

  check_row_softmax(sm, 8192, 1024, kSoftmaxBlock, 30);
  check_row_softmax(sm, 1000, 333, kSoftmaxBlock, 31);
  check_row_softmax(sm, 3, 4097, kSoftmaxBlock, 32);

  check_reduce(rd, 1 << 24, 256, 40);
  check_reduce(rd, 1000003, 512, 41);
  check_reduce(rd, 4097, 128, 42);

  bool ok = true;
  for (const Result* r : {&tr, &mm, &st, &sm, &rd}) {
    r->print();
    ok = ok && r->ok;
  }
  std::printf("%s\n", ok ? "launch_sites: all kernels match the reference" : "launch_sites: MISMATCH");
  return ok ? 0 : 1;
}
