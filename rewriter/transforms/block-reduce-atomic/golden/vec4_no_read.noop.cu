// golden: vector_width=4 refuses="the value reads no pointer parameter at the index i"
// A count of the elements: nothing is read, nothing to load as vectors.
__global__ void k(int n, unsigned int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(count, 1u);
}
