// gemm.cu: matrix multiplication tiles: a shared-memory tiled GEMM, a
// register-blocked GEMM, a GEMV with an unrolled main loop and remainder,
// a naive GEMM and a batched small GEMM over blockIdx.z.
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

#define BS 16

// C = A * B for n x n matrices (n a multiple of 16 in use, any n
// accepted), one 16 x 16 tile per block, n / 16 tiles along k.
__global__ void gemm_tiled(const float *a, const float *b, float *c, int n) {
  __shared__ float as[BS][BS];
  __shared__ float bs[BS][BS];
  int row = blockIdx.y * BS + threadIdx.y;
  int col = blockIdx.x * BS + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n / BS; ++t) { // @trip launch-only max(0, n / 16)
    as[threadIdx.y][threadIdx.x] = a[row * n + t * BS + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(t * BS + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < BS; ++k) { // @trip launch-only n / 16 > 0 ? 16 : 0
      acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    }
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// Each thread computes a 4 x 4 block of C from k-slices of 8, staged in
// shared memory by the whole block (blockDim 16 x 16 computes 64 x 64).
__global__ void gemm_regblock(const float *a, const float *b, float *c, int m, int n, int k) {
  __shared__ float as[8][64];
  __shared__ float bs[8][64];
  float acc[4][4];
  for (int i = 0; i < 4; ++i) { // @trip launch-only 4
    for (int j = 0; j < 4; ++j) { // @trip launch-only 4
      acc[i][j] = 0.0f;
    }
  }
  int tid = threadIdx.y * blockDim.x + threadIdx.x;
  int nthreads = blockDim.x * blockDim.y;
  int r0 = blockIdx.y * 64, c0 = blockIdx.x * 64;
  for (int kk = 0; kk < k; kk += 8) { // @trip launch-only max(0, ceildiv(k, 8))
    for (int e = tid; e < 8 * 64; e += nthreads) { // @trip launch-only k > 0 ? max(0, ceildiv(512 - (threadIdx.y * blockDim.x + threadIdx.x), blockDim.x * blockDim.y)) : 0
      int kr = e / 64, cc = e % 64;
      as[kr][cc] = (kk + kr < k && r0 + cc < m) ? a[(r0 + cc) * k + kk + kr] : 0.0f;
      bs[kr][cc] = (kk + kr < k && c0 + cc < n) ? b[(kk + kr) * n + c0 + cc] : 0.0f;
    }
    __syncthreads();
    for (int q = 0; q < 8; ++q) { // @trip launch-only k > 0 ? 8 : 0
      float ar[4], br[4];
      for (int i = 0; i < 4; ++i) { // @trip launch-only k > 0 ? 4 : 0
        ar[i] = as[q][threadIdx.y * 4 + i];
        br[i] = bs[q][threadIdx.x * 4 + i];
      }
      for (int i = 0; i < 4; ++i) { // @trip launch-only k > 0 ? 4 : 0
        for (int j = 0; j < 4; ++j) { // @trip launch-only k > 0 ? 4 : 0
          acc[i][j] += ar[i] * br[j];
        }
      }
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) { // @trip launch-only 4
    for (int j = 0; j < 4; ++j) { // @trip launch-only 4
      int r = r0 + threadIdx.y * 4 + i, cc = c0 + threadIdx.x * 4 + j;
      if (r < m && cc < n) {
        c[r * n + cc] = acc[i][j];
      }
    }
  }
}

// y = A x, one row per thread, the row unrolled by 4 with a remainder.
__global__ void gemv_unrolled(const float *a, const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) {
    return;
  }
  const float *ar = a + (long long)r * cols;
  float s = 0.0f;
  int j = 0;
  for (; j + 3 < cols; j += 4) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x < rows ? max(0, cols / 4) : 0
    s += ar[j] * x[j] + ar[j + 1] * x[j + 1] + ar[j + 2] * x[j + 2] + ar[j + 3] * x[j + 3];
  }
  for (; j < cols; ++j) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x < rows && cols > 0 ? cols % 4 : 0
    s += ar[j] * x[j];
  }
  y[r] = s;
}

// The textbook GEMM: one element per thread, a loop over k.
__global__ void gemm_naive(const float *a, const float *b, float *c, int m, int n, int k) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m && col < n) {
    float s = 0.0f;
    for (int i = 0; i < k; ++i) { // @trip launch-only blockIdx.y * blockDim.y + threadIdx.y < m && blockIdx.x * blockDim.x + threadIdx.x < n ? max(0, k) : 0
      s += a[row * k + i] * b[i * n + col];
    }
    c[row * n + col] = s;
  }
}

// A batch of small matrices, one per blockIdx.z; each thread walks its
// column of the output, the sizes clamped to 32.
__global__ void gemm_batched_small(const float *a, const float *b, float *c, int dim) {
  int d = min(dim, 32);
  long long off = (long long)blockIdx.z * 32 * 32;
  int col = threadIdx.x;
  if (col >= d) {
    return;
  }
  for (int row = 0; row < d; ++row) { // @trip launch-only threadIdx.x < min(dim, 32) ? max(0, min(dim, 32)) : 0
    float s = 0.0f;
    for (int i = 0; i < d; ++i) { // @trip launch-only threadIdx.x < min(dim, 32) ? max(0, min(dim, 32)) : 0
      s += a[off + row * 32 + i] * b[off + i * 32 + col];
    }
    c[off + row * 32 + col] = s;
  }
}
