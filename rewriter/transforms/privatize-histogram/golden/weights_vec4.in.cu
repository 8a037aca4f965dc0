// golden: coarsen=16 vector_width=4
// Weighted counts: the keys and the weights are both read as 4-wide vectors, lane by lane.
__global__ void k(int n, const unsigned int* keys, const int* w, int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[keys[i] & 1023u], w[i]);
}
