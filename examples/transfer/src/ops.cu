// Launchers of the kernels kept in headers (include/transfer/kernels.cuh and detail/*.cuh).
#include <algorithm>

#include "transfer/kernels.cuh"
#include "transfer/launch_utils.h"
#include "transfer/transfer.h"

void gelu_forward(float* out, const float* inp, int N, int block_size)
{
    // grid-stride kernel: no need for more blocks than the GPU can keep busy
    const int grid_size = std::min(ceil_div(N, block_size), 1024);
    transfer::detail::gelu_tanh_kernel<<<grid_size, block_size>>>(out, inp, N);
}

void relu_inplace(float* data, int n)
{
    const int threads = 256;
    transfer::detail::relu_inplace_kernel<<<ceil_div(n, threads), threads>>>(data, n);
}

using transfer::detail::kSumThreads;
using transfer::detail::sum_kernel;

template <typename T>
static void launch_sum(const T* d_in, T* d_out, size_t n)
{
    size_t blocks = (n + kSumThreads - 1) / kSumThreads;
    if (blocks > 2048) blocks = 2048;
    if (blocks == 0) blocks = 1;
    cudaMemsetAsync(d_out, 0, sizeof(T));
    sum_kernel<T><<<(unsigned)blocks, kSumThreads>>>(d_in, d_out, n);
}

void sum_f32(const float* d_in, float* d_out, size_t n) { launch_sum<float>(d_in, d_out, n); }

void sum_f64(const double* d_in, double* d_out, size_t n) { launch_sum<double>(d_in, d_out, n); }
