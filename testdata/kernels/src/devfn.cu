// devfn.cu: device functions with their own loops, called from kernels;
// a function whose return value depends on threadIdx; early exits.
//
// A loop inside a device function has one "@trip[kernel]" clause per kernel
// that reaches it; the expression is in that kernel's parameters (the
// maximum over every call of the function in that kernel).
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

// Horner evaluation of a polynomial of degree n with unit coefficients
// scaled by k; unrolled by the compiler with an (n & -8) main loop.
__device__ __noinline__ float poly(float x, int n) {
  float r = 0.0f;
  for (int k = 0; k < n; ++k) { // @trip[poly_kernel] launch-only n > 0 ? max(0, deg) : 0 @trip[poly_twice] launch-only max(0, max(d1, d2))
    r = r * x + (float)(k + 1);
  }
  return r;
}

__global__ void poly_kernel(const float *xs, float *ys, int n, int deg) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  ys[i] = poly(xs[i], deg);
}

// The same function called twice with different degrees.
__global__ void poly_twice(const float *xs, float *ys, int d1, int d2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  ys[i] = poly(xs[i], d1) - poly(xs[i] * 0.5f, d2);
}

// A lane-dependent return value (x & 1 of the thread index) feeding a
// branch with heavy sides: the branch is divergent.
__device__ __noinline__ int pick(unsigned x) {
  return x & 1u;
}

__global__ void pick_branch(float *out, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = a + (float)i;
  if (pick(threadIdx.x)) {
    v = __sinf(v); v = __sinf(v); v = __sinf(v); v = __sinf(v); v = __sinf(v); v = __sinf(v);
  } else {
    v = __cosf(v); v = __cosf(v); v = __cosf(v); v = __cosf(v); v = __cosf(v); v = __cosf(v);
  }
  out[i] = v;
}

// A lane-dependent trip count through a device function: the lane's
// index modulo 4 plus an argument.
__device__ __noinline__ int lane_work(int lane, int base) {
  return base + (lane & 3);
}

__global__ void lane_trip(float *out, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int m = lane_work(threadIdx.x % 32, base);
  float v = 0.0f;
  for (int k = 0; k < m; ++k) { // @trip launch-only max(0, base + (threadIdx.x % 32 & 3))
    v += (float)k * 0.25f;
  }
  out[i] = v;
}

// A helper that strides over a row in steps of the block size, called
// from a kernel that first clamps the row length.
__device__ __noinline__ float row_sum(const float *row, int len, int lane, int step) {
  float s = 0.0f;
  for (int j = lane; j < len; j += step) { // @trip[row_sums] launch-only max(0, ceildiv(min(len, 4096) - threadIdx.x, blockDim.x))
    s += row[j];
  }
  return s;
}

__global__ void row_sums(const float *m, float *out, int len) {
  int clamped = min(len, 4096);
  float s = row_sum(m + (long long)blockIdx.x * 4096, clamped, threadIdx.x, blockDim.x);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// A chain of helpers: outer() loops over count and calls inner(), which
// has its own loop over width.
__device__ __noinline__ int inner(int seed, int width) {
  int h = seed;
  for (int b = 0; b < width; ++b) { // @trip[helper_chain] launch-only count > 0 ? max(0, width) : 0
    h = h * 31 + b;
  }
  return h;
}

__device__ __noinline__ int outer(int seed, int count, int width) {
  int acc = 0;
  for (int c = 0; c < count; ++c) { // @trip[helper_chain] launch-only max(0, count)
    acc ^= inner(seed + c, width);
  }
  return acc;
}

__global__ void helper_chain(int *out, int count, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = outer(i, count, width);
}

// An inlined (not __noinline__) helper with a loop, and an early exit.
__device__ inline float smooth(const float *v, int i, int radius) {
  float s = 0.0f;
  for (int k = -radius; k <= radius; ++k) { // @trip[early_exit] launch-only blockIdx.x * blockDim.x + threadIdx.x < n && blockIdx.x * blockDim.x + threadIdx.x >= radius && blockIdx.x * blockDim.x + threadIdx.x < n - radius ? max(0, 2 * radius + 1) : 0
    s += v[i + k];
  }
  return s;
}

__global__ void early_exit(const float *v, float *out, int n, int radius) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || i < radius || i >= n - radius) {
    return;
  }
  out[i] = smooth(v, i, radius);
}
