// Host functions of the expert references (src/expert/*.cu, the `expert` library, which KLineage
// does not optimize). Same contracts as the naive wrappers of naive.h; asynchronous on the default
// stream; each returns the first CUDA error (cuBLAS errors map to cudaErrorUnknown).
#pragma once
#include <cuda_runtime.h>

// float4 grid-stride loops (scalar tail when n % 4 != 0; bias_gelu needs cols % 4 == 0 for the
// vector path and falls back to a scalar grid-stride loop otherwise)
cudaError_t expert_saxpy(int n, float a, const float* x, float* y);
cudaError_t expert_relu(int n, const float* in, float* out);
cudaError_t expert_bias_gelu(int n, int cols, const float* in, const float* bias, float* out);

// CUB: cub::DeviceReduce::Sum / ::Max; dot: a grid-stride float4 kernel with cub::BlockReduce
// and one atomicAdd per block. Temporary storage is grown on first use (outside any timing after
// a warm-up call).
cudaError_t expert_reduce_sum(int n, const float* x, float* out);
cudaError_t expert_reduce_dot(int n, const float* x, const float* y, float* out);
cudaError_t expert_reduce_max(int n, const float* x, float* out);

// One warp per row: softmax with an online (max, sum) pass and a write pass; layernorm two-pass
// (mean, then centered variance) with warp shuffles. The row stays in registers when
// cols % 128 == 0 and cols <= 2048, else it is re-read from global memory (L1/L2).
cudaError_t expert_softmax_rows(int rows, int cols, const float* in, float* out);
cudaError_t expert_layernorm_rows(int rows, int cols, float eps, const float* in, const float* gamma,
                                  const float* beta, float* out);

// 32 x 33 padded shared-memory tile, 32 x 8 threads, coalesced loads and stores
cudaError_t expert_transpose(int rows, int cols, const float* in, float* out);

// cublasSgemm, fp32, CUBLAS_DEFAULT_MATH (no TF32), row-major through C^T = B^T * A^T
cudaError_t expert_sgemm(int M, int N, int K, const float* A, const float* B, float* C);
// the math mode the cuBLAS handle uses, for the program's header line
const char* expert_sgemm_math_mode();

// per-block shared-memory bins (privatized), uchar4 grid-stride loads, one global atomicAdd per
// block and bin
cudaError_t expert_histogram(int n, const unsigned char* data, unsigned int* bins);

// more: row_sums and gemv one warp per row, float4 loads (cols % 4 == 0 and 16-byte aligned
// pointers; scalar loads otherwise), warp-shuffle sum; sum_squares and count_positive as the dot
// product: grid-stride float4 loop, cub::BlockReduce, one atomicAdd per block (result zeroed first)
cudaError_t expert_row_sums(int rows, int cols, const float* in, float* out);
cudaError_t expert_gemv(int rows, int cols, const float* A, const float* x, float* y);
cudaError_t expert_sum_squares(int n, const float* x, float* out);
cudaError_t expert_count_positive(int n, const float* x, unsigned int* count);
