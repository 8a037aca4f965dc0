// Host launchers of the transfer suite (src/*.cu). Every pointer named d_* or passed without a
// prefix is a device pointer unless its comment says "host". A launcher only enqueues work on the
// default stream; it returns nothing and does not synchronize (call cudaGetLastError() and
// cudaDeviceSynchronize() after it to see errors).
#pragma once

#include <cstddef>
#include <cuda_runtime.h>

// ---------------------------------------------------------------- reductions
// *d_out = sum of d_in[0 .. n). block_size must be a power of two (<= 1024). Zeroes *d_out first.
void reduce_sum(const float* d_in, float* d_out, int n, int block_size);
// *d_result = sum of a[i] * b[i]. Zeroes *d_result first.
void dot_product(const float* a, const float* b, float* d_result, int n);
// *d_max = max of d_data[0 .. n). Initializes *d_max to INT_MIN first.
void max_int(const int* d_data, int* d_max, unsigned int n);
// Number of floats the workspace of min_float must hold for n inputs.
int min_float_workspace(int n);
// *d_min = min of d_x[0 .. n), n >= 1: per-block minima into d_partial, then one block over them.
void min_float(const float* d_x, float* d_partial, float* d_min, int n);
// *d_out = sum of d_in[0 .. n): the template kernel transfer::detail::sum_kernel<T> of
// include/transfer/detail/reduce_generic.cuh, for float and for double. Zero *d_out first.
void sum_f32(const float* d_in, float* d_out, size_t n);
void sum_f64(const double* d_in, double* d_out, size_t n);

// ---------------------------------------------------------------- scan
// Inclusive prefix sum of each segment of seg_len floats (one block per segment, seg_len <= 1024).
void scan_segments_inclusive(const float* d_in, float* d_out, int num_segments, int seg_len);

// ---------------------------------------------------------------- rows (row-major N x C)
// out[n][c] = exp(inp[n][c] - max_n) / sum_c exp(inp[n][c] - max_n); one thread per row.
void softmax_forward(float* out, const float* inp, int N, int C, int block_size);
// out[n][c] = (inp[n][c] - mean[n]) * rstd[n] * weight[c] + bias[c], rstd = 1 / sqrt(var + eps)
// (biased variance, eps = 1e-5); also writes mean[n] and rstd[n]. One thread per row.
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int N, int C, int block_size);
// d_max[r] = max of row r, d_idx[r] = the first column holding it; one thread per row.
void row_argmax(const float* d_data, float* d_max, int* d_idx, int nrows, int ncols);
// d_sums[c] = sum over rows of d_m[r][c] (height x width, row-major); one thread per column.
void column_sum(const float* d_m, float* d_sums, int height, int width);

// ---------------------------------------------------------------- 2-D
// d_out (width x height) = d_in (height x width)^T, row-major.
void transpose(float* d_out, const float* d_in, int width, int height);
// 5-point Laplacian on an nx x ny grid (row-major, x fastest): interior points get
// (W + E + N + S - 4 C) * inv_h2, boundary points 0.
void laplacian_2d(const float* d_in, float* d_out, int nx, int ny, float inv_h2);
// 3x3 box blur of an 8-bit grayscale image: the mean (integer division) of the pixels of the 3x3
// window that lie inside the image.
void box_blur(const unsigned char* d_in, unsigned char* d_out, int width, int height);
// C = alpha * A * B + beta * C; A is M x K, B is K x N, C is M x N, all row-major.
void sgemm(size_t M, size_t N, size_t K, float alpha, const float* A, const float* B, float beta, float* C);
// out[t][o] = bias[o] + sum_c inp[t][c] * weight[o][c]: out = inp weight^T + bias (a linear layer);
// inp is BT x C, weight OC x C, out BT x OC; bias may be null. Blocks of sqrt_block_size^2 threads.
void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int BT, int C,
                    int OC, int sqrt_block_size);

// ---------------------------------------------------------------- elementwise
// out[i] = 0.5 inp[i] (1 + tanh(sqrt(2/pi) (inp[i] + 0.044715 inp[i]^3))); grid-stride loop.
void gelu_forward(float* out, const float* inp, int N, int block_size);
// y[i] += alpha * x[i], 64-bit index.
void axpy(long n, float alpha, const float* x, float* y);
// data[i] = max(data[i], 0), in place.
void relu_inplace(float* data, int n);
// out[r][c] = inp[r][c] + bias[c] + residual[r][c] (rows x cols, row-major).
void add_bias_residual(float* out, const float* inp, const float* bias, const float* residual, int rows, int cols);
// out[i] = clamp(in[i] * scale, -65504, 65504): scaled into the finite range of fp16, kept in float.
void scale_clip_half_range(const float* in, float* out, float scale, int n);
// c[i] = a[i] + b[i].
void vector_add(const float* a, const float* b, float* c, int n);

// ---------------------------------------------------------------- other
// y = A x; A is m x n row-major; one thread per row.
void gemv(int m, int n, const float* A, const float* x, float* y);
// d_out[i] = sum_{k=0..30} taps[k] * d_in[i + k - 15] (zero outside [0, n)); h_taps is a HOST array
// of 31 floats, copied to __constant__ memory by the launcher.
void conv1d_constant(const float* d_in, float* d_out, const float* h_taps, int n);
// The same with the taps read through a device pointer: d_out[i] = sum_k d_taps[k] * d_in[i + k - ntaps / 2].
void conv1d(const float* d_in, const float* d_taps, float* d_out, int n, int ntaps);
// d_histo[v] = number of bytes equal to v, 256 bins, global atomics. Zeroes d_histo first.
void histogram256(const unsigned char* d_buffer, long size, unsigned int* d_histo);
// d_dst[i] = d_src[d_idx[i]] for i < n.
void gather(float* d_dst, const float* d_src, const int* d_idx, size_t n);
