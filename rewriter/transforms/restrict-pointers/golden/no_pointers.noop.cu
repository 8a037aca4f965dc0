// golden: refuses="the kernel has no pointer parameters"
__device__ int counter;

__global__ void k(int n) {
  if (blockIdx.x * blockDim.x + threadIdx.x < n) atomicAdd(&counter, 1);
}
