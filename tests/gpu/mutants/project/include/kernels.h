// Host launch wrappers of the mutant suite's kernels. Pointers are device pointers; each wrapper
// only launches (asynchronously, on the default stream) and returns cudaGetLastError().
#pragma once
#include <cuda_runtime.h>

// y[i] = a * x[i] + y[i] for i < n
cudaError_t launch_saxpy(int n, float a, const float* x, float* y);

// out[i] = max(in[i], 0) for i < n
cudaError_t launch_relu(int n, const float* in, float* out);

// partial[b] = x[256 b] + ... + x[256 b + 255] (elements past n count as 0), b < (n + 255) / 256
cudaError_t launch_block_sum(int n, const float* x, float* partial);

// out[r] = x[r * cols] + ... + x[r * cols + cols - 1] for r < rows (one thread per row, a float
// accumulator: its workload gives no tolerance, so the gate judges it against the oracle)
cudaError_t launch_row_sum(int rows, int cols, const float* x, float* out);
