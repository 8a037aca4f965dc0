// Row-periodic operands with different moduli (a column bias and a row-of-channels gain; int
// arrays): each modulus gets its own `% 4 == 0`, a local declared before the loop among them.
__global__ void k(const int* in, const int* bias, const unsigned int* gain, int* out, int n, int cols, int channels) {
  const int period = channels * 2;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int v = in[i] + bias[i % cols];
    out[i] = v * (int)gain[i % period];
  }
}
