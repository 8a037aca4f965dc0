// golden: block=16x16 layout=vec4
// The transfer suite's linear layer after canonicalization (row pointers substituted, NULL as
// nullptr), loop braced and written `c++`: tiled with float4 shared-memory reads.
__global__ void k(float* out, const float* inp, const float* weight, const float* bias,
                  int BT, int C, int OC)
{
    // kl: a 64 x 64 tile of C per 16 x 16 block, 4 x 4 consecutive outputs per thread (read as float4 from shared memory), K in steps of 16
    __shared__ __align__(16) float kl_As[16][64 + 4];  // A's tile, transposed
    __shared__ __align__(16) float kl_Bs[16][64 + 4];  // B's tile, transposed
    const int kl_r0 = blockIdx.x * 64;
    const int kl_c0 = blockIdx.y * 64;
    const int kl_t = threadIdx.y * 16 + threadIdx.x;
    float kl_acc[4][4];
    #pragma unroll
    for (int kl_i = 0; kl_i < 4; ++kl_i)
        #pragma unroll
        for (int kl_j = 0; kl_j < 4; ++kl_j) {
            int t = kl_r0 + threadIdx.y * 4 + kl_i;
            int o = kl_c0 + threadIdx.x * 4 + kl_j;
            kl_acc[kl_i][kl_j] = t < BT && o < OC ? ((bias != nullptr) ? bias[o] : 0.0f) : 0.0f;
        }
    for (int kl_k0 = 0; kl_k0 < C; kl_k0 += 16) {
        #pragma unroll
        for (int kl_i = 0; kl_i < 4; ++kl_i) {
            int t = kl_r0 + kl_t / 16 + 16 * kl_i;
            int c = kl_k0 + kl_t % 16;
            kl_As[kl_t % 16][kl_t / 16 + 16 * kl_i] = t < BT && c < C ? inp[t * C + c] : 0.0f;
        }
        #pragma unroll
        for (int kl_i = 0; kl_i < 4; ++kl_i) {
            int c = kl_k0 + kl_t % 16;
            int o = kl_c0 + kl_t / 16 + 16 * kl_i;
            kl_Bs[kl_t % 16][kl_t / 16 + 16 * kl_i] = c < C && o < OC ? weight[o * C + c] : 0.0f;
        }
        __syncthreads();
        #pragma unroll
        for (int kl_kk = 0; kl_kk < 16; ++kl_kk) {
            const float4 kl_a4 = *reinterpret_cast<const float4*>(&kl_As[kl_kk][threadIdx.y * 4]);
            const float4 kl_b4 = *reinterpret_cast<const float4*>(&kl_Bs[kl_kk][threadIdx.x * 4]);
            const float kl_a[4] = {kl_a4.x, kl_a4.y, kl_a4.z, kl_a4.w};
            const float kl_b[4] = {kl_b4.x, kl_b4.y, kl_b4.z, kl_b4.w};
            #pragma unroll
            for (int kl_i = 0; kl_i < 4; ++kl_i)
                #pragma unroll
                for (int kl_j = 0; kl_j < 4; ++kl_j) kl_acc[kl_i][kl_j] += kl_a[kl_i] * kl_b[kl_j];
        }
        __syncthreads();
    }
    #pragma unroll
    for (int kl_i = 0; kl_i < 4; ++kl_i)
        #pragma unroll
        for (int kl_j = 0; kl_j < 4; ++kl_j) {
            int t = kl_r0 + threadIdx.y * 4 + kl_i;
            int o = kl_c0 + threadIdx.x * 4 + kl_j;
            if (t < BT && o < OC) {
                float val = kl_acc[kl_i][kl_j];
                out[t * OC + o] = val;
            }
        }
}
