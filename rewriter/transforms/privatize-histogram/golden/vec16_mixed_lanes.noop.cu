// golden: vector_width=16 refuses="w has element type const int: 4 lanes a 16-byte vector, not vector_width 16"
// Byte keys with int weights: no single vector width gives both a lane per element.
__global__ void k(int n, const unsigned char* data, const int* w, int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], w[i]);
}
