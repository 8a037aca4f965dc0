// golden: rows=8
// 64-bit indices written with casts, a pitch that is not the width, and the row bound in a guard
// nested inside the column's; scale-and-shift of a matrix in place.
__global__ void k(float* m, size_t pitch, size_t cols, size_t rows, float a, float b)
{
    const size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t r = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (c < cols) {
        if (r < rows) {
            float v = m[r * pitch + c];
            m[r * pitch + c] = a * v + b;
        }
    }
}
