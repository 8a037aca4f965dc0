// shape: grid from a member of a by-value struct launcher parameter, (p.n + 255) / 256, the kernel receives p.n as n
// kernel: scale_by
// args: n=1000 s=2
// refuse: p.n
#include <cuda_runtime.h>

struct ScaleParams {
  int n;
  float s;
};

__global__ void scale_by(const float* x, float* y, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s * x[i];
}

void launch_scale_by(const float* x, float* y, ScaleParams p) {
  scale_by<<<(p.n + 255) / 256, 256>>>(x, y, p.n, p.s);
}
