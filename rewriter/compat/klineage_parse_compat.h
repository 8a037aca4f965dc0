// Force-included (-include) only when KLineage parses CUDA sources with clang 16 (host-only).
// nvcc makes these visible implicitly; clang 16 does not. See ../shared/notes/cuda-parsing.md.
// Declarations only: nothing here is ever compiled into a kernel that runs.
#pragma once
#ifdef __CUDA__
#include <cmath>
#include <ctime>
#include <algorithm>
#include <cuda_runtime.h>

// 1. host min/max (nvcc exposes them on the host; clang 16 declares them for device code only)
#if !defined(__CUDA_ARCH__)
static inline __host__ int min(int a, int b) { return a < b ? a : b; }
static inline __host__ int max(int a, int b) { return a > b ? a : b; }
static inline __host__ unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline __host__ unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline __host__ long long min(long long a, long long b) { return a < b ? a : b; }
static inline __host__ long long max(long long a, long long b) { return a > b ? a : b; }
static inline __host__ unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline __host__ unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
static inline __host__ long min(long a, long b) { return a < b ? a : b; }
static inline __host__ long max(long a, long b) { return a > b ? a : b; }
static inline __host__ unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
static inline __host__ unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
static inline __host__ float min(float a, float b) { return a < b ? a : b; }
static inline __host__ float max(float a, float b) { return a > b ? a : b; }
static inline __host__ double min(double a, double b) { return a < b ? a : b; }
static inline __host__ double max(double a, double b) { return a > b ? a : b; }
#endif
// 2. host isfinite/clock (through <cmath>/<ctime> above, plus unqualified names)
using std::isfinite;
using std::isnan;
using std::isinf;

// 3. cache-hint load/store intrinsics (clang 16 omits sm_32_intrinsics' declarations of these)
#define KLINEAGE_LDST_DECLS(T)                        \
  __device__ T __ldcs(const T*);                      \
  __device__ T __ldcg(const T*);                      \
  __device__ T __ldca(const T*);                      \
  __device__ T __ldlu(const T*);                      \
  __device__ T __ldcv(const T*);                      \
  __device__ void __stcs(T*, T);                      \
  __device__ void __stcg(T*, T);                      \
  __device__ void __stwb(T*, T);                      \
  __device__ void __stwt(T*, T);
KLINEAGE_LDST_DECLS(float)
KLINEAGE_LDST_DECLS(double)
KLINEAGE_LDST_DECLS(int)
KLINEAGE_LDST_DECLS(unsigned int)
KLINEAGE_LDST_DECLS(long long)
KLINEAGE_LDST_DECLS(unsigned long long)
KLINEAGE_LDST_DECLS(char)
KLINEAGE_LDST_DECLS(unsigned char)
KLINEAGE_LDST_DECLS(short)
KLINEAGE_LDST_DECLS(unsigned short)
KLINEAGE_LDST_DECLS(float2)
KLINEAGE_LDST_DECLS(float4)
KLINEAGE_LDST_DECLS(double2)
KLINEAGE_LDST_DECLS(int2)
KLINEAGE_LDST_DECLS(int4)
KLINEAGE_LDST_DECLS(uint2)
KLINEAGE_LDST_DECLS(uint4)
#undef KLINEAGE_LDST_DECLS

// 4. surface functions (declared generically; parsing only)
template <class T> __device__ void surf1Dread(T*, cudaSurfaceObject_t, int, int = 0);
template <class T> __device__ T surf1Dread(cudaSurfaceObject_t, int, int = 0);
template <class T> __device__ void surf2Dread(T*, cudaSurfaceObject_t, int, int, int = 0);
template <class T> __device__ T surf2Dread(cudaSurfaceObject_t, int, int, int = 0);
template <class T> __device__ void surf3Dread(T*, cudaSurfaceObject_t, int, int, int, int = 0);
template <class T> __device__ T surf3Dread(cudaSurfaceObject_t, int, int, int, int = 0);
template <class T> __device__ void surf1Dwrite(T, cudaSurfaceObject_t, int, int = 0);
template <class T> __device__ void surf2Dwrite(T, cudaSurfaceObject_t, int, int, int = 0);
template <class T> __device__ void surf3Dwrite(T, cudaSurfaceObject_t, int, int, int, int = 0);

// 5. APIs CUDA 13 removed that older code still calls (declarations suffice for parsing)
extern "C" __host__ cudaError_t cudaThreadSynchronize(void);
extern "C" __host__ cudaError_t cudaThreadExit(void);
extern "C" __host__ cudaError_t cudaThreadSetCacheConfig(enum cudaFuncCache);
__host__ cudaError_t cudaMemAdvise(const void*, size_t, enum cudaMemoryAdvise, int);
__host__ cudaError_t cudaMemPrefetchAsync(const void*, size_t, int, cudaStream_t = 0);
#endif
