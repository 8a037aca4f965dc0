// Bounds from a constexpr variable and from a template's static constant.
constexpr int kTaps = 5;

template <int N>
struct Tile {
  static constexpr int size = N;
};

__global__ void k(const float* x, const float* w, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + kTaps > n) return;
  float acc = 0.0f;
  for (int t = 0; t < kTaps; t++) acc += w[t] * x[i + t];
  float v[Tile<8>::size];
  for (unsigned j = 0; j < Tile<8>::size; j += 2) {
    v[j] = acc;
    v[j + 1] = -acc;
  }
  y[i] = v[0] + v[7];
}
