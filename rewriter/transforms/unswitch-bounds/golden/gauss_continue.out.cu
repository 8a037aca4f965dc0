// golden:
// A 5x5 weighted sum that skips the taps outside the image with `continue`, the radius a local
// constant, the loops written with a `<` bound and `k += 1`.
__global__ void k(const float* img, const float* w25, float* res, int cols, int rows)
{
    const int R = 2;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols) return;
    float s = 0.0f;
    float wsum = 0.0f;
    if (r - 2 >= 0 && r + 2 < rows && c - 2 >= 0 && c + 2 < cols) {  // kl: every tap inside the bounds, the guards dropped
        for (int i = -R; i < R + 1; i += 1) {
            int rr = r + i;
            for (int j = -R; j < R + 1; j += 1) {
                float wt = w25[(i + R) * 5 + (j + R)];
                s += wt * img[rr * cols + c + j];
                wsum += wt;
            }
        }
        res[r * cols + c] = s / wsum;
    } else {
        for (int i = -R; i < R + 1; i += 1) {
            int rr = r + i;
            if (rr < 0 || rr >= rows) continue;
            for (int j = -R; j < R + 1; j += 1) {
                if (c + j < 0 || cols <= c + j)
                    continue;
                float wt = w25[(i + R) * 5 + (j + R)];
                s += wt * img[rr * cols + c + j];
                wsum += wt;
            }
        }
        res[r * cols + c] = s / wsum;
    }
}
