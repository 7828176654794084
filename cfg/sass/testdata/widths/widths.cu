// Kernels whose SASS writes or reads register groups (pairs, quads, MMA
// fragments, texture results), compiled by gen.sh for sm_52 ... sm_90 to
// check the destination and source widths of cfg/sass against nvdisasm's
// register life ranges (TestWidthsAgainstLifeRanges).
#include <cuda_fp16.h>
#include <mma.h>

// Vector loads and stores: LDG/STG .64/.128, LDS/STS .64/.128, LDL/STL,
// LDC.64.
__constant__ double cdouble[16];
__global__ void vec_mem(float4 *o4, const float4 *i4, float2 *o2, const float2 *i2,
                        double *od, int n) {
  __shared__ float4 s4[128];
  __shared__ float2 s2[128];
  float4 local[8];
  int t = threadIdx.x;
  float4 a = i4[t];
  float2 b = i2[t];
  s4[t] = a;
  s2[t] = b;
  for (int k = 0; k < 8; k++)
    local[k] = make_float4(a.x * k, a.y + k, a.z, a.w);
  __syncthreads();
  float4 c = s4[(t + 1) & 127];
  float2 d = s2[(t + 3) & 127];
  float4 e = local[n & 7];
  o4[t] = make_float4(c.x + e.x, c.y + e.y, c.z * e.z, c.w - e.w);
  o2[t] = make_float2(d.x * d.y, d.y + c.w);
  od[t] = cdouble[n & 15] * (double)c.x;
}

// Double precision arithmetic and conversions.
__global__ void doubles(double *o, const double *i, const float *f, const int *ii,
                        const long long *ll, float *of, int *oi, long long *ol) {
  int t = threadIdx.x;
  double x = i[t], y = i[t + 32];
  double z = x * y + x;
  z = z + (double)f[t];           // F2F.F64.F32
  z = z * (double)ii[t];          // I2F.F64
  z = z - (double)ll[t];          // I2F.F64.S64
  z = fmax(z, y);                 // DMNMX or DSETP+FSEL
  if (z > 3.0) z = sqrt(z);       // MUFU.RSQ64H ...
  o[t] = 1.0 / z;                 // MUFU.RCP64H
  of[t] = (float)z;               // F2F.F32.F64
  oi[t] = (int)z;                 // F2I.F64
  ol[t] = (long long)x + (long long)f[t]; // F2I.S64.F64, F2I.S64
  of[t + 32] = (float)ll[t];      // I2F.S64
}

// 64-bit integers and atomics.
__global__ void wide_int(unsigned long long *o, const unsigned long long *i,
                         double *od, int n) {
  __shared__ unsigned long long sh[64];
  int t = threadIdx.x;
  unsigned long long a = i[t];
  unsigned long long b = a * (unsigned long long)n + (a >> 7);
  sh[t & 63] = 0;
  __syncthreads();
  atomicAdd(&sh[t & 63], b);
  unsigned long long old = atomicCAS(&o[t], a, b);
  atomicAdd(&o[t + 64], old);
  atomicExch(&o[t + 128], b ^ old);
  atomicMax(&o[t + 192], a);
#if __CUDA_ARCH__ >= 600
  double prev = atomicAdd(&od[t], (double)a);
  od[t + 64] = prev;
#endif
  __syncthreads();
  o[t + 256] = sh[(t + 1) & 63] + __shfl_sync(0xffffffffu, a, 3);
  long long c = clock64();
  o[t + 320] = c;
}

// Half precision pairs (one register each) and byte operations.
__global__ void halves(__half2 *o, const __half2 *i, int *oi, const int *ii) {
  int t = threadIdx.x;
#if __CUDA_ARCH__ >= 530
  __half2 a = i[t], b = i[t + 32];
  o[t] = __hfma2(a, b, __hmul2(a, a));
#endif
#if __CUDA_ARCH__ >= 610
  oi[t] = __dp4a(ii[t], ii[t + 32], ii[t + 64]);
#endif
  oi[t + 64] = __byte_perm(ii[t], ii[t + 1], 0x5410) + __popc(ii[t]) + __clz(ii[t]) + __brev(ii[t]);
}

