// golden: vector_width=16 refuses="the value uses i other than as p[i]"
// The added value depends on the element's position, not only on what is loaded there.
__global__ void k(int n, const unsigned char* data, unsigned int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], (unsigned)(i & 1));
}
