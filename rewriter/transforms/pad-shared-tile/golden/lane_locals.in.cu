// The lane index through locals, a literal tile size, and a transposed write instead of a read.
__global__ void k(double* dst, const double* src, long rows, long cols) {
  __shared__ double buf[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int lane = tx;
  long r = blockIdx.y * 16L + ty, c = blockIdx.x * 16L + tx;
  if (r < rows && c < cols) buf[lane][ty] = src[r * cols + c];
  __syncthreads();
  r = blockIdx.x * 16L + ty;
  c = blockIdx.y * 16L + tx;
  if (r < cols && c < rows) dst[r * rows + c] = buf[ty][lane];
}
