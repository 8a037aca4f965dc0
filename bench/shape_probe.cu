// Design probe: before a transform is written for a family, time the forms it could emit on the
// transfer suite's own sizes (examples/transfer/src/check.cu), so the transform emits the one that
// pays. Each form is checked against the naive kernel's output first (exact for the integer blur and
// the stencil's bit-identical sums, 1e-5 relative for reordered float sums).
//
// Timing: bench/timing.cuh (the gate's rule: the L2 flushed before each run, the median of 21).
// Output: `probe <family> <form> <ms> <x over naive>`.
// usage: shape_probe [family ...]   (all by default; needs a CUDA device; exit 77 without one)
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "timing.cuh"

namespace {

template <typename T>
std::vector<T> download(const T* d, size_t n) {
  std::vector<T> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

double g_base = 0;
void report(const char* family, const std::string& form, double ms, bool ok) {
  if (form == "naive") g_base = ms;
  std::printf("probe %-10s %-34s %8.4f ms  %5.2fx  %s\n", family, form.c_str(), ms, g_base / ms,
              ok ? "ok" : "WRONG");
}

// ---------------------------------------------------------------- 5-point stencil (laplacian5)
__global__ void lapNaive(const float* in, float* out, int nx, int ny, float s) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < ny && col < nx) {
    if (row == 0 || row == ny - 1 || col == 0 || col == nx - 1) {
      out[row * nx + col] = 0.0f;
    } else {
      float c = in[row * nx + col];
      float sum = in[(row - 1) * nx + col] + in[(row + 1) * nx + col] + in[row * nx + col - 1] +
                  in[row * nx + col + 1];
      out[row * nx + col] = (sum - 4.0f * c) * s;
    }
  }
}

// The same body in a loop over R consecutive rows per thread (grid.y / R): what a plain
// "coarsen along y" transform would emit, the compiler left to reuse loads across iterations.
template <int R>
__global__ void lapRows(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                        float s) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int row = row0 + r;
    if (row < ny && col < nx) {
      if (row == 0 || row == ny - 1 || col == 0 || col == nx - 1) {
        out[row * nx + col] = 0.0f;
      } else {
        float c = in[row * nx + col];
        float sum = in[(row - 1) * nx + col] + in[(row + 1) * nx + col] + in[row * nx + col - 1] +
                    in[row * nx + col + 1];
        out[row * nx + col] = (sum - 4.0f * c) * s;
      }
    }
  }
}

// The same without __restrict__ (what coarsen-rows emits on a kernel whose pointers lack it).
template <int R>
__global__ void lapRowsAliased(const float* in, float* out, int nx, int ny, float s) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int row = (blockIdx.y * blockDim.y + threadIdx.y) * R + r;
    if (row < ny && col < nx) {
      if (row == 0 || row == ny - 1 || col == 0 || col == nx - 1) {
        out[row * nx + col] = 0.0f;
      } else {
        float c = in[row * nx + col];
        float sum = in[(row - 1) * nx + col] + in[(row + 1) * nx + col] + in[row * nx + col - 1] +
                    in[row * nx + col + 1];
        out[row * nx + col] = (sum - 4.0f * c) * s;
      }
    }
  }
}

// Rows strided by blockDim.y (each block covers R x its rows): coalescing of the naive, more work.
template <int R>
__global__ void lapRowsStrided(const float* __restrict__ in, float* __restrict__ out, int nx,
                               int ny, float s) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int row = blockIdx.y * blockDim.y * R + r * blockDim.y + threadIdx.y;
    if (row < ny && col < nx) {
      if (row == 0 || row == ny - 1 || col == 0 || col == nx - 1) {
        out[row * nx + col] = 0.0f;
      } else {
        float c = in[row * nx + col];
        float sum = in[(row - 1) * nx + col] + in[(row + 1) * nx + col] + in[row * nx + col - 1] +
                    in[row * nx + col + 1];
        out[row * nx + col] = (sum - 4.0f * c) * s;
      }
    }
  }
}

// Shared-memory halo tile (BX+2) x (BY+2), block BX x BY.
template <int BX, int BY>
__global__ void lapTile(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                        float s) {
  __shared__ float t[BY + 2][BX + 2];
  int col = blockIdx.x * BX + threadIdx.x;
  int row = blockIdx.y * BY + threadIdx.y;
  for (int y = threadIdx.y; y < BY + 2; y += BY)
    for (int x = threadIdx.x; x < BX + 2; x += BX) {
      int gy = blockIdx.y * BY + y - 1, gx = blockIdx.x * BX + x - 1;
      t[y][x] = (gy >= 0 && gy < ny && gx >= 0 && gx < nx) ? in[gy * nx + gx] : 0.0f;
    }
  __syncthreads();
  if (row < ny && col < nx) {
    if (row == 0 || row == ny - 1 || col == 0 || col == nx - 1) {
      out[row * nx + col] = 0.0f;
    } else {
      int x = threadIdx.x + 1, y = threadIdx.y + 1;
      float c = t[y][x];
      float sum = t[y - 1][x] + t[y + 1][x] + t[y][x - 1] + t[y][x + 1];
      out[row * nx + col] = (sum - 4.0f * c) * s;
    }
  }
}

