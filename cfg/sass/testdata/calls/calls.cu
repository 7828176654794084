// calls.cu: small __noinline__ device functions for the SASS front end's
// call tests (cfg/sass/testdata/calls/gen.sh): a call chain with a loop in
// the innermost function, called twice from the middle one.
// Written for gpuwcet; not copied from elsewhere.

__device__ __noinline__ int inner(int x, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) { // @trip launch-only max(0, n)
    s += x ^ i;
  }
  return s;
}

__device__ __noinline__ int outer(int x, int n) {
  return inner(x, n) + inner(x + 1, n);
}

__global__ void nested(int *out, int n) {
  out[threadIdx.x] = outer(threadIdx.x, n);
}
