// Constants before the row index and between it and the guard stay where they are; a double
// accumulator and several outputs per row are kept as written.
__global__ void k(float* out, float* mean, const float* inp, int N, int C) {
  const float eps = 1e-5f;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int last = 0;
  if (idx >= N) return;
  const float* x = inp + idx * C;
  double sum = 0.0;
  for (int i = 0; i < C; i++) sum += x[i];
  float m = (float)(sum / C);
  float* o = out + idx * C;
  for (int i = 0; i < C; i++) o[i] = (x[i] - m) / (m + eps);
  mean[idx] = m + last;
}