void probeLaplacian() {
  const int nx = 4096, ny = 4096;
  const size_t n = size_t(nx) * ny;
  std::vector<float> h(n);
  std::mt19937 rng(411);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& x : h) x = u(rng);
  float *in, *ref, *out;
  CK(cudaMalloc(&in, n * 4));
  CK(cudaMalloc(&ref, n * 4));
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  const float s = 1.0f / (0.01f * 0.01f);
  auto grid = [&](int bx, int by) { return dim3((nx + bx - 1) / bx, (ny + by - 1) / by); };
  lapNaive<<<grid(16, 16), dim3(16, 16)>>>(in, ref, nx, ny, s);
  CK(cudaDeviceSynchronize());
  std::vector<float> want = download(ref, n);
  auto run = [&](const std::string& name, const std::function<void()>& fn) {
    CK(cudaMemset(out, 0xff, n * 4));
    fn();
    CK(cudaDeviceSynchronize());
    bool ok = download(out, n) == want;
    report("stencil", name, bench::timeMs(fn), ok);
  };
  run("naive", [&] { lapNaive<<<grid(16, 16), dim3(16, 16)>>>(in, out, nx, ny, s); });
  const int shapes[][2] = {{32, 8}, {32, 16}, {64, 4}, {128, 2}, {32, 4}, {256, 1}};
  for (auto& b : shapes)
    run("block " + std::to_string(b[0]) + "x" + std::to_string(b[1]),
        [&] { lapNaive<<<grid(b[0], b[1]), dim3(b[0], b[1])>>>(in, out, nx, ny, s); });
  run("rows4 32x8", [&] { lapRows<4><<<grid(32, 32), dim3(32, 8)>>>(in, out, nx, ny, s); });
  run("rows8 32x8", [&] { lapRows<8><<<grid(32, 64), dim3(32, 8)>>>(in, out, nx, ny, s); });
  run("rows4 16x16 no restrict", [&] { lapRowsAliased<4><<<grid(16, 64), dim3(16, 16)>>>(in, out, nx, ny, s); });
  run("rows2 16x16 no restrict", [&] { lapRowsAliased<2><<<grid(16, 32), dim3(16, 16)>>>(in, out, nx, ny, s); });
  run("rows8 16x16 no restrict", [&] { lapRowsAliased<8><<<grid(16, 128), dim3(16, 16)>>>(in, out, nx, ny, s); });
  run("rows2 16x16", [&] { lapRows<2><<<grid(16, 32), dim3(16, 16)>>>(in, out, nx, ny, s); });
  run("rows8 16x16", [&] { lapRows<8><<<grid(16, 128), dim3(16, 16)>>>(in, out, nx, ny, s); });
  run("rows4 16x16", [&] { lapRows<4><<<grid(16, 64), dim3(16, 16)>>>(in, out, nx, ny, s); });
  run("rows4 64x4", [&] { lapRows<4><<<grid(64, 16), dim3(64, 4)>>>(in, out, nx, ny, s); });
  run("strided4 32x8", [&] { lapRowsStrided<4><<<grid(32, 32), dim3(32, 8)>>>(in, out, nx, ny, s); });
  run("strided4 16x16", [&] { lapRowsStrided<4><<<grid(16, 64), dim3(16, 16)>>>(in, out, nx, ny, s); });
  run("tile 32x8", [&] { lapTile<32, 8><<<grid(32, 8), dim3(32, 8)>>>(in, out, nx, ny, s); });
  run("tile 16x16", [&] { lapTile<16, 16><<<grid(16, 16), dim3(16, 16)>>>(in, out, nx, ny, s); });
  CK(cudaFree(in));
  CK(cudaFree(ref));
  CK(cudaFree(out));
}

// ---------------------------------------------------------------- 3x3 box blur, 8-bit
__global__ void blurNaive(const unsigned char* in, unsigned char* out, int w, int h) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < w && row < h) {
    int sum = 0, count = 0;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int yy = row + dy, xx = col + dx;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
          sum += in[yy * w + xx];
          count++;
        }
      }
    out[row * w + col] = (unsigned char)(sum / count);
  }
}

template <int R>
__global__ void blurRows(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                         int w, int h) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int row = row0 + r;
    if (col < w && row < h) {
      int sum = 0, count = 0;
#pragma unroll
      for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx) {
          int yy = row + dy, xx = col + dx;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
            sum += in[yy * w + xx];
            count++;
          }
        }
      out[row * w + col] = (unsigned char)(sum / count);
    }
  }
}

template <int R>
__global__ void blurRowsAliased(const unsigned char* in, unsigned char* out, int w, int h) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int row = (blockIdx.y * blockDim.y + threadIdx.y) * R + r;
    if (col < w && row < h) {
      int sum = 0, count = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int yy = row + dy, xx = col + dx;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
            sum += in[yy * w + xx];
            count++;
          }
        }
      out[row * w + col] = (unsigned char)(sum / count);
    }
  }
}

template <int R>
__global__ void blurStrided(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                            int w, int h) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int row = blockIdx.y * blockDim.y * R + r * blockDim.y + threadIdx.y;
    if (col < w && row < h) {
      int sum = 0, count = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int yy = row + dy, xx = col + dx;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
            sum += in[yy * w + xx];
            count++;
          }
        }
      out[row * w + col] = (unsigned char)(sum / count);
    }
  }
}

