// Launchers of the launch-sites example's kernels. Pointers are device pointers, arrays row-major.
// Each launcher only launches (asynchronously, on the default stream) and returns; the caller checks
// cudaGetLastError() and synchronizes, as code built on such launchers usually does.
#pragma once
#include <cuda_runtime.h>

// out (cols x rows) = in (rows x cols) transposed: out[c][r] = in[r][c]. in and out do not overlap.
void transpose(const float* in, float* out, int rows, int cols);

// C = alpha * A * B + beta * C, with A M x K, B K x N and C M x N.
void sgemm(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C);

// One explicit step of the heat equation on an nx x ny grid (nx columns, ny rows): for every interior
// point, out = in + alpha * (left + right + up + down - 4 * in). The boundary of out is not written.
void stencil(const float* in, float* out, int nx, int ny, float alpha);

// out[r] = softmax(in[r]) for each of the rows, one thread per row on blocks of block_size threads.
void row_softmax(const float* in, float* out, int rows, int cols, int block_size);

// *out = sum of in[0 .. n): sets *out to 0, then one block-level sum and one atomicAdd per block of
// `threads` threads (128, 256 or 512; anything else launches nothing and reports it on stderr).
void reduce_sum(const float* in, float* out, int n, int threads);
