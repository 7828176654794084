// PREM-tiled 2D convolution, written by the gpuwcet team after the
// structure of tt-gpu's convolution2D_kernelPREM (CTU-IIG/tt-gpu,
// experiments/prem-2dconvolution; prem-schedules.md §2): tiles of 4 rows x
// 512 columns of a 1026 x 1022 input, rows advancing by 2, one column
// position per block (2 blocks of 512 threads), 512 tiles per block, the
// tile in shared memory (2 x 8 KiB).
//
// Every tile after the first (the warm-up tile) starts at a time-triggered
// release: thread 0 spins on %globaltimer until the trigger, then
// __syncthreads() releases the block. The prefetch copies the tile from
// global to shared memory, the compute applies the 3 x 3 stencil in shared
// memory, the write-back copies the result to global memory.
//
//   conv2d_tile:  whole-tile mode: only the prefetch is triggered, at
//                 start + WU + (tile-1)*period + id*pf_off.
//   conv2d_phase: phase mode: the write-back is triggered too, at
//                 start + WU + (tile-1)*period + wb_base + id*wb_off.
//
// The // @prem markers survive into the PTX as comments and name the
// phases for gpuwcet prem check; the release points alone give the same
// regions.
#include "../cuda_decls.h"

typedef unsigned long long u64;

#define TILE_ROWS 4
#define TILE_COLS 512
#define NI 1026
#define NJ 1022
#define WARM_UP_NS 10000

static __device__ __forceinline__ u64 globaltimer() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Thread 0 waits for the trigger; the barrier after the call releases the
// whole block.
static __device__ __forceinline__ void spin_until(u64 trigger) {
  if (tid_x() == 0)
    while (globaltimer() < trigger)
      ;
}

static __device__ __forceinline__ void prefetch(float *a, const float *A, int i0, int j0, int t) {
  for (int r = 0; r < TILE_ROWS; r++)
    a[r * TILE_COLS + t] = (j0 + t < NJ) ? A[(i0 + r) * NJ + j0 + t] : 0.0f;
}

static __device__ __forceinline__ void compute(float *b, const float *a, int t) {
  for (int r = 1; r < TILE_ROWS - 1; r++)
    if (t > 0 && t < TILE_COLS - 1)
      b[r * TILE_COLS + t] =
          0.2f * a[(r - 1) * TILE_COLS + t - 1] + 0.5f * a[(r - 1) * TILE_COLS + t] - 0.8f * a[(r - 1) * TILE_COLS + t + 1] -
          0.3f * a[r * TILE_COLS + t - 1] + 0.6f * a[r * TILE_COLS + t] - 0.9f * a[r * TILE_COLS + t + 1] +
          0.4f * a[(r + 1) * TILE_COLS + t - 1] + 0.7f * a[(r + 1) * TILE_COLS + t] + 0.1f * a[(r + 1) * TILE_COLS + t + 1];
}

static __device__ __forceinline__ void writeback(float *B, const float *b, int i0, int j0, int t) {
  for (int r = 1; r < TILE_ROWS - 1; r++)
    if (t > 0 && t < TILE_COLS - 1 && j0 + t < NJ - 1)
      B[(i0 + r) * NJ + j0 + t] = b[r * TILE_COLS + t];
}

extern "C" __global__ void conv2d_tile(const float *A, float *B, u64 start, unsigned id, unsigned pf_off, unsigned period) {
  __shared__ float a[TILE_ROWS * TILE_COLS];
  __shared__ float b[TILE_ROWS * TILE_COLS];
  int t = tid_x();
  int j0 = ctaid_x() * (TILE_COLS - 2);
  unsigned tile = 0;
  for (int i0 = 0; i0 <= NI - TILE_ROWS; i0 += TILE_ROWS / 2, tile++) {
    if (tile > 0)
      spin_until(start + WARM_UP_NS + (u64)(tile - 1) * period + (u64)id * pf_off);
    __syncthreads();
    asm volatile("// @prem prefetch" ::: "memory");
    prefetch(a, A, i0, j0, t);
    __syncthreads();
    asm volatile("// @prem compute" ::: "memory");
    compute(b, a, t);
    __syncthreads();
    asm volatile("// @prem writeback" ::: "memory");
    writeback(B, b, i0, j0, t);
  }
}

extern "C" __global__ void conv2d_phase(const float *A, float *B, u64 start, unsigned id, unsigned pf_off, unsigned wb_off,
                                        unsigned wb_base, unsigned period) {
  __shared__ float a[TILE_ROWS * TILE_COLS];
  __shared__ float b[TILE_ROWS * TILE_COLS];
  int t = tid_x();
  int j0 = ctaid_x() * (TILE_COLS - 2);
  unsigned tile = 0;
  for (int i0 = 0; i0 <= NI - TILE_ROWS; i0 += TILE_ROWS / 2, tile++) {
    u64 base = start + WARM_UP_NS + (u64)(tile - 1) * period;
    if (tile > 0)
      spin_until(base + (u64)id * pf_off);
    __syncthreads();
    asm volatile("// @prem prefetch" ::: "memory");
    prefetch(a, A, i0, j0, t);
    __syncthreads();
    asm volatile("// @prem compute" ::: "memory");
    compute(b, a, t);
    __syncthreads();
    if (tile > 0)
      spin_until(base + wb_base + (u64)id * wb_off);
    __syncthreads();
    asm volatile("// @prem writeback" ::: "memory");
    writeback(B, b, i0, j0, t);
  }
}
