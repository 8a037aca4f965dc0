// golden: rows=4
// A 5-point Laplacian, one output per thread, the border set to zero: the column first, then the row.
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
