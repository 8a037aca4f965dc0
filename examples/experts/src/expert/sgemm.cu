// Expert sgemm: cuBLAS cublasSgemm in fp32. Math mode CUBLAS_DEFAULT_MATH: for cublasSgemm this is
// plain fp32 FMA (TF32 tensor cores only with CUBLAS_TF32_TENSOR_OP_MATH, which is not set; the
// NVIDIA_TF32_OVERRIDE environment variable can only disable TF32, never enable it).
// Row-major C = A * B is column-major C^T = B^T * A^T, so cuBLAS is called with the operands
// swapped: (n, m, k) = (N, M, K), B with ld N first, A with ld K second, C with ld N.
#include <cublas_v2.h>

#include "experts.h"

namespace {

cublasHandle_t handle() {
  static cublasHandle_t h = nullptr;
  if (!h) {
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return nullptr;
    if (cublasSetMathMode(h, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) return nullptr;
    if (cublasSetStream(h, 0) != CUBLAS_STATUS_SUCCESS) return nullptr;
  }
  return h;
}

}  // namespace

cudaError_t expert_sgemm(int M, int N, int K, const float* A, const float* B, float* C) {
  cublasHandle_t h = handle();
  if (!h) return cudaErrorUnknown;
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t s = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, C, N);
  if (s != CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
  return cudaGetLastError();
}

const char* expert_sgemm_math_mode() {
  cublasHandle_t h = handle();
  cublasMath_t mode{};
  if (!h || cublasGetMathMode(h, &mode) != CUBLAS_STATUS_SUCCESS) return "unknown (no cuBLAS handle)";
  if (mode == CUBLAS_DEFAULT_MATH) return "CUBLAS_DEFAULT_MATH (fp32, no TF32)";
  if (mode == CUBLAS_PEDANTIC_MATH) return "CUBLAS_PEDANTIC_MATH";
  return "other (check: may allow TF32)";
}