template <int BX, int BY>
__global__ void blurTile(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                         int w, int h) {
  __shared__ int t[BY + 2][BX + 2];  // -1: outside the image
  int col = blockIdx.x * BX + threadIdx.x;
  int row = blockIdx.y * BY + threadIdx.y;
  for (int y = threadIdx.y; y < BY + 2; y += BY)
    for (int x = threadIdx.x; x < BX + 2; x += BX) {
      int gy = blockIdx.y * BY + y - 1, gx = blockIdx.x * BX + x - 1;
      t[y][x] = (gy >= 0 && gy < h && gx >= 0 && gx < w) ? int(in[gy * w + gx]) : -1;
    }
  __syncthreads();
  if (col < w && row < h) {
    int sum = 0, count = 0;
    for (int dy = 0; dy < 3; ++dy)
      for (int dx = 0; dx < 3; ++dx) {
        int v = t[threadIdx.y + dy][threadIdx.x + dx];
        if (v >= 0) {
          sum += v;
          count++;
        }
      }
    out[row * w + col] = (unsigned char)(sum / count);
  }
}

// The interior fast path (a candidate transform, unswitch-bounds): where every tap of the window is
// inside the image, the same body with the tap guard dropped (the compiler then unrolls the taps,
// folds count to 9 and divides by a constant); elsewhere the body as written.
__global__ void blurInterior(const unsigned char* in, unsigned char* out, int w, int h) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < w && row < h) {
    if (row + -1 >= 0 && row + 1 < h && col + -1 >= 0 && col + 1 < w) {
      int sum = 0, count = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int yy = row + dy, xx = col + dx;
          {
            sum += in[yy * w + xx];
            count++;
          }
        }
      out[row * w + col] = (unsigned char)(sum / count);
    } else {
      int sum = 0, count = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int yy = row + dy, xx = col + dx;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
            sum += in[yy * w + xx];
            count++;
          }
        }
      out[row * w + col] = (unsigned char)(sum / count);
    }
  }
}

// The same after coarsen-rows (R rows a thread, consecutive), as the planner would stack them.
template <int R>
__global__ void blurInteriorRows(const unsigned char* in, unsigned char* out, int w, int h) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int row = (blockIdx.y * blockDim.y + threadIdx.y) * R + r;
    if (col < w && row < h) {
      if (row + -1 >= 0 && row + 1 < h && col + -1 >= 0 && col + 1 < w) {
        int sum = 0, count = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            int yy = row + dy, xx = col + dx;
            sum += in[yy * w + xx];
            count++;
          }
        out[row * w + col] = (unsigned char)(sum / count);
      } else {
        int sum = 0, count = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            int yy = row + dy, xx = col + dx;
            if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
              sum += in[yy * w + xx];
              count++;
            }
          }
        out[row * w + col] = (unsigned char)(sum / count);
      }
    }
  }
}

void probeBlur() {
  const int w = 3840, h = 2160;
  const size_t n = size_t(w) * h;
  std::vector<unsigned char> hin(n);
  std::mt19937 rng(421);
  for (auto& x : hin) x = (unsigned char)(rng() & 0xff);
  unsigned char *in, *ref, *out;
  CK(cudaMalloc(&in, n));
  CK(cudaMalloc(&ref, n));
  CK(cudaMalloc(&out, n));
  CK(cudaMemcpy(in, hin.data(), n, cudaMemcpyHostToDevice));
  auto grid = [&](int bx, int by) { return dim3((w + bx - 1) / bx, (h + by - 1) / by); };
  blurNaive<<<grid(16, 16), dim3(16, 16)>>>(in, ref, w, h);
  CK(cudaDeviceSynchronize());
  std::vector<unsigned char> want = download(ref, n);
  auto run = [&](const std::string& name, const std::function<void()>& fn) {
    CK(cudaMemset(out, 0x5a, n));
    fn();
    CK(cudaDeviceSynchronize());
    bool ok = download(out, n) == want;
    report("blur", name, bench::timeMs(fn), ok);
  };
  run("naive", [&] { blurNaive<<<grid(16, 16), dim3(16, 16)>>>(in, out, w, h); });
  const int shapes[][2] = {{32, 8}, {64, 4}, {128, 2}, {32, 16}, {64, 8}};
  for (auto& b : shapes)
    run("block " + std::to_string(b[0]) + "x" + std::to_string(b[1]),
        [&] { blurNaive<<<grid(b[0], b[1]), dim3(b[0], b[1])>>>(in, out, w, h); });
  run("rows4 32x8", [&] { blurRows<4><<<grid(32, 32), dim3(32, 8)>>>(in, out, w, h); });
  run("rows8 32x8", [&] { blurRows<8><<<grid(32, 64), dim3(32, 8)>>>(in, out, w, h); });
  run("rows4 16x16", [&] { blurRows<4><<<grid(16, 64), dim3(16, 16)>>>(in, out, w, h); });
  run("rows4 16x16 no restrict", [&] { blurRowsAliased<4><<<grid(16, 64), dim3(16, 16)>>>(in, out, w, h); });
  run("rows2 16x16 no restrict", [&] { blurRowsAliased<2><<<grid(16, 32), dim3(16, 16)>>>(in, out, w, h); });
  run("rows8 16x16 no restrict", [&] { blurRowsAliased<8><<<grid(16, 128), dim3(16, 16)>>>(in, out, w, h); });
  run("rows4 64x4", [&] { blurRows<4><<<grid(64, 16), dim3(64, 4)>>>(in, out, w, h); });
  run("strided4 16x16", [&] { blurStrided<4><<<grid(16, 64), dim3(16, 16)>>>(in, out, w, h); });
  run("strided4 32x8", [&] { blurStrided<4><<<grid(32, 32), dim3(32, 8)>>>(in, out, w, h); });
  run("tile 32x8", [&] { blurTile<32, 8><<<grid(32, 8), dim3(32, 8)>>>(in, out, w, h); });
  run("tile 16x16", [&] { blurTile<16, 16><<<grid(16, 16), dim3(16, 16)>>>(in, out, w, h); });
  run("interior 16x16", [&] { blurInterior<<<grid(16, 16), dim3(16, 16)>>>(in, out, w, h); });
  run("interior 64x4", [&] { blurInterior<<<grid(64, 4), dim3(64, 4)>>>(in, out, w, h); });
  run("interior rows4 16x16", [&] { blurInteriorRows<4><<<grid(16, 64), dim3(16, 16)>>>(in, out, w, h); });
  run("interior rows4 64x4", [&] { blurInteriorRows<4><<<grid(64, 16), dim3(64, 4)>>>(in, out, w, h); });
  run("interior rows8 64x4", [&] { blurInteriorRows<8><<<grid(64, 32), dim3(64, 4)>>>(in, out, w, h); });
  CK(cudaFree(in));
  CK(cudaFree(ref));
  CK(cudaFree(out));
}

