// A transpose through a padded shared-memory tile: TILE x TILE elements per block, BLOCK_ROWS rows
// of threads each copying TILE / BLOCK_ROWS elements, one column of padding against bank conflicts.
#define TILE 32
#define BLOCK_ROWS 8

__global__ void style_transpose(float* __restrict__ odata, const float* __restrict__ idata, int width, int height) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += BLOCK_ROWS)
    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

void styleTranspose(float* out, const float* in, int width, int height) {
  dim3 threads(TILE, BLOCK_ROWS);
  dim3 grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
  style_transpose<<<grid, threads>>>(out, in, width, height);
}
