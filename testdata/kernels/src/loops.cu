// loops.cu: loops over launch dimensions and kernel arguments, written the
// way the compiler idioms of issue 10 arise (signed division, unroll
// remainders, unsigned division by constants, clamps, 64-bit induction
// variables, several exits, triangular nests, do-while, count-down loops).
//
// Every loop carries a "// @trip" annotation (grammar: ../README.md).
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

// Tiled row sums: n/16 tiles of 16 elements (signed division by 2^k).
__global__ void loop_sdiv16(const float *a, float *out, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n / 16; ++t) { // @trip launch-only max(0, n / 16)
    for (int k = 0; k < 16; ++k) { // @trip launch-only n / 16 > 0 ? 16 : 0
      acc += a[(long long)row * 16 + t * 16 + k];
    }
  }
  out[row] = acc;
}

// Dot product by hand-unrolled main loop (n & -4) and a remainder loop.
__global__ void loop_unroll_rem(const float *x, const float *y, float *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const float *xr = x + (long long)tid * n;
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
  int j = 0;
  for (; j < (n & -4); j += 4) { // @trip launch-only max(0, (n & -4) / 4)
    s0 += xr[j] * y[j];
    s1 += xr[j + 1] * y[j + 1];
    s2 += xr[j + 2] * y[j + 2];
    s3 += xr[j + 3] * y[j + 3];
  }
  for (; j < n; ++j) { // @trip launch-only n > 0 ? n & 3 : 0
    s0 += xr[j] * y[j];
  }
  out[tid] = (s0 + s1) + (s2 + s3);
}

// Unsigned division and remainder by constants (mul.hi magic numbers).
__global__ void loop_udiv_const(unsigned *out, unsigned m) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = tid;
  for (unsigned i = 0; i < m / 7u; ++i) { // @trip launch-only m / 7
    acc = acc * 1664525u + 1013904223u;
  }
  for (unsigned i = 0; i < m % 10u; ++i) { // @trip launch-only m % 10
    acc ^= acc >> 3;
  }
  for (unsigned i = m / 3u; i < m / 2u; i += 5u) { // @trip launch-only ceildiv(max(0, m / 2 - m / 3), 5)
    acc += i;
  }
  out[tid] = acc;
}

// min/max clamps on a signed argument, and a clamped start.
__global__ void loop_minmax_clamp(float *out, int n, int lo, int hi) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float v = (float)tid;
  for (int i = 0; i < min(n, 64); ++i) { // @trip launch-only max(0, min(n, 64))
    v = v * 0.5f + 1.0f;
  }
  for (int i = max(lo, 0); i < min(hi, n); ++i) { // @trip launch-only max(0, min(hi, n) - max(lo, 0))
    v += (float)i;
  }
  out[tid] = v;
}

// A 64-bit induction variable with a 64-bit grid stride compared with a
// 32-bit bound, and a 64-bit counter whose low half is compared.
__global__ void loop_i64_i32cmp(const float *in, float *out, int n, long long big) {
  long long gid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long stride = (long long)blockDim.x * gridDim.x;
  float s = 0.0f;
  for (long long i = gid; i < n; i += stride) { // @trip launch-only max(0, ceildiv(n - (blockIdx.x * blockDim.x + threadIdx.x), blockDim.x * gridDim.x))
    s += in[i];
  }
  for (long long k = big; (int)k < 100; ++k) { // @trip launch-only max(0, 100 - s32(big))
    s *= 0.99f;
  }
  out[gid] = s;
}

// Two exits: the bound n and a second argument m (the least bound holds).
__global__ void loop_multi_exit(const int *a, int *out, int n, int m) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (int i = 0; i < n; ++i) { // @trip launch-only n > 0 ? min(n, max(1, m + 2)) : 0
    if (i > m) {
      break;
    }
    acc += a[i] ^ tid;
  }
  out[tid] = acc;
}

// A triangular nest: the inner loop runs i times.
__global__ void loop_triangular(const float *l, float *x, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < n; ++i) { // @trip launch-only max(0, n)
    float s = 0.0f;
    for (int j = 0; j < i; ++j) { // @trip launch-only max(0, n - 1)
      s += l[i * n + j] * x[j * 64 + col];
    }
    x[i * 64 + col] -= s;
  }
}

// A do-while loop: the body runs at least once.
__global__ void loop_dowhile(int *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int k = 0;
  int acc = tid;
  do { // @trip launch-only max(1, ceildiv(n, 4))
    acc = acc * 3 + k;
    k += 4;
  } while (k < n);
  out[tid] = acc;
}

// Counting down to zero, and down by a stride from the argument.
__global__ void loop_countdown(float *out, int n, int step) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (step <= 0) {
    return;
  }
  float v = 1.0f;
  for (int i = n - 1; i >= 0; --i) { // @trip launch-only step > 0 ? max(0, n) : 0
    v = v * 1.0001f + (float)i;
  }
  for (int i = n; i > 0; i -= step) { // @trip launch-only step > 0 ? max(0, ceildiv(n, step)) : 0
    v -= 0.5f;
  }
  out[tid] = v;
}

// A loop from an argument start to an argument end by an argument stride.
__global__ void loop_stride_arg(const float *in, float *out, int start, int end, int step) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (step < 1) {
    return;
  }
  float s = 0.0f;
  for (int i = start; i < end; i += step) { // @trip launch-only step >= 1 ? max(0, ceildiv(end - start, step)) : 0
    s += in[i & 1023];
  }
  out[tid] = s;
}

// A 2-D block walks a tile of w x h elements in block-sized steps.
__global__ void loop_launch_dims(float *tile, int w, int h) {
  for (int y = threadIdx.y; y < h; y += blockDim.y) { // @trip launch-only max(0, ceildiv(h - threadIdx.y, blockDim.y))
    for (int x = threadIdx.x; x < w; x += blockDim.x) { // @trip launch-only h > threadIdx.y ? max(0, ceildiv(w - threadIdx.x, blockDim.x)) : 0
      tile[blockIdx.x * w * h + y * w + x] *= 2.0f;
    }
  }
}

// Geometric loops: halving an argument, doubling up to the block size.
__global__ void loop_geometric(int *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int bits = 0;
  for (int v = n; v > 1; v >>= 1) { // @trip launch-only n > 1 ? log2(n) : 0
    ++bits;
  }
  for (unsigned s = 1; s < blockDim.x; s *= 2) { // @trip launch-only clog2(blockDim.x)
    bits += (int)(s & tid);
  }
  out[tid] = bits;
}

// A 2-D grid-stride loop over an nx x ny array.
__global__ void loop_grid_stride_2d(float *a, int nx, int ny) {
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < ny; y += blockDim.y * gridDim.y) { // @trip launch-only max(0, ceildiv(ny - (blockIdx.y * blockDim.y + threadIdx.y), blockDim.y * gridDim.y))
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < nx; x += blockDim.x * gridDim.x) { // @trip launch-only blockIdx.y * blockDim.y + threadIdx.y < ny ? max(0, ceildiv(nx - (blockIdx.x * blockDim.x + threadIdx.x), blockDim.x * gridDim.x)) : 0
      a[y * nx + x] += 1.0f;
    }
  }
}
