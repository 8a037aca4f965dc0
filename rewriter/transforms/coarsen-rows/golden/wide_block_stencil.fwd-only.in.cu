// golden: block=16x16 rows=4 block_x=64
// The 5-point Laplacian with its 16 x 16 block made 64 x 4 as well: 4 rows a thread, grid.x / 4,
// grid.y * 16 / 16 (the same threads cover the same columns and rows).
__global__ void k(const float* u, float* lap, int nx, int ny, float scale)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < ny && col < nx) {
        if (row == 0 || row == ny - 1 || col == 0 || col == nx - 1) {
            lap[row * nx + col] = 0.0f;
        } else {
            float c = u[row * nx + col];
            float s = u[(row - 1) * nx + col] + u[(row + 1) * nx + col] + u[row * nx + col - 1] + u[row * nx + col + 1];
            lap[row * nx + col] = (s - 4.0f * c) * scale;
        }
    }
}
