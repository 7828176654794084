// barriers.cu: loops holding block-wide barriers whose iterations may
// cross none: a barrier under a uniform branch in a loop, a multi-level
// reduction whose inner barrier loop may run zero times, a tiled loop
// with an inner barrier loop over an argument.
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

// Every (mask + 1)-th step (mask + 1 a power of two, an argument) the
// block synchronises; the other steps cross no barrier.
__global__ void guarded_sync(float *a, int mask) {
  __shared__ float s[1024];
  unsigned t = threadIdx.x;
  s[t] = a[blockIdx.x * blockDim.x + t];
  for (unsigned i = 0; i < blockDim.x; ++i) {
    s[t] += 0.5f * s[(t + 1) % blockDim.x];
    if ((i & mask) == 0) {
      __syncthreads();
    }
  }
  a[blockIdx.x * blockDim.x + t] = s[t];
}

// Reduction in levels: level l halves the stride from blockDim.x >> (l + 1)
// (no step at all when that is 0).
__global__ void reduce_levels(const float *in, float *out, int levels) {
  __shared__ float s[1024];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int l = 0; l < levels; ++l) {
    for (unsigned st = blockDim.x >> (l + 1); st > 0; st >>= 1) {
      if (t < st) {
        s[t] += s[t + st];
      }
      __syncthreads();
    }
  }
  if (t == 0) {
    out[blockIdx.x] = s[0];
  }
}

// Tiles of blockDim.x values; in each, k exchange steps through shared
// memory (none when k <= 0).
__global__ void tiles_exchange(float *a, int ntiles, int k) {
  __shared__ float s[1024];
  unsigned t = threadIdx.x;
  float acc = 0.0f;
  for (int tile = 0; tile < ntiles; ++tile) {
    float v = a[tile * blockDim.x + t];
    for (int j = 0; j < k; ++j) {
      s[t] = v;
      __syncthreads();
      v += s[(t + j + 1) % blockDim.x];
      __syncthreads();
    }
    acc += v;
  }
  a[t] = acc;
}
