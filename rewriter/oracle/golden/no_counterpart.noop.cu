// golden: refuses="calls sincosf"
__global__ void k(int n, const float* angle, float* re, float* im) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s, c;
    sincosf(angle[i] * 0.5f, &s, &c);
    re[i] = c;
    im[i] = s;
  }
}
