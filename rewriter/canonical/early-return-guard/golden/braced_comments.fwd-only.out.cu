// The return in braces; comments and blank lines move into the guard with the code.
__global__ void k(const float* in, float* out, float scale, long n)
{
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    // scale, then clamp
    float v = in[i] * scale;

    out[i] = v > 1.0f ? 1.0f : v;  // saturate
  }
}
