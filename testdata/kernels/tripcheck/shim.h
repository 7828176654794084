// shim.h: just enough of CUDA to run the corpus kernels on the host, one
// thread after another, for tripcheck (testdata/kernels/tripcheck). Data
// computed through shared memory, shuffles or atomics is not faithful
// (threads do not run concurrently); launch-only trip counts do not depend
// on data, which is what tripcheck compares.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <stdexcept>

struct uint3 { unsigned x, y, z; };
struct dim3 { unsigned x, y, z; };
static uint3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;
static const int warpSize = 32;

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __constant__ static
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict

static inline void __syncthreads() {}
static inline void __syncwarp(unsigned = 0xffffffffu) {}
static inline void __threadfence() {}
static inline void __threadfence_block() {}
static inline int __syncthreads_or(int p) { return p; }
static inline int __syncthreads_and(int p) { return p; }
static inline int __syncthreads_count(int p) { return p != 0; }

// glibc declares __sinf and friends but does not export them.
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __expf(x) expf(x)
#define __logf(x) logf(x)
static inline float __fdividef(float a, float b) { return a / b; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline float __saturatef(float x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline unsigned min(int a, unsigned b) { return min((unsigned)a, b); }
static inline unsigned max(int a, unsigned b) { return max((unsigned)a, b); }
static inline unsigned min(unsigned a, int b) { return min(a, (unsigned)b); }
static inline unsigned max(unsigned a, int b) { return max(a, (unsigned)b); }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }

static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
template <typename T> static inline T __ldg(const T *p) { return *p; }

// Warp-level primitives: each thread runs alone, so it sees its own value.
template <typename T> static inline T __shfl_sync(unsigned, T v, int, int = 32) { return v; }
template <typename T> static inline T __shfl_up_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <typename T> static inline T __shfl_down_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <typename T> static inline T __shfl_xor_sync(unsigned, T v, int, int = 32) { return v; }
static inline unsigned __ballot_sync(unsigned, int p) { return p ? 1u << (threadIdx.x % 32) : 0u; }
static inline int __any_sync(unsigned, int p) { return p != 0; }
static inline int __all_sync(unsigned, int p) { return p != 0; }
static inline unsigned __activemask() { return 0xffffffffu; }

template <typename T> static inline T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }
template <typename T> static inline T atomicSub(T *p, T v) { T o = *p; *p = o - v; return o; }
template <typename T> static inline T atomicMax(T *p, T v) { T o = *p; *p = o > v ? o : v; return o; }
template <typename T> static inline T atomicMin(T *p, T v) { T o = *p; *p = o < v ? o : v; return o; }
template <typename T> static inline T atomicOr(T *p, T v) { T o = *p; *p = o | v; return o; }
template <typename T> static inline T atomicAnd(T *p, T v) { T o = *p; *p = o & v; return o; }
template <typename T> static inline T atomicExch(T *p, T v) { T o = *p; *p = v; return o; }
template <typename T> static inline T atomicCAS(T *p, T c, T v) { T o = *p; if (o == c) *p = v; return o; }
static inline unsigned atomicInc(unsigned *p, unsigned lim) { unsigned o = *p; *p = o >= lim ? 0 : o + 1; return o; }

// Loop counting. Each loop of the instrumented source calls
// __trip_enter(id) before its keyword and __trip_body(id) at the start of
// its body. tripcheck reads the maximum over entries and threads.
#define TRIP_MAX_LOOPS 512
static long long __trip_count[TRIP_MAX_LOOPS];
static long long __trip_max[TRIP_MAX_LOOPS];
static long long __trip_entries[TRIP_MAX_LOOPS];
static bool __trip_active[TRIP_MAX_LOOPS];
static long long __trip_budget;
struct trip_budget_exceeded {};

static inline void __trip_flush(int id) {
  if (__trip_active[id] && __trip_count[id] > __trip_max[id]) __trip_max[id] = __trip_count[id];
  __trip_count[id] = 0;
}
static inline void __trip_enter(int id) {
  __trip_flush(id);
  __trip_active[id] = true;
  __trip_entries[id]++;
}
static inline void __trip_body(int id) {
  __trip_count[id]++;
  if (--__trip_budget < 0) throw trip_budget_exceeded();
}
