__global__ void k(const int* in, int* out, unsigned n) {
  for (unsigned i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += blockDim.x * gridDim.x) out[i] = in[i] * 3 + 1;
}
