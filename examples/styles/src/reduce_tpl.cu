// A block reduction as the vendor samples write it: the block size a template parameter, two loads
// per thread in a grid-stride loop, a shared-memory tree down to one warp, then a warp-synchronous
// tail through a volatile pointer, one atomicAdd per block.
template <unsigned int kBlock>
__device__ __forceinline__ void warpTail(volatile float* s, unsigned int tid) {
  if (kBlock >= 64) s[tid] += s[tid + 32];
  if (kBlock >= 32) s[tid] += s[tid + 16];
  if (kBlock >= 16) s[tid] += s[tid + 8];
  if (kBlock >= 8) s[tid] += s[tid + 4];
  if (kBlock >= 4) s[tid] += s[tid + 2];
  if (kBlock >= 2) s[tid] += s[tid + 1];
}

template <unsigned int kBlock>
__global__ void __launch_bounds__(kBlock) style_reduce_sum(const float* __restrict__ g_in, float* __restrict__ g_out,
                                                           unsigned int n) {
  __shared__ float sdata[kBlock];
  const unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (kBlock * 2) + tid;
  const unsigned int gridSize = kBlock * 2 * gridDim.x;
  float mySum = 0.0f;
  while (i < n) {
    mySum += g_in[i];
    if (i + kBlock < n) mySum += g_in[i + kBlock];
    i += gridSize;
  }
  sdata[tid] = mySum;
  __syncthreads();
  if (kBlock >= 512) { if (tid < 256) sdata[tid] = mySum = mySum + sdata[tid + 256]; __syncthreads(); }
  if (kBlock >= 256) { if (tid < 128) sdata[tid] = mySum = mySum + sdata[tid + 128]; __syncthreads(); }
  if (kBlock >= 128) { if (tid < 64) sdata[tid] = mySum = mySum + sdata[tid + 64]; __syncthreads(); }
  if (tid < 32) warpTail<kBlock>(sdata, tid);
  if (tid == 0) atomicAdd(g_out, sdata[0]);
}

void styleReduceSum(const float* in, float* out, unsigned int n, int blocks) {
  style_reduce_sum<256><<<blocks, 256>>>(in, out, n);
}