// ---------------------------------------------------------------- 1-D convolution, runtime taps
__global__ void convNaive(const float* in, const float* taps, float* out, int n, int ntaps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r = ntaps / 2;
  if (i < n) {
    int start = i - r;
    float v = 0;
    for (int k = 0; k < ntaps; k++) {
      int j = start + k;
      if (j >= 0 && j < n) v += in[j] * taps[k];
    }
    out[i] = v;
  }
}

// Taps staged in shared memory (up to MAXT; larger filters take the naive loop).
template <int MAXT>
__global__ void convTaps(const float* __restrict__ in, const float* __restrict__ taps,
                         float* __restrict__ out, int n, int ntaps) {
  __shared__ float st[MAXT];
  for (int k = threadIdx.x; k < ntaps && k < MAXT; k += blockDim.x) st[k] = taps[k];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r = ntaps / 2;
  if (i < n) {
    int start = i - r;
    float v = 0;
    for (int k = 0; k < ntaps; k++) {
      int j = start + k;
      if (j >= 0 && j < n) v += in[j] * st[k];
    }
    out[i] = v;
  }
}

// Input tile [block start - r, block end + (ntaps - 1 - r)) and taps in shared memory; OUT outputs
// per thread, strided by the block (dynamic shared memory: B * OUT + MAXT - 1 floats).
template <int MAXT, int OUT>
__global__ void convTile(const float* __restrict__ in, const float* __restrict__ taps,
                         float* __restrict__ out, int n, int ntaps) {
  extern __shared__ float sm[];
  float* st = sm;
  float* sx = sm + MAXT;
  int B = blockDim.x;
  int r = ntaps / 2;
  int base = blockIdx.x * B * OUT;
  int len = B * OUT + ntaps - 1;
  for (int k = threadIdx.x; k < ntaps; k += B) st[k] = taps[k];
  for (int x = threadIdx.x; x < len; x += B) {
    int j = base - r + x;
    sx[x] = (j >= 0 && j < n) ? in[j] : 0.0f;
  }
  __syncthreads();
#pragma unroll
  for (int o = 0; o < OUT; ++o) {
    int i = base + o * B + threadIdx.x;
    if (i < n) {
      float v = 0;
      for (int k = 0; k < ntaps; k++) v += sx[o * B + threadIdx.x + k] * st[k];
      out[i] = v;
    }
  }
}

// Same tile; each thread's OUT outputs are consecutive, accumulated together per tap (reuse of
// the window in registers along k).
template <int MAXT, int OUT>
__global__ void convTileRun(const float* __restrict__ in, const float* __restrict__ taps,
                            float* __restrict__ out, int n, int ntaps) {
  extern __shared__ float sm[];
  float* st = sm;
  float* sx = sm + MAXT;
  int B = blockDim.x;
  int r = ntaps / 2;
  int base = blockIdx.x * B * OUT;
  int len = B * OUT + ntaps - 1;
  for (int k = threadIdx.x; k < ntaps; k += B) st[k] = taps[k];
  for (int x = threadIdx.x; x < len; x += B) {
    int j = base - r + x;
    sx[x] = (j >= 0 && j < n) ? in[j] : 0.0f;
  }
  __syncthreads();
  float acc[OUT];
  float win[OUT];
#pragma unroll
  for (int o = 0; o < OUT; ++o) {
    acc[o] = 0;
    win[o] = sx[threadIdx.x * OUT + o];
  }
  for (int k = 0; k < ntaps; k++) {
    float t = st[k];
#pragma unroll
    for (int o = 0; o < OUT; ++o) acc[o] += win[o] * t;
#pragma unroll
    for (int o = 0; o < OUT - 1; ++o) win[o] = win[o + 1];
    win[OUT - 1] = sx[threadIdx.x * OUT + OUT + k];
  }
#pragma unroll
  for (int o = 0; o < OUT; ++o) {
    int i = base + threadIdx.x * OUT + o;
    if (i < n) out[i] = acc[o];
  }
}

