__global__ void k(const int* in, int* out, unsigned n) {
  unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) out[i] = in[i] * 3 + 1;
}
