// golden: block_size=none
// A template kernel calling a template helper with its own template parameter.
template <unsigned int kBlock>
__device__ void tail(volatile float* s, unsigned int tid) {
  if (kBlock >= 64) s[tid] += s[tid + 32];
  if (kBlock >= 32) s[tid] += s[tid + 16];
}

template <unsigned int kBlock>
__global__ void k(const float* in, float* out) {
  __shared__ float s[kBlock];
  s[threadIdx.x] = in[blockIdx.x * kBlock + threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 32) tail<kBlock>(s, threadIdx.x);
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

template __global__ void k<64>(const float*, float*);
