// Forward pass of a linear layer, out = inp @ weight^T + bias, with the weight stored as
// (out_features, in_features) the way PyTorch keeps it. One thread per output element; the first
// grid dimension runs over tokens, the second over output features.
#include <cstddef>

#include "transfer/launch_utils.h"
#include "transfer/transfer.h"

__global__ void linear_forward_nt(float* out, const float* inp, const float* weight, const float* bias,
                                  int BT, int C, int OC)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;  // token (row of inp and out)
    int o = blockIdx.y * blockDim.y + threadIdx.y;  // output feature (row of weight)
    if (t < BT && o < OC) {
        const float* x = inp + t * C;
        const float* w = weight + o * C;
        float val = (bias != NULL) ? bias[o] : 0.0f;
        for (int c = 0; c < C; c++) {
            val += x[c] * w[c];
        }
        out[t * OC + o] = val;
    }
}

void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int BT, int C,
                    int OC, int sqrt_block_size)
{
    dim3 grid_dim(ceil_div(BT, sqrt_block_size), ceil_div(OC, sqrt_block_size));
    dim3 block_dim(sqrt_block_size, sqrt_block_size);
    linear_forward_nt<<<grid_dim, block_dim>>>(out, inp, weight, bias, BT, C, OC);
}
