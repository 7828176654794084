// Device functions with loops, called from two kernels: walk's loop
// depends on memory (a facts file must bound it), count's on its argument
// (derived per call).
__device__ __noinline__ int walk(const int *next, int i) {
  int steps = 0;
  while (i >= 0) {
    i = next[i];
    ++steps;
  }
  return steps;
}

__device__ __noinline__ int count(int n) {
  int s = 0;
  for (int k = 0; k < n; ++k) {
    s += k * k;
  }
  return s;
}

__global__ void k1(const int *next, int *out, int n) {
  out[threadIdx.x] = walk(next, threadIdx.x) + count(n) + count(8);
}

__global__ void k2(const int *next, int *out) {
  out[threadIdx.x] = walk(next, 0);
}

// Called by no kernel: a facts entry naming it is an error.
extern "C" __device__ __noinline__ __attribute__((used)) int dead(int n) {
  int s = 0;
  for (int k = 0; k < n; ++k) {
    s += k;
  }
  return s;
}
