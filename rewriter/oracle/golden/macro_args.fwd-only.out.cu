// macros: a float read inside a macro's argument is promoted, and so is a type written by a macro's
// use (the use is edited, never the macro's body); a literal in a macro's body stays as it is
#define EPS 1e-6f
#define REAL float
#define SQR(v) ((v) * (v))

__global__ void k(int n, const float* x, const float* y, float* d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double dist = sqrt(SQR((double)(x[i]) - y[i]) + EPS);
    d[i] = dist;
  }
}
