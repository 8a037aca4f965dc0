// An expert's padding, spelled without blanks and through a constexpr.
constexpr int kTile = 32;

template <typename T>
__global__ void k(T* __restrict__ o, const T* __restrict__ i, int n) {
  __shared__ T t[kTile][kTile+1];
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  if (x < n && y < n) t[threadIdx.y][threadIdx.x] = i[y * n + x];
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x, oy = blockIdx.x * kTile + threadIdx.y;
  if (ox < n && oy < n) o[oy * n + ox] = t[threadIdx.x][threadIdx.y];
}

template __global__ void k<float>(float*, const float*, int);
