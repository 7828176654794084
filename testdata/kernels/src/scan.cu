// scan.cu: prefix sums: Hillis-Steele and Blelloch block scans in shared
// memory, a warp scan with shuffles, and a segmented sequential scan.
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

// Hillis-Steele inclusive scan over one block (double-buffered).
__global__ void scan_hillis_steele(const float *in, float *out, int n) {
  __shared__ float buf[2][1024];
  int tid = threadIdx.x;
  int m = min(n, (int)blockDim.x);
  int p = 0;
  buf[0][tid] = tid < m ? in[tid] : 0.0f;
  __syncthreads();
  for (int off = 1; off < m; off <<= 1) { // @trip launch-only min(n, blockDim.x) > 1 ? clog2(min(n, blockDim.x)) : 0
    float v = buf[p][tid];
    if (tid >= off) {
      v += buf[p][tid - off];
    }
    buf[1 - p][tid] = v;
    p = 1 - p;
    __syncthreads();
  }
  if (tid < m) {
    out[tid] = buf[p][tid];
  }
}

// Blelloch exclusive scan over 2 * blockDim.x elements: an up-sweep and
// a down-sweep (blockDim.x a power of two).
__global__ void scan_blelloch(float *data) {
  __shared__ float t[2048];
  int tid = threadIdx.x;
  int n = 2 * blockDim.x;
  t[2 * tid] = data[2 * tid];
  t[2 * tid + 1] = data[2 * tid + 1];
  int off = 1;
  for (int d = n >> 1; d > 0; d >>= 1) { // @trip launch-only log2(blockDim.x) + 1
    __syncthreads();
    if (tid < d) {
      int ai = off * (2 * tid + 1) - 1, bi = off * (2 * tid + 2) - 1;
      t[bi] += t[ai];
    }
    off *= 2;
  }
  if (tid == 0) {
    t[n - 1] = 0.0f;
  }
  for (int d = 1; d < n; d *= 2) { // @trip launch-only clog2(blockDim.x) + 1
    off >>= 1;
    __syncthreads();
    if (tid < d) {
      int ai = off * (2 * tid + 1) - 1, bi = off * (2 * tid + 2) - 1;
      float x = t[ai];
      t[ai] = t[bi];
      t[bi] += x;
    }
  }
  __syncthreads();
  data[2 * tid] = t[2 * tid];
  data[2 * tid + 1] = t[2 * tid + 1];
}

// A warp-level inclusive scan with __shfl_up_sync, applied to
// consecutive chunks of 32 elements by a grid-stride loop over chunks.
__global__ void scan_warp_chunks(const int *in, int *out, int n) {
  int lane = threadIdx.x & 31;
  int warpId = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int nwarps = (blockDim.x * gridDim.x) >> 5;
  for (int base = warpId * 32; base < n; base += nwarps * 32) { // @trip launch-only max(0, ceildiv(n - (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32, blockDim.x * gridDim.x / 32 * 32))
    int v = base + lane < n ? in[base + lane] : 0;
    for (int d = 1; d < 32; d <<= 1) { // @trip launch-only n > (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32 ? 5 : 0
      int u = __shfl_up_sync(0xffffffffu, v, d);
      if (lane >= d) {
        v += u;
      }
    }
    if (base + lane < n) {
      out[base + lane] = v;
    }
  }
}

// A segmented scan done sequentially by each thread over its segment of
// length seg (the last one shorter): a counted loop from the segment's
// start to min(start + seg, n).
__global__ void scan_segments(const float *in, float *out, int n, int seg) {
  if (seg <= 0) {
    return;
  }
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  long long start = (long long)s * seg;
  long long end = min(start + seg, (long long)n);
  float acc = 0.0f;
  for (long long i = start; i < end; ++i) { // @trip launch-only seg > 0 ? max(0, min((blockIdx.x * blockDim.x + threadIdx.x) * seg + seg, n) - (blockIdx.x * blockDim.x + threadIdx.x) * seg) : 0
    acc += in[i];
    out[i] = acc;
  }
}
