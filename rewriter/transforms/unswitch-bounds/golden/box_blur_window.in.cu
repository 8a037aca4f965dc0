// golden:
// A 3x3 mean of an 8-bit image over the pixels of the window inside the image: the window's
// offsets in nested counted loops, the tap's coordinates in locals, one guard a tap.
#define RADIUS 1
__global__ void k(const unsigned char* src, unsigned char* dst, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        int acc = 0;
        int n = 0;
        for (int oy = -RADIUS; oy <= RADIUS; ++oy) {
            for (int ox = -RADIUS; ox <= RADIUS; ++ox) {
                int sy = y + oy;
                int sx = x + ox;
                if (sy >= 0 && sy < height && sx >= 0 && sx < width) {
                    acc += src[sy * width + sx];
                    n++;
                }
            }
        }
        dst[y * width + x] = (unsigned char)(acc / n);
    }
}
