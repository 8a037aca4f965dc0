// golden: rows=2
// A 3x3 mean filter of an 8-bit image over the pixels inside it; the row is declared first, its
// line ends with a comment, and the guard names the column first.
__global__ void k(const unsigned char* src, unsigned char* dst, int width, int height)
{
    int y = threadIdx.y + blockDim.y * blockIdx.y;  // image row
    int x = threadIdx.x + blockDim.x * blockIdx.x;
    if (x < width && y < height) {
        int total = 0, n = 0;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                int yy = y + dy, xx = x + dx;
                if (yy >= 0 && yy < height && xx >= 0 && xx < width) {
                    total += src[yy * width + xx];
                    ++n;
                }
            }
        dst[y * width + x] = (unsigned char)(total / n);
    }
}
