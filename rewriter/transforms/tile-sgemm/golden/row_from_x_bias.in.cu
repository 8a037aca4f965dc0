// golden: block=16x16
// A linear layer out = inp * weight^T + bias in normal form: the x index t runs over the rows of
// out (tokens), the y index o over its columns (output features); the sum starts from the bias.
__global__ void k(float* out, const float* inp, const float* weight, const float* bias, int BT, int C, int OC) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int o = blockIdx.y * blockDim.y + threadIdx.y;
  if (t < BT && o < OC) {
    float val = (bias != nullptr) ? bias[o] : 0.0f;
    for (int c = 0; c < C; ++c) val += inp[t * C + c] * weight[o * C + c];
    out[t * OC + o] = val;
  }
}
