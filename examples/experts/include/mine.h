// The mineable experts (src/mine/, target mine_experts): expert kernels written in the forms the
// transforms' inverses recognize, for `klineage mine` (docs/lineage.md). src/mine_main.cu runs them
// (`experts --only mine`), so `RUN experts ARGS --only mine` captures their launches.
#pragma once
#include <cuda_runtime.h>

cudaError_t launch_mine_reduce_sum(int n, float* x, float* out);
cudaError_t launch_mine_sgemm(int M, int N, int K, float* A, float* B, float* C);

// Runs both on fixed inputs, checks them against a CPU reference, prints one line each; false on a
// failed check.
bool run_mine_experts(bool quick);
