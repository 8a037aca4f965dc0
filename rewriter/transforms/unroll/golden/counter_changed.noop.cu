// golden: refuses="its body may change the loop counter j"
// The body skips ahead: the trip count is not the one the header says.
__global__ void k(const int* x, int* y) {
  int acc = 0;
  for (int j = 0; j < 8; ++j) {
    acc += x[j];
    if (x[j] < 0) j += 2;
  }
  y[threadIdx.x] = acc;
}
