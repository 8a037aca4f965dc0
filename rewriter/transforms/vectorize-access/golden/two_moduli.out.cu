// Row-periodic operands with different moduli (a column bias and a row-of-channels gain; int
// arrays): each modulus gets its own `% 4 == 0`, a local declared before the loop among them.
__global__ void k(const int* in, const int* bias, const unsigned int* gain, int* out, int n, int cols, int channels) {
  const int period = channels * 2;
  if (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(bias) | reinterpret_cast<unsigned long long>(gain) | reinterpret_cast<unsigned long long>(out)) & 15) == 0 && cols % 4 == 0 && period % 4 == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      int4 kl_in = reinterpret_cast<const int4*>(in)[kl_v];
      int4 kl_bias = reinterpret_cast<const int4*>(bias)[(kl_v * 4 % cols) / 4];
      uint4 kl_gain = reinterpret_cast<const uint4*>(gain)[(kl_v * 4 % period) / 4];
      int4 kl_out;
      {
        int v = kl_in.x + kl_bias.x;
        kl_out.x = v * (int)kl_gain.x;
      }
      {
        int v = kl_in.y + kl_bias.y;
        kl_out.y = v * (int)kl_gain.y;
      }
      {
        int v = kl_in.z + kl_bias.z;
        kl_out.z = v * (int)kl_gain.z;
      }
      {
        int v = kl_in.w + kl_bias.w;
        kl_out.w = v * (int)kl_gain.w;
      }
      reinterpret_cast<int4*>(out)[kl_v] = kl_out;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      int v = in[i] + bias[i % cols];
      out[i] = v * (int)gain[i % period];
    }
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
      int v = in[i] + bias[i % cols];
      out[i] = v * (int)gain[i % period];
    }
  }
}
