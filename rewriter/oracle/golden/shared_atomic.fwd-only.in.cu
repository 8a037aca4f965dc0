// a block's histogram of weights in shared memory (atomicAdd on promoted storage is a double atomic)
__global__ void k(int n, const int* bin, const float* w, float* out) {
  __shared__ float hist[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x) hist[b] = 0.0f;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&hist[bin[i] & 63], w[i]);
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x) out[blockIdx.x * 64 + b] = hist[b];
}
