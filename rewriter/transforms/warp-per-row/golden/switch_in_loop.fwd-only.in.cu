// A break inside a switch leaves the switch, not the row loop: the loop can still be strided.
__global__ void k(int rows, int cols, const int* codes, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) {
    switch (codes[r * cols + c]) {
      case 0:
        s += 1.0f;
        break;
      default:
        break;
    }
  }
  out[r] = s;
}
