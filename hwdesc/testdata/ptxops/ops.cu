// Common CUDA operations whose PTX (nvcc and clang, gen.sh) the PTX
// presets must route: warp primitives, atomics and reductions, async
// copies, matrix operations, fences, bit manipulation, packed halves and
// fast math (TestPTXPresetCoverage).
#include <cuda_fp16.h>
#include <mma.h>

__device__ unsigned counter;

__global__ void ops(float *fo, const float *fi, int *io, const int *ii, __half2 *ho, unsigned long long *u64) {
  int t = threadIdx.x;
  unsigned m = __activemask();
  int x = ii[t];
  float f = fi[t];
  // Warp primitives.
  int s = __shfl_sync(m, x, 0) + __shfl_xor_sync(m, x, 1) + __shfl_down_sync(m, x, 2) + __shfl_up_sync(m, x, 3);
  unsigned b = __ballot_sync(m, x > 0);
  int all = __all_sync(m, x > 1), any = __any_sync(m, x > 2);
  unsigned mm = __match_any_sync(m, x);
  int r = __reduce_add_sync(m, x) + (int)__reduce_max_sync(m, (unsigned)x);
  __syncwarp(m);
  // Atomics and reductions.
  atomicAdd(&io[0], x);
  atomicAdd(&fo[0], f);
  int old = atomicCAS(&io[1], x, s);
  atomicMax(&io[2], x);
  atomicExch(&u64[0], (unsigned long long)x);
  atomicInc(&counter, 100u);
  // Fences and sleep.
  __threadfence();
  __threadfence_block();
  __nanosleep(100);
  // Bit manipulation.
  int bits = __popc(x) + __clz(x) + __ffs(x) + __brev(x) + __byte_perm(x, s, 0x5410) + __funnelshift_l(x, s, 3);
  int ext = (x >> 5) & 0x3f;
  bits += __dp4a(x, s, ext) + __sad(x, s, 1) + __vabsdiffu4(x, s);
  // Fast math and halves.
  float fm = __expf(f) + __logf(f) + __sinf(f) + __cosf(f) + __fdividef(f, f + 1.0f) + rsqrtf(f) + tanhf(f) + __saturatef(f);
#if __CUDA_ARCH__ >= 750
  float th;
  asm("tanh.approx.f32 %0, %1;" : "=f"(th) : "f"(f));
  fm += th;
#endif
  __half2 h = ho[t];
  h = __hfma2(h, h, __hadd2(h, h));
  ho[t] = __floats2half2_rn(fm, (float)bits) * h;
  // Async copy and matrix ops (sm_80).
#if __CUDA_ARCH__ >= 800
  __shared__ float4 stage[128];
  __shared__ unsigned short tile[1024];
  unsigned sa = (unsigned)__cvta_generic_to_shared(&stage[t & 127]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(sa), "l"(fi + 4 * t));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;");
  tile[t] = (unsigned short)x;
  __syncthreads();
  unsigned ta = (unsigned)__cvta_generic_to_shared(&tile[(t * 8) & 1023]);
  unsigned a0, a1, a2, a3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(ta));
  float d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};"
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(a0), "r"(a1), "f"(f));
  fm += d0 + d1 + d2 + d3 + stage[(t + 1) & 127].x;
#endif
  fo[t + 1] = fm + (float)(s + (int)b + all + any + (int)mm + r + old + bits);
}

#if __CUDA_ARCH__ >= 700
__global__ void wmma_ops(float *o, const half *a, const half *b2) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b2, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(o, fc, 16, wmma::mem_row_major);
}
#endif
