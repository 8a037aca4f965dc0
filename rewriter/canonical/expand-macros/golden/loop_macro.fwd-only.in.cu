// A grid-stride loop written as a macro (a common spelling in frameworks).
#define GRID_LOOP(idx, count) \
  for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < (count); idx += blockDim.x * gridDim.x)

__global__ void k(const float* x, float* y, float a, int n)
{
    GRID_LOOP(i, n) {
        y[i] = a * x[i] + y[i];
    }
}