void probeConv() {
  const int n = 1 << 24, ntaps = 31;
  std::vector<float> h(n), ht(ntaps);
  std::mt19937 rng(431);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& x : h) x = u(rng);
  for (auto& x : ht) x = u(rng);
  float *in, *taps, *ref, *out;
  CK(cudaMalloc(&in, n * 4));
  CK(cudaMalloc(&taps, ntaps * 4));
  CK(cudaMalloc(&ref, n * 4));
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(taps, ht.data(), ntaps * 4, cudaMemcpyHostToDevice));
  convNaive<<<(n + 127) / 128, 128>>>(in, taps, ref, n, ntaps);
  CK(cudaDeviceSynchronize());
  std::vector<float> want = download(ref, n);
  auto run = [&](const std::string& name, const std::function<void()>& fn) {
    CK(cudaMemset(out, 0xff, size_t(n) * 4));
    fn();
    CK(cudaDeviceSynchronize());
    std::vector<float> got = download(out, n);
    bool ok = true;
    for (int i = 0; i < n && ok; ++i)
      ok = std::fabs(got[i] - want[i]) <= 1e-5f * (1 + std::fabs(want[i]));
    report("conv1d", name, bench::timeMs(fn), ok);
  };
  run("naive", [&] { convNaive<<<(n + 127) / 128, 128>>>(in, taps, out, n, ntaps); });
  run("block 256", [&] { convNaive<<<(n + 255) / 256, 256>>>(in, taps, out, n, ntaps); });
  run("taps shared 128", [&] { convTaps<64><<<(n + 127) / 128, 128>>>(in, taps, out, n, ntaps); });
  auto tile = [&](auto kern, int B, int OUT, const char* nm) {
    size_t sh = (64 + B * OUT + ntaps - 1) * 4;
    run(std::string(nm) + " B" + std::to_string(B) + " x" + std::to_string(OUT),
        [&] { kern<<<(n + B * OUT - 1) / (B * OUT), B, sh>>>(in, taps, out, n, ntaps); });
  };
  tile(convTile<64, 1>, 128, 1, "tile");
  tile(convTile<64, 1>, 256, 1, "tile");
  tile(convTile<64, 4>, 128, 4, "tile");
  tile(convTile<64, 4>, 256, 4, "tile");
  tile(convTile<64, 8>, 256, 8, "tile");
  tile(convTileRun<64, 4>, 128, 4, "tile-run");
  tile(convTileRun<64, 8>, 128, 8, "tile-run");
  tile(convTileRun<64, 8>, 256, 8, "tile-run");
  CK(cudaFree(in));
  CK(cudaFree(taps));
  CK(cudaFree(ref));
  CK(cudaFree(out));
}

// ---------------------------------------------------------------- tree reduction, coarsened
// What tree-reduce-shuffle-coarse emits (a grid-stride run per thread, then warp shuffles), with
// the grid divided by C; UNROLL independent accumulators in the run; or float4 loads.
template <int UNROLL>
__global__ void redCoarse(const float* __restrict__ x, float* result, int n) {
  __shared__ float warp[32];
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  float acc[UNROLL];
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) acc[u] = 0;
  int i = gid;
  for (; i + (UNROLL - 1) * stride < n; i += UNROLL * stride)
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc[u] += x[i + u * stride];
  for (; i < n; i += stride) acc[0] += x[i];
  float v = 0;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) v += acc[u];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((tid & 31) == 0) warp[tid >> 5] = v;
  __syncthreads();
  if (tid < 32) {
    v = tid < (blockDim.x >> 5) ? warp[tid] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (tid == 0) atomicAdd(result, v);
  }
}

__global__ void redVec4(const float* __restrict__ x, float* result, int n) {
  __shared__ float warp[32];
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  float v = 0;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  for (int i = gid; i < n / 4; i += stride) {
    float4 q = x4[i];
    v += (q.x + q.y) + (q.z + q.w);
  }
  for (int i = n / 4 * 4 + gid; i < n; i += stride) v += x[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((tid & 31) == 0) warp[tid >> 5] = v;
  __syncthreads();
  if (tid < 32) {
    v = tid < (blockDim.x >> 5) ? warp[tid] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (tid == 0) atomicAdd(result, v);
  }
}

void probeReduce() {
  const int n = (1 << 24) + 7;
  std::vector<float> h(n);
  std::mt19937 rng(441);
  std::uniform_real_distribution<float> u(-1, 1);
  double want = 0;
  for (auto& x : h) {
    x = u(rng);
    want += x;
  }
  float *x, *res;
  CK(cudaMalloc(&x, size_t(n) * 4));
  CK(cudaMalloc(&res, 4));
  CK(cudaMemcpy(x, h.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
  auto run = [&](const std::string& name, const std::function<void()>& fn) {
    CK(cudaMemset(res, 0, 4));
    fn();
    CK(cudaDeviceSynchronize());
    float got = download(res, 1)[0];
    bool ok = std::fabs(got - want) <= 1e-3 * (1 + std::fabs(want));
    report("reduce", name, bench::timeMs([&] {
             CK(cudaMemsetAsync(res, 0, 4));
             fn();
           }),
           ok);
  };
  auto blocks = [&](int c) { return (n + 256 * c - 1) / (256 * c); };
  run("naive", [&] { redCoarse<1><<<blocks(8), 256>>>(x, res, n); });  // = the current coarse 8
  for (int c : {16, 32, 64, 128})
    run("coarse " + std::to_string(c), [&] { redCoarse<1><<<blocks(c), 256>>>(x, res, n); });
  for (int c : {8, 16, 32, 64})
    run("coarse " + std::to_string(c) + " unroll4",
        [&] { redCoarse<4><<<blocks(c), 256>>>(x, res, n); });
  for (int c : {16, 32, 64})
    run("coarse " + std::to_string(c) + " vec4", [&] { redVec4<<<blocks(c), 256>>>(x, res, n); });
  CK(cudaFree(x));
  CK(cudaFree(res));
}

// ---------------------------------------------------------------- byte histogram, privatized
// privatize-histogram's grid-stride form (one byte a load) against its vector_width 16 form (one
// uint4 of 16 bytes a load where aligned), on the transfer histogram's launch (2 blocks an SM, 256).
__global__ void histPriv(const unsigned char* buffer, long size, unsigned int* histo) {
  __shared__ unsigned int kl_bins[256];
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  for (long i = threadIdx.x + (long)blockIdx.x * blockDim.x; i < size; i += (long)blockDim.x * gridDim.x)
    atomicAdd(&kl_bins[buffer[i]], 1);
  __syncthreads();
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&histo[kl_b], kl_bins[kl_b]);
}

__global__ void histPrivVec16(const unsigned char* buffer, long size, unsigned int* histo) {
  __shared__ unsigned int kl_bins[256];
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x) kl_bins[kl_b] = 0;
  __syncthreads();
  if ((reinterpret_cast<unsigned long long>(buffer) & 15) == 0) {
    for (long kl_v = threadIdx.x + (long)blockIdx.x * blockDim.x; kl_v < size / 16; kl_v += (long)blockDim.x * gridDim.x) {
      uint4 w = reinterpret_cast<const uint4*>(buffer)[kl_v];
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        unsigned int word = b == 0 ? w.x : b == 1 ? w.y : b == 2 ? w.z : w.w;
        atomicAdd(&kl_bins[(unsigned char)word], 1);
        atomicAdd(&kl_bins[(unsigned char)(word >> 8)], 1);
        atomicAdd(&kl_bins[(unsigned char)(word >> 16)], 1);
        atomicAdd(&kl_bins[(unsigned char)(word >> 24)], 1);
      }
    }
    for (long i = (size / 16) * 16 + threadIdx.x + (long)blockIdx.x * blockDim.x; i < size; i += (long)blockDim.x * gridDim.x)
      atomicAdd(&kl_bins[buffer[i]], 1);
  } else {
    for (long i = threadIdx.x + (long)blockIdx.x * blockDim.x; i < size; i += (long)blockDim.x * gridDim.x)
      atomicAdd(&kl_bins[buffer[i]], 1);
  }
  __syncthreads();
  for (int kl_b = threadIdx.x; kl_b < 256; kl_b += blockDim.x)
    if (kl_bins[kl_b] != 0) atomicAdd(&histo[kl_b], kl_bins[kl_b]);
}