// Textures and surfaces (TEX, TLD, TLD4, TEXS, SULD, SUST).
__global__ void textures(float4 *o, cudaTextureObject_t t1, cudaTextureObject_t t2,
                         cudaTextureObject_t t3, cudaSurfaceObject_t s,
                         cudaTextureObject_t ti, float u, float v) {
  int t = threadIdx.x;
  float4 a = tex1Dfetch<float4>(t1, t);
  float4 b = tex2D<float4>(t2, u + t, v);
  float c = tex2D<float>(t2, u, v + t);
  float2 d = tex2D<float2>(t2, v, u * t);
  float4 e = tex3D<float4>(t3, u, v, (float)t);
  float4 f = tex2DLod<float4>(t2, u, v, 1.5f);
  float4 g = tex2Dgather<float4>(t2, u, v * t, 1);
  int4 h = tex1Dfetch<int4>(ti, t + 1);
  float4 sv = surf2Dread<float4>(s, t * 16, 3);
  float2 s2 = surf2Dread<float2>(s, t * 8, 4);
  float s1 = surf2Dread<float>(s, t * 4, 5);
  surf2Dwrite<float4>(make_float4(a.x, b.y, c, d.x), s, t * 16, 7);
  o[t] = make_float4(a.x + b.x + e.x + f.x + g.x + sv.x + s2.x,
                     a.y * b.y + e.y + f.y + g.y + sv.y + s2.y,
                     c + d.x + e.z + f.z + g.z + h.x + s1,
                     d.y + e.w + f.w + g.w + h.w + sv.w + b.w + a.w);
}

// Warp primitives.
__global__ void warps(int *o, const int *i, double *od, const double *id) {
  int t = threadIdx.x;
  int x = i[t];
  double y = id[t];
  unsigned m = __ballot_sync(0xffffffffu, x > 3);
  int s = __shfl_xor_sync(0xffffffffu, x, 1);
  double sd = __shfl_down_sync(0xffffffffu, y, 2);
#if __CUDA_ARCH__ >= 700
  unsigned mm = __match_any_sync(0xffffffffu, x);
  s += mm;
#endif
#if __CUDA_ARCH__ >= 800
  s += __reduce_add_sync(0xffffffffu, x);
#endif
  o[t] = m + s + __activemask();
  od[t] = sd;
}

#if __CUDA_ARCH__ >= 700
// WMMA: HMMA on sm_70+, with f16 and f32 accumulators.
__global__ void wmma_f32(float *o, const half *a, const half *b) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(o, fc, 16, wmma::mem_row_major);
}
__global__ void wmma_f16(half *o, const half *a, const half *b) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, o, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(o, fc, 16, wmma::mem_row_major);
}
// mma.sync m8n8k4 (HMMA.884 on sm_70).
__global__ void mma884(float *o, const unsigned *a) {
  int t = threadIdx.x;
  unsigned a0 = a[t], a1 = a[t + 32], b0 = a[t + 64], b1 = a[t + 96];
  float d[8];
  float c[8];
  for (int k = 0; k < 8; k++) c[k] = o[t + 32 * k];
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7])
               : "r"(a0), "r"(a1), "r"(b0), "r"(b1),
                 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]), "f"(c[4]), "f"(c[5]), "f"(c[6]), "f"(c[7]));
  for (int k = 0; k < 8; k++) o[t + 32 * k] = d[k] * 2.0f;
}
#endif

