// Spin loops on the GPU timers, written by the gpuwcet team to test the
// recognition of release points in SASS (cfg/release): nvcc 11.8 compiles
// them (gen.sh) and cuobjdump -sass lists the code.
typedef unsigned long long u64;

static __device__ __forceinline__ u64 globaltimer() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The idiom: thread 0 spins on %globaltimer until the trigger, then the
// barrier releases the block.
extern "C" __global__ void spin_gt(float *a, u64 trigger) {
  if (threadIdx.x == 0)
    while (globaltimer() < trigger)
      ;
  __syncthreads();
  a[threadIdx.x] += 1.0f;
}

// The same on the SM clock (clock64, signed).
extern "C" __global__ void spin_clock(float *a, long long trigger) {
  if (threadIdx.x == 0)
    while (clock64() < trigger)
      ;
  __syncthreads();
  a[threadIdx.x] += 1.0f;
}

// A PREM tile loop (tt-gpu's structure): each tile after the first waits
// for start + WU + (tile - 1) * period + id * pf_off; its three barriers
// delimit prefetch, compute and write-back.
extern "C" __global__ void spin_tiles(float *a, u64 start, unsigned id, unsigned pf_off, unsigned period) {
  __shared__ float s[256];
  for (unsigned tile = 0; tile < 64; tile++) {
    if (tile > 0 && threadIdx.x == 0)
      while (globaltimer() < start + 10000 + (u64)(tile - 1) * period + (u64)id * pf_off)
        ;
    __syncthreads();
    s[threadIdx.x] = a[tile * 256 + threadIdx.x]; // prefetch
    __syncthreads();
    float r = 2.0f * s[(threadIdx.x + 1) % 256]; // compute
    __syncthreads();
    a[tile * 256 + threadIdx.x] = r; // write-back
  }
}

// Not release points: the body stores (a side effect), the low 32 bits
// wrap, the loop leaves only on equality.
extern "C" __global__ void spin_store(volatile u64 *last, u64 trigger) {
  if (threadIdx.x == 0) {
    u64 t;
    while ((t = globaltimer()) < trigger)
      *last = t;
  }
  __syncthreads();
}

extern "C" __global__ void spin_lo32(float *a, unsigned trigger) {
  if (threadIdx.x == 0)
    while ((unsigned)globaltimer() < trigger)
      ;
  __syncthreads();
  a[threadIdx.x] += 1.0f;
}

extern "C" __global__ void spin_eq(float *a, u64 trigger) {
  if (threadIdx.x == 0)
    while (globaltimer() != trigger)
      ;
  __syncthreads();
  a[threadIdx.x] += 1.0f;
}