void probeHistogram() {
  const long size = (1L << 24) + 123;
  std::vector<unsigned char> h(size);
  std::mt19937_64 rng(621);
  std::vector<unsigned int> want(256, 0);
  for (long i = 0; i < size; ++i) ++want[h[i] = (unsigned char)(rng() >> 56)];
  unsigned char* buf;
  unsigned int* bins;
  CK(cudaMalloc(&buf, size));
  CK(cudaMalloc(&bins, 256 * 4));
  CK(cudaMemcpy(buf, h.data(), size, cudaMemcpyHostToDevice));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto run = [&](const std::string& name, const std::function<void()>& fn) {
    CK(cudaMemset(bins, 0, 256 * 4));
    fn();
    CK(cudaDeviceSynchronize());
    const bool ok = download(bins, 256) == want;
    report("histogram", name, bench::timeMs([&] {
             CK(cudaMemsetAsync(bins, 0, 256 * 4));
             fn();
           }),
           ok);
  };
  run("naive", [&] { histPriv<<<sms * 2, 256>>>(buf, size, bins); });  // = privatized, scalar (run 19's winner)
  run("vector_width 16", [&] { histPrivVec16<<<sms * 2, 256>>>(buf, size, bins); });
  run("vector_width 16, grid x4", [&] { histPrivVec16<<<sms * 8, 256>>>(buf, size, bins); });
  CK(cudaFree(buf));
  CK(cudaFree(bins));
}

// ---------------------------------------------------------------- gelu on a capped grid
// gelu_forward's grid-stride kernel (grid min(ceil(N / 256), 1024)) against vectorize-access's form
// with the grid kept (grid_divisor 1) and divided by 4 (the default).
__global__ void geluNaive(float* out, const float* inp, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) {
    float v = inp[i];
    float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    out[i] = 0.5f * v * (1.0f + tanhf(inner));
  }
}

__device__ __forceinline__ float geluOne(float v) {
  float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
  return 0.5f * v * (1.0f + tanhf(inner));
}