#if __CUDA_ARCH__ >= 750
// ldmatrix (LDSM) x1, x2, x4 and .trans; mma.sync m16n8k8 f16 (HMMA.1688);
// IMMA m8n8k16 and BMMA m8n8k128.
__global__ void ldsm(float *o, const unsigned *in) {
  __shared__ unsigned short sm[2048];
  int t = threadIdx.x;
  sm[t] = in[t];
  sm[t + 1024] = in[t + 1024];
  __syncthreads();
  unsigned addr = (unsigned)__cvta_generic_to_shared(&sm[t * 8 % 2048]);
  unsigned r0, r1, r2, r3, q0, q1, p0;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
               : "=r"(q0), "=r"(q1) : "r"(addr + 256));
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
               : "=r"(p0) : "r"(addr + 512));
  // The dependent read of the issue: R17 and R18 of an LDSM.x4.
  o[t] = __int_as_float(r1) + __int_as_float(r2);
  o[t + 32] = __int_as_float(r0) * __int_as_float(r3) + __int_as_float(q1) - __int_as_float(q0) + __int_as_float(p0);
}
__global__ void mma1688(float *o, const unsigned *a) {
  int t = threadIdx.x;
  unsigned a0 = a[t], a1 = a[t + 32], b0 = a[t + 64];
  float c0 = o[t], c1 = o[t + 32], c2 = o[t + 64], c3 = o[t + 96];
  float d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
               : "r"(a0), "r"(a1), "r"(b0), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  unsigned h0, h1;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
               : "=r"(h0), "=r"(h1) : "r"(a0), "r"(a1), "r"(b0), "r"(a1), "r"(b0));
  int i0, i1;
  asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=r"(i0), "=r"(i1) : "r"(a0), "r"(b0), "r"(a1), "r"(b0));
  int j0, j1;
  asm volatile("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=r"(j0), "=r"(j1) : "r"(a0), "r"(b0), "r"(i0), "r"(i1));
  int k0, k1;
  asm volatile("mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=r"(k0), "=r"(k1) : "r"(a1), "r"(b0), "r"(j0), "r"(j1));
  o[t] = d0 + d1 * d2 - d3 + __int_as_float(h0 ^ h1) + (float)(i0 + i1 + j0 * j1 + k0 - k1);
}
#endif

#if __CUDA_ARCH__ >= 800
// sm_80: mma m16n8k16 (f16, bf16), tf32 m16n8k8, IMMA m16n8k32, BMMA
// m16n8k256, DMMA m8n8k4, cp.async (LDGSTS).
__global__ void mma80(float *o, const unsigned *a, double *od, const double *id) {
  int t = threadIdx.x;
  unsigned a0 = a[t], a1 = a[t + 32], a2 = a[t + 64], a3 = a[t + 96], b0 = a[t + 128], b1 = a[t + 160];
  float c0 = o[t], c1 = o[t + 32], c2 = o[t + 64], c3 = o[t + 96];
  float d0, d1, d2, d3, e0, e1, e2, e3, f0, f1, f2, f3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(e0), "=f"(e1), "=f"(e2), "=f"(e3)
               : "r"(a1), "r"(a2), "r"(a3), "r"(a0), "r"(b1), "r"(b0), "f"(d0), "f"(d1), "f"(d2), "f"(d3));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=f"(f0), "=f"(f1), "=f"(f2), "=f"(f3)
               : "r"(a2), "r"(a3), "r"(a0), "r"(a1), "r"(b0), "r"(b1), "f"(e0), "f"(e1), "f"(e2), "f"(e3));
  int i0, i1, i2, i3;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=r"(i0), "=r"(i1), "=r"(i2), "=r"(i3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(a1), "r"(a0), "r"(b1), "r"(b0));
  int j0, j1, j2, j3;
  asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
               : "=r"(j0), "=r"(j1), "=r"(j2), "=r"(j3)
               : "r"(a3), "r"(a1), "r"(a2), "r"(a0), "r"(b1), "r"(b0), "r"(i0), "r"(i1), "r"(i2), "r"(i3));
  double x = id[t], y = id[t + 32], z0 = id[t + 64], z1 = id[t + 96], w0, w1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=d"(w0), "=d"(w1) : "d"(x), "d"(y), "d"(z0), "d"(z1));
  __shared__ float4 stage[128];
  unsigned sa = (unsigned)__cvta_generic_to_shared(&stage[t]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(sa), "l"(o + 4 * t));
  asm volatile("cp.async.wait_all;");
  __syncthreads();
  float4 s = stage[(t + 1) & 127];
  o[t] = f0 + f1 * f2 - f3 + (float)(i0 + i1 + i2 * i3 + j0 - j1 + j2 * j3) + s.x + s.w;
  od[t] = w0 * w1;
}
#endif
