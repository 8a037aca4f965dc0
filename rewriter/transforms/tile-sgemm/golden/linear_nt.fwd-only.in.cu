// golden: block=16x16 layout=vec4
// The transfer suite's linear layer after canonicalization (row pointers substituted, NULL as
// nullptr), loop braced and written `c++`: tiled with float4 shared-memory reads.
__global__ void k(float* out, const float* inp, const float* weight, const float* bias,
                  int BT, int C, int OC)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;  // token (row of inp and out)
    int o = blockIdx.y * blockDim.y + threadIdx.y;  // output feature (row of weight)
    if (t < BT && o < OC) {
        float val = (bias != nullptr) ? bias[o] : 0.0f;
        for (int c = 0; c < C; c++) {
            val += inp[t * C + c] * weight[o * C + c];
        }
        out[t * OC + o] = val;
    }
}
