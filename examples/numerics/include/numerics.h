// Launchers of the numerics example's kernels. Pointers are device pointers; each launcher only
// launches (asynchronously) and returns cudaGetLastError().
#pragma once
#include <cuda_runtime.h>

// out[r] = sum of x[r][0 .. cols)
cudaError_t row_sum(const float* x, float* out, int rows, int cols);
// y[r] = sum of A[r][c] * v[c]
cudaError_t gemv(const float* A, const float* v, float* y, int rows, int cols);
// out[c] = sum of x[0 .. rows)[c]
cudaError_t col_sum(const float* x, float* out, int rows, int cols);
// out[r][i] = sum over t of taps[t] * in[r][i + t - ntaps / 2] (zero outside the row)
cudaError_t conv1d(const float* in, const float* taps, float* out, int rows, int cols, int ntaps);
