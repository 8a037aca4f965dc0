// 3x3 box blur of an 8-bit grayscale image: each output pixel is the average of the input pixels
// of its window that fall inside the image (fewer at the borders).
#include <math.h>

#include "transfer/transfer.h"

#define BLUR_RADIUS 1

__global__ void box_blur_kernel(const unsigned char* in, unsigned char* out, int w, int h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (col < w && row < h) {
        int sum = 0;
        int count = 0;
        for (int dy = -BLUR_RADIUS; dy <= BLUR_RADIUS; ++dy) {
            for (int dx = -BLUR_RADIUS; dx <= BLUR_RADIUS; ++dx) {
                int yy = row + dy;
                int xx = col + dx;
                if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
                    sum += in[yy * w + xx];
                    count++;
                }
            }
        }
        out[row * w + col] = (unsigned char)(sum / count);
    }
}

void box_blur(const unsigned char* d_in, unsigned char* d_out, int width, int height)
{
    dim3 dimBlock(16, 16, 1);
    dim3 dimGrid(ceil(width / 16.0), ceil(height / 16.0), 1);
    box_blur_kernel<<<dimGrid, dimBlock>>>(d_in, d_out, width, height);
}
