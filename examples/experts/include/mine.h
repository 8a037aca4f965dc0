// The mineable experts (src/mine/, target mine_experts): expert kernels written in the forms the
// transforms' inverses recognize, for `klineage mine` (docs/lineage.md). src/mine_main.cu runs them
// (`experts --only mine`), so `RUN experts ARGS --only mine` captures their launches. Each is the
// naive kernel of the same name in src/naive/ (include/naive.h) as KLineage's transforms write it,
// launched on the naive kernel's sizes. Pointers are device pointers and not const (restrict-pointers'
// inverse drops the const it removes __restrict__ with); each launches on the default stream and
// returns cudaGetLastError().
#pragma once
#include <cuda_runtime.h>

// ---- elementwise (restrict-pointers + grid-stride-loop + vectorize-access)
cudaError_t launch_mine_saxpy(int n, float a, float* x, float* y);
cudaError_t launch_mine_relu(int n, float* in, float* out);
cudaError_t launch_mine_bias_gelu(int n, int cols, float* in, float* bias, float* out);

// ---- reductions: block-reduce-atomic (sum: + restrict-pointers + launch-bounds; dot: unroll 4),
// block-reduce-cas (max); *out is (re)initialized by the launch function
cudaError_t launch_mine_reduce_sum(int n, float* x, float* out);
cudaError_t launch_mine_reduce_dot(int n, float* x, float* y, float* out);
cudaError_t launch_mine_reduce_max(int n, float* x, float* out);
// ... and with float4 loads (the -vec4 skills' parameters), without __restrict__ / __launch_bounds__
cudaError_t launch_mine_reduce_sum_vec4(int n, float* x, float* out);
cudaError_t launch_mine_reduce_max_vec4(int n, float* x, float* out);

// ---- rows: warp-per-row (unroll 4) + row-registers
cudaError_t launch_mine_softmax_rows(int rows, int cols, float* in, float* out);
cudaError_t launch_mine_layernorm_rows(int rows, int cols, float eps, float* in, float* gamma, float* beta,
                                       float* out);

// ---- transpose: tile-transpose (32 x 8 threads)
cudaError_t launch_mine_transpose(int rows, int cols, float* in, float* out);

// ---- sgemm: tile-sgemm + restrict-pointers + launch-bounds
cudaError_t launch_mine_sgemm(int M, int N, int K, float* A, float* B, float* C);

// ---- histogram: privatize-histogram (coarsen 256); bins are zeroed by the launch function
cudaError_t launch_mine_histogram(int n, unsigned char* data, unsigned int* bins);

// Runs every mineable expert once on fixed inputs (the naive kernels' sizes and inputs, src/main.cu;
// `quick`: its --quick sizes), checks each against a CPU reference, prints one line each
// (`mine<TAB>kernel<TAB>ok|FAIL`); false on a failed check or a CUDA error.
bool run_mine_experts(bool quick);
