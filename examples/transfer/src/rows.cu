// Softmax and layernorm over the rows of an (N, C) matrix, one thread per row, the way a first CUDA
// port of the CPU loops looks.
#include <math.h>

#include "transfer/launch_utils.h"
#include "transfer/transfer.h"

__global__ void softmax_forward_kernel(float* out, const float* inp, int N, int C)
{
    // inp and out are (N, C); thread idx owns row idx
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N) {
        const float* x = inp + idx * C;
        float* y = out + idx * C;

        float maxval = -INFINITY;
        for (int j = 0; j < C; j++) {
            if (x[j] > maxval) {
                maxval = x[j];
            }
        }
        float sum = 0.0f;
        for (int j = 0; j < C; j++) {
            y[j] = expf(x[j] - maxval);
            sum += y[j];
        }
        float norm = 1.0f / sum;
        for (int j = 0; j < C; j++) {
            y[j] *= norm;
        }
    }
}

void softmax_forward(float* out, const float* inp, int N, int C, int block_size)
{
    const int grid = ceil_div(N, block_size);
    softmax_forward_kernel<<<grid, block_size>>>(out, inp, N, C);
}

// Mean and variance are accumulated in double so long rows lose nothing; mean and rstd are kept
// for the backward pass.
__global__ void layernorm_forward_kernel(float* out, float* mean, float* rstd, const float* inp,
                                         const float* weight, const float* bias, int N, int C)
{
    const float eps = 1e-5f;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N) return;

    const float* x = inp + idx * C;

    double sum = 0.0;
    for (int i = 0; i < C; i++) {
        sum += x[i];
    }
    float m = (float)(sum / C);

    double sq = 0.0;
    for (int i = 0; i < C; i++) {
        float d = x[i] - m;
        sq += d * d;
    }
    float s = (float)(1.0 / sqrt(sq / C + eps));

    float* o = out + idx * C;
    for (int i = 0; i < C; i++) {
        float n = s * (x[i] - m);
        o[i] = n * weight[i] + bias[i];
    }
    mean[idx] = m;
    rstd[idx] = s;
}

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int N, int C, int block_size)
{
    const int grid = ceil_div(N, block_size);
    layernorm_forward_kernel<<<grid, block_size>>>(out, mean, rstd, inp, weight, bias, N, C);
}