__global__ void geluVec4(float* out, const float* inp, int N) {
  if (((reinterpret_cast<unsigned long long>(out) | reinterpret_cast<unsigned long long>(inp)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < N / 4; kl_v += blockDim.x * gridDim.x) {
      float4 a = reinterpret_cast<const float4*>(inp)[kl_v], o;
      o.x = geluOne(a.x);
      o.y = geluOne(a.y);
      o.z = geluOne(a.z);
      o.w = geluOne(a.w);
      reinterpret_cast<float4*>(out)[kl_v] = o;
    }
    for (int i = (N / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) out[i] = geluOne(inp[i]);
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) out[i] = geluOne(inp[i]);
  }
}

void probeGelu() {
  const int n = (1 << 24) + 5;
  std::vector<float> h(n);
  std::mt19937 rng(501);
  std::uniform_real_distribution<float> u(-5, 5);
  for (auto& x : h) x = u(rng);
  float *in, *out;
  CK(cudaMalloc(&in, size_t(n) * 4));
  CK(cudaMalloc(&out, size_t(n) * 4));
  CK(cudaMemcpy(in, h.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
  const int grid = std::min((n + 255) / 256, 1024);
  std::vector<float> ref;
  auto run = [&](const std::string& name, const std::function<void()>& fn) {
    CK(cudaMemset(out, 0, size_t(n) * 4));
    fn();
    CK(cudaDeviceSynchronize());
    std::vector<float> got = download(out, n);
    if (ref.empty()) ref = got;
    report("gelu", name, bench::timeMs(fn), got == ref);
  };
  run("naive", [&] { geluNaive<<<grid, 256>>>(out, in, n); });
  run("float4, grid kept", [&] { geluVec4<<<grid, 256>>>(out, in, n); });
  run("float4, grid / 4", [&] { geluVec4<<<grid / 4, 256>>>(out, in, n); });
  CK(cudaFree(in));
  CK(cudaFree(out));
}

// ---------------------------------------------------------------- column sums, split and unrolled
// column-partial-sums' form (block 32 x 32) with and without `#pragma unroll 4` on the split loop.
template <int UNROLL>
__global__ void colSplit(const float* m, float* sums, int height, int width) {
  unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ float kl_part[32][33];
  float kl_s = 0;
  if (col < width) {
    const float* p = m + col;
    float s = 0.f;
    p += (size_t)threadIdx.y * (width);
#pragma unroll UNROLL
    for (int r = threadIdx.y; r < height; r += blockDim.y) {
      s += *p;
      p += (size_t)blockDim.y * (width);
    }
    kl_s = s;
  }
  kl_part[threadIdx.y][threadIdx.x] = kl_s;
  __syncthreads();
  if (threadIdx.y == 0 && col < width) {
    float s = kl_s;
    for (unsigned int kl_r = 1; kl_r < blockDim.y; ++kl_r) s += kl_part[kl_r][threadIdx.x];
    sums[col] = s;
  }
}

// Where the split form's 0.45 of cuBLAS goes (only 128 blocks of 1024 threads on 132 SMs): rows
// also split over grid.y (BANDS bands, partials added with atomicAdd into zeroed sums); two
// accumulators a thread; 4 columns a thread with float4 loads (block 8 x BY).
template <int BANDS>
__global__ void colBands(const float* m, float* sums, int height, int width) {
  unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ float part[32][33];
  int band = (height + BANDS - 1) / BANDS, r0 = blockIdx.y * band, r1 = min(height, r0 + band);
  float s = 0.f;
  if (col < width)
    for (int r = r0 + threadIdx.y; r < r1; r += blockDim.y) s += m[(size_t)r * width + col];
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && col < width) {
    for (unsigned int k = 1; k < blockDim.y; ++k) s += part[k][threadIdx.x];
    atomicAdd(&sums[col], s);
  }
}

__global__ void colTwoAcc(const float* m, float* sums, int height, int width) {
  unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ float part[32][33];
  float s0 = 0.f, s1 = 0.f;
  if (col < width) {
    int r = threadIdx.y;
    for (; r + (int)blockDim.y < height; r += 2 * blockDim.y) {
      s0 += m[(size_t)r * width + col];
      s1 += m[(size_t)(r + blockDim.y) * width + col];
    }
    if (r < height) s0 += m[(size_t)r * width + col];
  }
  part[threadIdx.y][threadIdx.x] = s0 + s1;
  __syncthreads();
  if (threadIdx.y == 0 && col < width) {
    float s = s0 + s1;
    for (unsigned int k = 1; k < blockDim.y; ++k) s += part[k][threadIdx.x];
    sums[col] = s;
  }
}

template <int BY>
__global__ void colVec4(const float* m, float* sums, int height, int width) {
  __shared__ float4 part[BY][8];
  unsigned int c4 = blockIdx.x * 8 + threadIdx.x;  // width % 4 == 0 here
  float4 s = make_float4(0, 0, 0, 0);
  if (c4 * 4 < (unsigned)width)
    for (int r = threadIdx.y; r < height; r += BY) {
      float4 v = reinterpret_cast<const float4*>(m + (size_t)r * width)[c4];
      s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
    }
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && c4 * 4 < (unsigned)width) {
    for (int k = 1; k < BY; ++k) {
      float4 v = part[k][threadIdx.x];
      s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
    }
    reinterpret_cast<float4*>(sums)[c4] = s;
  }
}

void probeColumns() {
  const int height = 4096, width = 4096;
  const size_t n = size_t(height) * width;
  std::vector<float> h(n);
  std::mt19937 rng(331);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& x : h) x = u(rng);
  float *m, *sums;
  CK(cudaMalloc(&m, n * 4));
  CK(cudaMalloc(&sums, width * 4));
  CK(cudaMemcpy(m, h.data(), n * 4, cudaMemcpyHostToDevice));
  std::vector<float> ref;
  auto run = [&](const std::string& name, const std::function<void()>& fn) {
    fn();
    CK(cudaDeviceSynchronize());
    std::vector<float> got = download(sums, width);
    if (ref.empty()) ref = got;
    bool ok = true;
    for (int c = 0; c < width; ++c) ok = ok && std::fabs(got[c] - ref[c]) <= 1e-3f * (1 + std::fabs(ref[c]));
    report("columns", name, bench::timeMs(fn), ok);
  };
  run("naive", [&] { colSplit<1><<<width / 32, dim3(32, 32)>>>(m, sums, height, width); });  // = split, run 19's winner
  run("split, unroll 4", [&] { colSplit<4><<<width / 32, dim3(32, 32)>>>(m, sums, height, width); });
  run("split, unroll 8", [&] { colSplit<8><<<width / 32, dim3(32, 32)>>>(m, sums, height, width); });
  run("bands 2, 32x32", [&] {
    CK(cudaMemsetAsync(sums, 0, width * 4));
    colBands<2><<<dim3(width / 32, 2), dim3(32, 32)>>>(m, sums, height, width);
  });
  run("bands 4, 32x16", [&] {
    CK(cudaMemsetAsync(sums, 0, width * 4));
    colBands<4><<<dim3(width / 32, 4), dim3(32, 16)>>>(m, sums, height, width);
  });
  run("bands 8, 32x8", [&] {
    CK(cudaMemsetAsync(sums, 0, width * 4));
    colBands<8><<<dim3(width / 32, 8), dim3(32, 8)>>>(m, sums, height, width);
  });
  run("two accumulators 32x32", [&] { colTwoAcc<<<width / 32, dim3(32, 32)>>>(m, sums, height, width); });
  run("float4 8x32", [&] { colVec4<32><<<width / 32, dim3(8, 32)>>>(m, sums, height, width); });
  run("float4 8x128", [&] { colVec4<128><<<width / 32, dim3(8, 128)>>>(m, sums, height, width); });
  CK(cudaFree(m));
  CK(cudaFree(sums));
}

