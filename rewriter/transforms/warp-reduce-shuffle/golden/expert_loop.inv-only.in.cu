// golden: block_size=128
template <int kBlock>
__global__ void k(const double* __restrict__ a, const double* __restrict__ b, double* dot, int n) {
  double acc = 0.0;
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < n; i += kBlock * gridDim.x) acc += a[i] * b[i];
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    acc = acc + __shfl_xor_sync(0xffffffff, acc, offset, 32);
  }
  if (threadIdx.x % 32 == 0) atomicAdd(dot, acc);
}

template __global__ void k<128>(const double*, const double*, double*, int);
