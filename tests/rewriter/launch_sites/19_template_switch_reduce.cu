// shape: templated reduction launched per case of switch (threads), reduce<256><<<grid, 256, smem>>> is the taken case
// kernel: reduce
// site: 2
// args: n=100000
// launcher: threads=256
// grid: 196 1 1
// block: 256 1 1
// shmem: 1024
#include <cuda_runtime.h>

template <unsigned B>
__global__ void reduce(const float* in, float* out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (B * 2) + tid;
  float v = 0.0f;
  if (i < n) v += in[i];
  if (i + B < n) v += in[i + B];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = B / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

void reduce_dispatch(const float* in, float* out, unsigned n, int threads) {
  unsigned blocks = (n + threads * 2 - 1) / (threads * 2);
  dim3 grid(blocks, 1, 1);
  int smem = threads * sizeof(float);
  switch (threads) {
    case 512:
      reduce<512><<<grid, 512, smem>>>(in, out, n);
      break;
    case 256:
      reduce<256><<<grid, 256, smem>>>(in, out, n);
      break;
    case 128:
      reduce<128><<<grid, 128, smem>>>(in, out, n);
      break;
    case 64:
      reduce<64><<<grid, 64, smem>>>(in, out, n);
      break;
  }
}
