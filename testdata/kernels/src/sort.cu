// sort.cu: sorting networks and simple sorts: a bitonic sort of a block
// in shared memory, one bitonic merge step over global memory, an
// odd-even transposition sort, and a rank (counting) sort.
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

// Bitonic sort of blockDim.x keys (a power of two, at most 1024) in
// shared memory: stages k = 2, 4, ..., blockDim.x, steps j = k/2 ... 1.
__global__ void bitonic_shared(int *keys) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  s[t] = keys[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned k = 2; k <= blockDim.x; k <<= 1) { // @trip launch-only log2(blockDim.x)
    for (unsigned j = k >> 1; j > 0; j >>= 1) { // @trip launch-only blockDim.x >= 2 ? log2(blockDim.x) : 0
      unsigned p = t ^ j;
      if (p > t) {
        bool up = (t & k) == 0;
        int a = s[t], b = s[p];
        if ((a > b) == up) {
          s[t] = b;
          s[p] = a;
        }
      }
      __syncthreads();
    }
  }
  keys[blockIdx.x * blockDim.x + t] = s[t];
}

// One step (k, j) of a bitonic sort over n global keys; the host launches
// it once per step. A grid-stride loop covers n.
__global__ void bitonic_step(int *keys, int n, int k, int j) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) { // @trip launch-only max(0, ceildiv(n - (blockIdx.x * blockDim.x + threadIdx.x), blockDim.x * gridDim.x))
    int p = i ^ j;
    if (p > i && p < n) {
      int a = keys[i], b = keys[p];
      bool up = (i & k) == 0;
      if ((a > b) == up) {
        keys[i] = b;
        keys[p] = a;
      }
    }
  }
}

// Odd-even transposition sort of n keys (at most 2 * blockDim.x) by one
// block: n phases, each thread compares one pair.
__global__ void odd_even_sort(int *keys, int n) {
  __shared__ int s[2048];
  int m = min(n, 2 * (int)blockDim.x);
  for (int i = threadIdx.x; i < m; i += blockDim.x) { // @trip launch-only max(0, ceildiv(min(n, 2 * blockDim.x) - threadIdx.x, blockDim.x))
    s[i] = keys[i];
  }
  __syncthreads();
  for (int phase = 0; phase < m; ++phase) { // @trip launch-only max(0, min(n, 2 * blockDim.x))
    int i = 2 * threadIdx.x + (phase & 1);
    if (i + 1 < m && s[i] > s[i + 1]) {
      int x = s[i];
      s[i] = s[i + 1];
      s[i + 1] = x;
    }
    __syncthreads();
  }
  for (int i = threadIdx.x; i < m; i += blockDim.x) { // @trip launch-only max(0, ceildiv(min(n, 2 * blockDim.x) - threadIdx.x, blockDim.x))
    keys[i] = s[i];
  }
}

// Rank sort: each thread counts the keys smaller than its own (ties by
// index) and writes its key to that rank.
__global__ void rank_sort(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    return;
  }
  float v = in[i];
  int rank = 0;
  for (int j = 0; j < n; ++j) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x < n ? n : 0
    float w = in[j];
    rank += (w < v || (w == v && j < i)) ? 1 : 0;
  }
  out[rank] = v;
}
