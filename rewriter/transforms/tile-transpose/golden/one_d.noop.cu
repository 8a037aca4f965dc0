// golden: block=16x16 refuses="statements, not the 3 of"
__global__ void k(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
