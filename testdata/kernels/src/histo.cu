// histo.cu: histograms with shared-memory atomics, a per-warp private
// histogram, and a stream compaction with warp-aggregated atomics.
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

// Shared-memory histogram of bytes: clear, grid-stride accumulate with
// shared atomics, flush with global atomics.
__global__ void histo_shared(const unsigned char *data, unsigned *bins, int n, int nbins) {
  __shared__ unsigned h[256];
  int nb = min(max(nbins, 1), 256);
  for (int b = threadIdx.x; b < nb; b += blockDim.x) { // @trip launch-only max(0, ceildiv(min(max(nbins, 1), 256) - threadIdx.x, blockDim.x))
    h[b] = 0;
  }
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) { // @trip launch-only max(0, ceildiv(n - (blockIdx.x * blockDim.x + threadIdx.x), blockDim.x * gridDim.x))
    atomicAdd(&h[data[i] % nb], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < nb; b += blockDim.x) { // @trip launch-only max(0, ceildiv(min(max(nbins, 1), 256) - threadIdx.x, blockDim.x))
    atomicAdd(&bins[b], h[b]);
  }
}

// One private 64-bin histogram per warp in shared memory (at most 32
// warps), merged at the end; each thread handles 4 consecutive values per
// step.
__global__ void histo_per_warp(const int *vals, unsigned *bins, int n) {
  __shared__ unsigned h[32][64];
  int warp = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  for (int b = lane; b < 64; b += 32) { // @trip launch-only 2
    h[warp][b] = 0;
  }
  __syncthreads();
  int step = 4 * blockDim.x * gridDim.x;
  for (int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x); i < n; i += step) { // @trip launch-only max(0, ceildiv(n - 4 * (blockIdx.x * blockDim.x + threadIdx.x), 4 * blockDim.x * gridDim.x))
    for (int k = 0; k < 4 && i + k < n; ++k) { // @trip launch-only 4 * (blockIdx.x * blockDim.x + threadIdx.x) < n ? min(4, n - 4 * (blockIdx.x * blockDim.x + threadIdx.x)) : 0
      atomicAdd(&h[warp][vals[i + k] & 63], 1u);
    }
  }
  __syncthreads();
  int nwarps = (blockDim.x + 31) / 32;
  for (int b = threadIdx.x; b < 64; b += blockDim.x) { // @trip launch-only max(0, ceildiv(64 - threadIdx.x, blockDim.x))
    unsigned s = 0;
    for (int w = 0; w < nwarps; ++w) { // @trip launch-only threadIdx.x < 64 ? ceildiv(blockDim.x, 32) : 0
      s += h[w][b];
    }
    atomicAdd(&bins[b], s);
  }
}

// Stream compaction of the positive values with one atomic per warp:
// the ballot gives each lane its position among the warp's survivors.
__global__ void compact_positive(const int *in, int *out, unsigned *count, int n) {
  for (int base = blockIdx.x * blockDim.x; base < n; base += blockDim.x * gridDim.x) { // @trip launch-only max(0, ceildiv(n - blockIdx.x * blockDim.x, blockDim.x * gridDim.x))
    int i = base + threadIdx.x;
    int v = i < n ? in[i] : 0;
    unsigned mask = __ballot_sync(0xffffffffu, v > 0);
    int lane = threadIdx.x & 31;
    unsigned pos = 0;
    if (lane == 0) {
      pos = atomicAdd(count, (unsigned)__popc(mask));
    }
    pos = __shfl_sync(0xffffffffu, pos, 0);
    if (v > 0) {
      out[pos + __popc(mask & ((1u << lane) - 1u))] = v;
    }
  }
}
