// A streaming variant of the PREM-tiled convolution (kernel.cu), written by
// the gpuwcet team: a block runs tiles until the host raises a stop flag in
// global memory, so the tile loop has no static bound and the block has no
// bound; the phases of one tile do, and gpuwcet prem check bounds them
// without it (docs/prem.md, "Phase bounds"). The compute phase smooths the
// tile SWEEPS times in shared memory, each sweep between two barriers: the
// compute region crosses a loop holding barriers, bounded with its bound.
#include "../cuda_decls.h"

typedef unsigned long long u64;

#define TILE_ROWS 4
#define TILE_COLS 512
#define NI 1026
#define NJ 1022
#define SWEEPS 3
#define WARM_UP_NS 10000

static __device__ __forceinline__ u64 globaltimer() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

static __device__ __forceinline__ void spin_until(u64 trigger) {
  if (tid_x() == 0)
    while (globaltimer() < trigger)
      ;
}

extern "C" __global__ void conv2d_stream(const float *A, float *B, u64 start, unsigned id, unsigned pf_off, unsigned period,
                                         const volatile unsigned *stop) {
  __shared__ float a[TILE_ROWS * TILE_COLS];
  __shared__ float b[TILE_ROWS * TILE_COLS];
  int t = tid_x();
  int j0 = ctaid_x() * (TILE_COLS - 2);
  for (unsigned tile = 0; !*stop; tile++) {
    int i0 = (tile * (TILE_ROWS / 2)) % (NI - TILE_ROWS);
    if (tile > 0)
      spin_until(start + WARM_UP_NS + (u64)(tile - 1) * period + (u64)id * pf_off);
    __syncthreads();
    asm volatile("// @prem prefetch" ::: "memory");
    for (int r = 0; r < TILE_ROWS; r++)
      a[r * TILE_COLS + t] = (j0 + t < NJ) ? A[(i0 + r) * NJ + j0 + t] : 0.0f;
    __syncthreads();
    asm volatile("// @prem compute" ::: "memory");
#pragma unroll 1
    for (int s = 0; s < SWEEPS; s++) {
      for (int r = 1; r < TILE_ROWS - 1; r++)
        if (t > 0 && t < TILE_COLS - 1)
          b[r * TILE_COLS + t] = 0.25f * a[r * TILE_COLS + t - 1] + 0.5f * a[r * TILE_COLS + t] + 0.25f * a[r * TILE_COLS + t + 1];
      __syncthreads();
      for (int r = 1; r < TILE_ROWS - 1; r++)
        a[r * TILE_COLS + t] = b[r * TILE_COLS + t];
      __syncthreads();
    }
    __syncthreads();
    asm volatile("// @prem writeback" ::: "memory");
    for (int r = 1; r < TILE_ROWS - 1; r++)
      if (t > 0 && t < TILE_COLS - 1 && j0 + t < NJ - 1)
        B[(i0 + r) * NJ + j0 + t] = a[r * TILE_COLS + t];
  }
}
