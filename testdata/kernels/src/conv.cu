// conv.cu: convolutions: 1-D with an argument mask width, 2-D with a
// k x k mask, separable row and column passes, a 3 x 3 Sobel filter.
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

__constant__ float cmask[64];

// 1-D convolution with a mask of width w (at most 64) in constant memory.
__global__ void conv1d(const float *in, float *out, int n, int w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  int ww = min(w, 64);
  int start = i - ww / 2;
  float s = 0.0f;
  for (int j = 0; j < ww; ++j) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x < n ? max(0, min(w, 64)) : 0
    int p = start + j;
    if (p >= 0 && p < n) {
      s += in[p] * cmask[j];
    }
  }
  out[i] = s;
}

// 2-D convolution with a k x k mask (k odd, at most 7) at every pixel of
// a w x h image; the image border is clamped.
__global__ void conv2d(const float *img, const float *mask, float *out, int w, int h, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) {
    return;
  }
  int r = min(k, 7) / 2;
  float s = 0.0f;
  for (int dy = -r; dy <= r; ++dy) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x < w && blockIdx.y * blockDim.y + threadIdx.y < h ? max(0, 2 * (min(k, 7) / 2) + 1) : 0
    for (int dx = -r; dx <= r; ++dx) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x < w && blockIdx.y * blockDim.y + threadIdx.y < h && min(k, 7) / 2 >= 0 ? max(0, 2 * (min(k, 7) / 2) + 1) : 0
      int xx = min(max(x + dx, 0), w - 1);
      int yy = min(max(y + dy, 0), h - 1);
      s += img[yy * w + xx] * mask[(dy + r) * 7 + dx + r];
    }
  }
  out[y * w + x] = s;
}

// Separable convolution, row pass: a shared row segment with an apron of
// radius r (at most 8), loaded by a strided loop.
__global__ void conv_rows(const float *in, float *out, int w, int r) {
  __shared__ float row[256 + 16];
  int rr = min(max(r, 0), 8);
  int y = blockIdx.y;
  int x0 = blockIdx.x * blockDim.x;
  for (int i = threadIdx.x; i < (int)blockDim.x + 2 * rr; i += blockDim.x) { // @trip launch-only max(0, ceildiv(blockDim.x + 2 * min(max(r, 0), 8) - threadIdx.x, blockDim.x))
    int gx = min(max(x0 + i - rr, 0), w - 1);
    row[i] = in[y * w + gx];
  }
  __syncthreads();
  int x = x0 + threadIdx.x;
  if (x < w) {
    float s = 0.0f;
    for (int j = -rr; j <= rr; ++j) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x < w ? 2 * min(max(r, 0), 8) + 1 : 0
      s += row[threadIdx.x + rr + j] * cmask[j + rr];
    }
    out[y * w + x] = s;
  }
}

// Separable convolution, column pass: each thread walks down its column
// over rows_per_thread rows, the sum over the radius for each.
__global__ void conv_cols(const float *in, float *out, int w, int h, int r, int rows_per_thread) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) {
    return;
  }
  int rr = min(max(r, 0), 8);
  int y0 = blockIdx.y * rows_per_thread;
  int y1 = min(y0 + rows_per_thread, h);
  for (int y = y0; y < y1; ++y) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x < w ? max(0, min(blockIdx.y * rows_per_thread + rows_per_thread, h) - blockIdx.y * rows_per_thread) : 0
    float s = 0.0f;
    for (int j = -rr; j <= rr; ++j) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x < w && min(blockIdx.y * rows_per_thread + rows_per_thread, h) > blockIdx.y * rows_per_thread ? 2 * min(max(r, 0), 8) + 1 : 0
      int yy = min(max(y + j, 0), h - 1);
      s += in[yy * w + x] * cmask[j + rr];
    }
    out[y * w + x] = s;
  }
}

// A 3 x 3 Sobel gradient magnitude with fixed loops over the window.
__global__ void sobel3x3(const unsigned char *img, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) {
    return;
  }
  const int gx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
  float sx = 0.0f, sy = 0.0f;
  for (int j = 0; j < 3; ++j) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x >= 1 && blockIdx.y * blockDim.y + threadIdx.y >= 1 && blockIdx.x * blockDim.x + threadIdx.x < w - 1 && blockIdx.y * blockDim.y + threadIdx.y < h - 1 ? 3 : 0
    for (int i = 0; i < 3; ++i) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x >= 1 && blockIdx.y * blockDim.y + threadIdx.y >= 1 && blockIdx.x * blockDim.x + threadIdx.x < w - 1 && blockIdx.y * blockDim.y + threadIdx.y < h - 1 ? 3 : 0
      float p = img[(y + j - 1) * w + x + i - 1];
      sx += gx[j][i] * p;
      sy += gx[i][j] * p;
    }
  }
  out[y * w + x] = sqrtf(sx * sx + sy * sy);
}
