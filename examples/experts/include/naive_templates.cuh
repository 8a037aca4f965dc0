// Naive template kernels kept in a header, as many projects do: one element per thread, scalar
// loads. KLineage rewrites the header in the build tree (the header copy goes first on the naive
// target's include path); this file is never modified.
#pragma once

// y[i] = a * x[i] + y[i] for i < n, for any arithmetic T (launched for float by launch_scale_add)
template <typename T>
__global__ void scale_add(int n, T a, const T* x, T* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
