// A row softmax with one block per row: float4 loads when the row allows it, the maximum and the
// sum reduced with __shfl_xor_sync inside each warp and through shared memory across warps.
#include <cfloat>

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__global__ void __launch_bounds__(256) style_softmax(const float* __restrict__ input, float* __restrict__ output, int C) {
  __shared__ float shared[32];
  const int row = blockIdx.x, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int warps = blockDim.x / 32;
  const float4* x4 = reinterpret_cast<const float4*>(input + (size_t)row * C);
  float maxval = -FLT_MAX;
  for (int i = tid; i < C / 4; i += blockDim.x) {
    float4 v = __ldg(&x4[i]);
    maxval = fmaxf(maxval, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
  }
  maxval = warpMax(maxval);
  if (lane == 0) shared[warp] = maxval;
  __syncthreads();
  maxval = lane < warps ? shared[lane] : -FLT_MAX;
  maxval = warpMax(maxval);
  __syncthreads();
  float sumval = 0.0f;
  for (int i = tid; i < C / 4; i += blockDim.x) {
    float4 v = __ldg(&x4[i]);
    sumval += expf(v.x - maxval) + expf(v.y - maxval) + expf(v.z - maxval) + expf(v.w - maxval);
  }
  sumval = warpSum(sumval);
  if (lane == 0) shared[warp] = sumval;
  __syncthreads();
  sumval = warpSum(lane < warps ? shared[lane] : 0.0f);
  float4* y4 = reinterpret_cast<float4*>(output + (size_t)row * C);
  for (int i = tid; i < C / 4; i += blockDim.x) {
    float4 v = __ldg(&x4[i]);
    y4[i] = make_float4(expf(v.x - maxval) / sumval, expf(v.y - maxval) / sumval, expf(v.z - maxval) / sumval,
                        expf(v.w - maxval) / sumval);
  }
}

void styleSoftmax(const float* in, float* out, int N, int C) { style_softmax<<<N, 256>>>(in, out, C); }
