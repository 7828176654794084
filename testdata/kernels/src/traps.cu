// traps.cu: kernels that exercise known soundness traps of a static
// analysis: signed min/max/div/rem/shr on negative arguments, a divergent
// loop exit where odd lanes leave early, a signed/unsigned comparison, and
// a branch on a signed maximum whose heavy side must not be dropped.
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

// if (t < max(lim, 8)) with lim = -1: the branch is taken by threads 0..7
// only; the loop bound is max(lim, 8) read as a signed value.
__global__ void signed_max_branch(float *out, int lim) {
  int t = threadIdx.x;
  float v = (float)t;
  if (t < max(lim, 8)) {
    v = __sinf(v) + __cosf(v) * __sinf(v * 2.0f) + __cosf(v * 3.0f);
  }
  for (int i = 0; i < max(lim, 8); ++i) { // @trip launch-only max(8, lim)
    v = v * 0.5f + 1.0f;
  }
  for (int i = min(lim, 4); i < 4; ++i) { // @trip launch-only max(0, 4 - min(lim, 4))
    v += 1.0f;
  }
  out[blockIdx.x * blockDim.x + t] = v;
}

// Signed division, remainder and arithmetic shift of a possibly negative
// argument a, as loop bounds.
__global__ void signed_divremshr(int *out, int a) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (int i = 0; i < (a >> 2) + 10; ++i) { // @trip launch-only max(0, (a >> 2) + 10)
    acc += i ^ tid;
  }
  for (int i = 0; i < a % 33 + 40; ++i) { // @trip launch-only max(0, a % 33 + 40)
    acc -= i;
  }
  for (int i = a / 3; i < 20; ++i) { // @trip launch-only max(0, 20 - a / 3)
    acc *= 3;
  }
  for (int i = 0; i < a / -4 + 5; ++i) { // @trip launch-only max(0, a / -4 + 5)
    acc += 7;
  }
  out[tid] = acc;
}

// A divergent loop exit: odd lanes leave at iteration 4 through a store,
// even lanes run the whole loop.
__global__ void divergent_exit(float *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float v = (float)tid;
  for (int i = 0; i < n; ++i) { // @trip launch-only max(0, (threadIdx.x & 1) ? min(n, 5) : n)
    if ((threadIdx.x & 1) && i == 4) {
      out[tid] = v;
      break;
    }
    v = v * 1.5f + 0.25f;
  }
  out[tid + 1] = v;
}

// A signed start compared with the unsigned block size: the comparison is
// unsigned, so a negative start skips the loop.
__global__ void signed_unsigned_cmp(float *out, int start) {
  float v = 0.0f;
  for (int k = start; k < blockDim.x; ++k) { // @trip launch-only start < 0 ? 0 : max(0, blockDim.x - start)
    v += (float)k;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// An unsigned argument decremented below zero wraps around: with n = 0
// the loop halves 2^32 - 1 down to 16.
__global__ void unsigned_wrap(unsigned *out, unsigned n) {
  unsigned acc = threadIdx.x;
  for (unsigned i = n - 1u; i >= 16u; i >>= 1) { // @trip launch-only u32(n - 1) >= 16 ? log2(u32(n - 1)) - 3 : 0
    acc = acc * 5u + i;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
