// golden: vector_width=4 refuses="x is read as vectors and also used by the update"
// The accumulator lives in the array that is read: its elements are not the loads'.
__global__ void k(int n, float* x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&x[n], x[i]);
}