// ---------------------------------------------------------------- int max, as the gate ran it
// Run 20's gate timed reduce_max_int's selected variant (tree-reduce-shuffle-coarse, grid.x / 8) at
// 0.0452 ms where this probe's float coarse 8 runs 0.0347 and CUB's max 0.0374: the same variant
// text here (unsigned index, no __restrict__), and with an int index, tells whether the 0.83 of
// CUB is the code or the gate's timing.
template <typename Index>
__global__ void maxCoarse(const int* g_idata, int* g_max, unsigned int n) {
  __shared__ int sdata[256];
  unsigned int tid = threadIdx.x;
  Index i = blockIdx.x * blockDim.x + threadIdx.x;
  {
    int kl_acc = INT_MIN;
    for (Index kl_i = i; kl_i < (Index)n; kl_i += blockDim.x * gridDim.x) kl_acc = max(kl_acc, g_idata[kl_i]);
    sdata[tid] = kl_acc;
  }
  __syncthreads();
  {
    int kl_v = sdata[tid];
    for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v = max(kl_v, __shfl_down_sync(0xffffffffu, kl_v, kl_o));
    __shared__ int kl_warp[32];
    if ((tid & 31) == 0) kl_warp[tid >> 5] = kl_v;
    __syncthreads();
    if (tid < 32) {
      kl_v = tid < (blockDim.x >> 5) ? kl_warp[tid] : kl_warp[0];
      for (int kl_o = 16; kl_o > 0; kl_o >>= 1) kl_v = max(kl_v, __shfl_down_sync(0xffffffffu, kl_v, kl_o));
      if (tid == 0) sdata[0] = kl_v;
    }
    __syncthreads();
  }
  if (tid == 0) atomicMax(g_max, sdata[0]);
}

__global__ void maxNaive(const int* g_idata, int* g_max, unsigned int n) {
  __shared__ int sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : INT_MIN;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] = max(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) atomicMax(g_max, sdata[0]);
}

void probeMaxInt() {
  const unsigned int n = (1u << 24) + 100;
  std::vector<int> h(n);
  std::mt19937_64 rng(104);
  int want = INT_MIN;
  for (auto& x : h) want = std::max(want, x = int(uint32_t(rng() >> 32)));
  int *x, *res;
  CK(cudaMalloc(&x, size_t(n) * 4));
  CK(cudaMalloc(&res, 4));
  CK(cudaMemcpy(x, h.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
  const int lowest = INT_MIN;
  auto run = [&](const std::string& name, const std::function<void()>& fn) {
    CK(cudaMemcpy(res, &lowest, 4, cudaMemcpyHostToDevice));
    fn();
    CK(cudaDeviceSynchronize());
    report("max_int", name, bench::timeMs([&] {
             CK(cudaMemcpyAsync(res, &lowest, 4, cudaMemcpyHostToDevice));
             fn();
           }),
           download(res, 1)[0] == want);
  };
  const unsigned blocks = (n + 255) / 256;
  run("naive", [&] { maxNaive<<<blocks, 256>>>(x, res, n); });
  run("coarse 8 as gated (unsigned index)", [&] { maxCoarse<unsigned int><<<(blocks + 7) / 8, 256>>>(x, res, n); });
  run("coarse 8, int index", [&] { maxCoarse<int><<<(blocks + 7) / 8, 256>>>(x, res, n); });
  run("coarse 32 as gated", [&] { maxCoarse<unsigned int><<<(blocks + 31) / 32, 256>>>(x, res, n); });
  CK(cudaFree(x));
  CK(cudaFree(res));
}

}  // namespace

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("skipped: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device %s\n", p.name);
  bench::benchInit();
  // shape_probe [family ...]: only those (stencil blur conv1d reduce histogram gelu columns max_int)
  const std::vector<std::pair<std::string, void (*)()>> probes = {
      {"stencil", probeLaplacian}, {"blur", probeBlur},         {"conv1d", probeConv},      {"reduce", probeReduce},
      {"histogram", probeHistogram}, {"gelu", probeGelu},       {"columns", probeColumns},
      {"max_int", probeMaxInt}};
  for (const auto& [name, fn] : probes)
    if (argc == 1 || std::find(argv + 1, argv + argc, name) != argv + argc) fn();
  return 0;
}
