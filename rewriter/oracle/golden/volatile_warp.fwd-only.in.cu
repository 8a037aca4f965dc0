// the classic last-warp unrolled reduction through a volatile pointer into shared memory
__global__ void k(const float* x, float* out, unsigned n) {
  __shared__ float sdata[128];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * 128 + tid;
  sdata[tid] = i < n ? x[i] : 0;
  __syncthreads();
  if (tid < 64) sdata[tid] += sdata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    volatile float* vs = sdata;
    vs[tid] += vs[tid + 32];
    vs[tid] += vs[tid + 16];
    vs[tid] += vs[tid + 8];
    vs[tid] += vs[tid + 4];
    vs[tid] += vs[tid + 2];
    vs[tid] += vs[tid + 1];
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
