// reduce.cu: reductions: a shared-memory tree with barriers, warp-shuffle
// reductions with a grid-stride accumulation, interleaved addressing over
// dynamic shared memory, a min/max with a 64-bit index.
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

// Tree reduction in shared memory: the stride halves from blockDim.x / 2
// (blockDim.x a power of two up to 1024).
__global__ void reduce_tree(const float *in, float *out, int n) {
  __shared__ float s[1024];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  float v = 0.0f;
  if (i < n) {
    v = in[i];
  }
  if (i + blockDim.x < n) {
    v += in[i + blockDim.x];
  }
  s[tid] = v;
  __syncthreads();
  for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) { // @trip launch-only blockDim.x >= 2 ? log2(blockDim.x / 2) + 1 : 0
    if (tid < st) {
      s[tid] += s[tid + st];
    }
    __syncthreads();
  }
  if (tid == 0) {
    out[blockIdx.x] = s[0];
  }
}

// Grid-stride accumulation, then a shuffle reduction in each warp and
// one atomic per warp.
__global__ void reduce_shfl(const float *in, float *out, int n) {
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) { // @trip launch-only max(0, ceildiv(n - (blockIdx.x * blockDim.x + threadIdx.x), blockDim.x * gridDim.x))
    v += in[i];
  }
  for (int off = warpSize / 2; off > 0; off /= 2) { // @trip launch-only 5
    v += __shfl_down_sync(0xffffffffu, v, off);
  }
  if ((threadIdx.x & (warpSize - 1)) == 0) {
    atomicAdd(out, v);
  }
}

// Interleaved addressing over dynamic shared memory: the stride doubles
// up to the block size (any block size).
__global__ void reduce_interleaved(const int *in, int *out, int n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned st = 1; st < blockDim.x; st *= 2) { // @trip launch-only clog2(blockDim.x)
    if (tid % (2 * st) == 0 && tid + st < blockDim.x) {
      sdata[tid] += sdata[tid + st];
    }
    __syncthreads();
  }
  if (tid == 0) {
    out[blockIdx.x] = sdata[0];
  }
}

// Minimum and its index over a 64-bit range, per block, then a shuffle
// exchange in the warp (xor butterfly).
__global__ void reduce_argmin(const float *in, float *outv, long long *outi, long long n) {
  float best = 3.4e38f;
  long long bi = -1;
  long long stride = (long long)blockDim.x * gridDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) { // @trip launch-only max(0, ceildiv(n - (blockIdx.x * blockDim.x + threadIdx.x), blockDim.x * gridDim.x))
    if (in[i] < best) {
      best = in[i];
      bi = i;
    }
  }
  for (int m = 16; m >= 1; m >>= 1) { // @trip launch-only 5
    float ov = __shfl_xor_sync(0xffffffffu, best, m);
    long long oi = __shfl_xor_sync(0xffffffffu, bi, m);
    if (ov < best || (ov == best && oi < bi)) {
      best = ov;
      bi = oi;
    }
  }
  if ((threadIdx.x & 31) == 0) {
    outv[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = best;
    outi[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = bi;
  }
}

// A block-wide sum with a warp-level first stage and a second stage run
// by the first warp over the per-warp partial sums.
__global__ void reduce_two_stage(const float *in, float *out, int n) {
  __shared__ float partial[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) { // @trip launch-only max(0, ceildiv(n - (blockIdx.x * blockDim.x + threadIdx.x), blockDim.x * gridDim.x))
    v += in[i];
  }
  for (int off = 16; off > 0; off >>= 1) { // @trip launch-only 5
    v += __shfl_down_sync(0xffffffffu, v, off);
  }
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) {
    partial[warp] = v;
  }
  __syncthreads();
  if (warp == 0) {
    int nw = (blockDim.x + 31) / 32;
    v = lane < nw ? partial[lane] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) { // @trip launch-only threadIdx.x < 32 ? 5 : 0
      v += __shfl_down_sync(0xffffffffu, v, off);
    }
    if (lane == 0) {
      out[blockIdx.x] = v;
    }
  }
}
