// Host launch wrappers of the naive kernels (src/naive/*.cu): the kernels as a user would first
// write them, and the `naive` library that KLineage optimizes. Pointers are device pointers; each
// wrapper launches asynchronously on the default stream and returns cudaGetLastError().
#pragma once
#include <cuda_runtime.h>

// ---- elementwise (src/naive/elementwise.cu), one element per thread
// y[i] = a * x[i] + y[i] for i < n
cudaError_t launch_saxpy(int n, float a, const float* x, float* y);
// out[i] = max(in[i], 0)
cudaError_t launch_relu(int n, const float* in, float* out);
// out[i] = gelu(in[i] + bias[i % cols]) (erf GELU); in is a row-major matrix with `cols` columns
cudaError_t launch_bias_gelu(int n, int cols, const float* in, const float* bias, float* out);
// y[i] = a * x[i] + y[i] for i < n: the template kernel scale_add<float> of include/naive_templates.cuh
cudaError_t launch_scale_add(int n, float a, const float* x, float* y);

// ---- reductions (src/naive/reduce.cu), one thread per element, one atomic per element into a
// single global value; *out is (re)initialized by the wrapper
// *out = sum x[i]
cudaError_t launch_reduce_sum(int n, const float* x, float* out);
// *out = sum x[i] * y[i]
cudaError_t launch_reduce_dot(int n, const float* x, const float* y, float* out);
// *out = max x[i] (n >= 1)
cudaError_t launch_reduce_max(int n, const float* x, float* out);

// ---- row-wise (src/naive/rows.cu), one thread per row of a row-major rows x cols matrix
// out[r][c] = exp(in[r][c] - max_r) / sum_c exp(in[r][c] - max_r)
cudaError_t launch_softmax_rows(int rows, int cols, const float* in, float* out);
// out[r][c] = (in[r][c] - mean_r) / sqrt(var_r + eps) * gamma[c] + beta[c] (biased variance)
cudaError_t launch_layernorm_rows(int rows, int cols, float eps, const float* in, const float* gamma,
                                  const float* beta, float* out);

// ---- transpose (src/naive/transpose.cu): out (cols x rows) = in (rows x cols)^T, row-major
cudaError_t launch_transpose(int rows, int cols, const float* in, float* out);

// ---- sgemm (src/naive/sgemm.cu): C (M x N) = A (M x K) * B (K x N), row-major, fp32, one thread
// per element of C
cudaError_t launch_sgemm(int M, int N, int K, const float* A, const float* B, float* C);

// ---- histogram (src/naive/histogram.cu): bins[v] = #{i : data[i] == v}, 256 bins, one global
// atomicAdd per element; bins is zeroed by the wrapper
cudaError_t launch_histogram(int n, const unsigned char* data, unsigned int* bins);

// ---- more (src/naive/more.cu): one thread per row (row_sums, gemv) of a row-major rows x cols
// matrix, or one atomic per element into a single global value (sum_squares, count_positive;
// the result is zeroed by the wrapper)
// out[r] = sum_c in[r][c]
cudaError_t launch_row_sums(int rows, int cols, const float* in, float* out);
// y[r] = sum_c A[r][c] * x[c] (y = A x)
cudaError_t launch_gemv(int rows, int cols, const float* A, const float* x, float* y);
// *out = sum x[i]^2
cudaError_t launch_sum_squares(int n, const float* x, float* out);
// *count = #{i : x[i] > 0}
cudaError_t launch_count_positive(int n, const float* x, unsigned int* count);
