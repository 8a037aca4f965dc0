// Host launch wrappers of the capture-edges kernels (device pointers; asynchronous launches).
#pragma once
#include <cuda_runtime.h>

// y[i] = a * x[i] for i < n
cudaError_t launch_scale(int n, float a, const float* x, float* y);

// y[i] = c0 + c1 x + c2 x^2 + c3 x^3 with c from set_poly_coefficients
cudaError_t set_poly_coefficients(const float c[4]);
cudaError_t launch_poly(int n, const float* x, float* y);
