// divide.cu: loops whose limits are 32-bit divisions and remainders by
// kernel arguments and by constants that are not powers of two, signed and
// unsigned (nvcc -O0 expands each into the float-reciprocal sequence of
// ptxas; -O3 into that sequence or into mul.hi magic numbers).
//
// Every loop carries a "// @trip" annotation (grammar: ../README.md).
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

// Signed quotient and remainder by arguments.
__global__ void div_by_arg(int *out, int n, int d) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = tid;
  for (int i = 0; i < n / d; ++i) { // @trip launch-only max(0, n / d)
    acc = acc * 3 + i;
  }
  for (int i = 0; i < n % d; i += 2) { // @trip launch-only ceildiv(max(0, n % d), 2)
    acc ^= i;
  }
  out[tid] = acc;
}

// Unsigned quotient and remainder by an argument, a count-down loop.
__global__ void udiv_by_arg(unsigned *out, unsigned m, unsigned k) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = tid;
  for (unsigned i = m / k; i > 0; --i) { // @trip launch-only m / k
    acc = acc * 1664525u + i;
  }
  for (unsigned i = 0; i < m % k + 1u; ++i) { // @trip launch-only m % k + 1
    acc += acc >> 5;
  }
  out[tid] = acc;
}

// Signed division by constants that are not powers of two, as tile counts.
__global__ void div_const_tiles(float *out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float v = (float)tid;
  for (int t = 0; t < n / 7; ++t) { // @trip launch-only max(0, n / 7)
    v = v * 0.5f + 1.0f;
  }
  for (int t = 0; t < n % 12 + 2; ++t) { // @trip launch-only max(0, n % 12 + 2)
    v = v * 0.25f + 2.0f;
  }
  out[tid] = v;
}
