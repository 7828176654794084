// tensor.cu: tensor-core code whose SASS has multi-register destinations:
// ldmatrix (LDSM.16.M88.4) feeding mma.sync (HMMA.16816) through inline
// PTX on sm_80 and later, and nvcuda::wmma 16x16x16 half GEMM tiles
// (HMMA) on sm_70 and later. On earlier architectures (and in the host
// build of tripcheck) the tensor-core statements are compiled out and the
// loops remain.
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#include <mma.h>
#endif

// One warp per block: for each of ktiles K-steps, the warp stages a
// 16 x 16 half tile of A and of B in shared memory, loads A with
// ldmatrix.x4 and B with ldmatrix.x2, and runs two m16n8k16 MMAs.
__global__ void ldmatrix_mma(const unsigned short *a, const unsigned short *b, float *c, int ktiles) {
  __shared__ __align__(16) unsigned short as[16 * 16];
  __shared__ __align__(16) unsigned short bs[16 * 16];
  int lane = threadIdx.x & 31;
  float acc[8];
  for (int i = 0; i < 8; ++i) { // @trip launch-only 8
    acc[i] = 0.0f;
  }
  for (int kt = 0; kt < ktiles; ++kt) { // @trip launch-only max(0, ktiles)
    for (int e = lane; e < 256; e += 32) { // @trip launch-only ktiles > 0 ? 8 : 0
      as[e] = a[kt * 256 + e];
      bs[e] = b[kt * 256 + e];
    }
    __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned a0, a1, a2, a3, b0, b1, b2, b3;
    unsigned pa = (unsigned)__cvta_generic_to_shared(&as[(lane % 16) * 16 + (lane / 16) * 8]);
    unsigned pb = (unsigned)__cvta_generic_to_shared(&bs[(lane % 16) * 16 + (lane / 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(pa));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(b0), "=r"(b1), "=r"(b2), "=r"(b3) : "r"(pb));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[4]), "+f"(acc[5]), "+f"(acc[6]), "+f"(acc[7])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b2), "r"(b3));
#endif
    __syncthreads();
  }
  for (int i = 0; i < 8; ++i) { // @trip launch-only 8
    c[(blockIdx.x * 32 + lane) * 8 + i] = acc[i];
  }
}

// C (m x n, float) = A (m x k, half, row major) * B (k x n, half, column
// major) with one warp per 16 x 16 tile of C and k / 16 wmma steps.
__global__ void wmma_gemm(const unsigned short *a, const unsigned short *b, float *c, int m, int n, int k) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int tilesN = n / 16;
  if (tilesN <= 0) {
    return;
  }
  int tm = warp / tilesN, tn = warp % tilesN;
  if (tm >= m / 16) {
    return;
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> acc;
  nvcuda::wmma::fill_fragment(acc, 0.0f);
#endif
  for (int kk = 0; kk < k / 16; ++kk) { // @trip launch-only n / 16 > 0 && (blockIdx.x * blockDim.x + threadIdx.x) / 32 / (n / 16) < m / 16 ? max(0, k / 16) : 0
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, nvcuda::wmma::row_major> fa;
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __half, nvcuda::wmma::col_major> fb;
    nvcuda::wmma::load_matrix_sync(fa, (const __half *)a + (long long)tm * 16 * k + kk * 16, k);
    nvcuda::wmma::load_matrix_sync(fb, (const __half *)b + (long long)tn * 16 * k + kk * 16, k);
    nvcuda::wmma::mma_sync(acc, fa, fb, acc);
#else
    c[0] += (float)(a[kk] * b[kk]);
#endif
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  nvcuda::wmma::store_matrix_sync(c + (long long)tm * 16 * n + tn * 16, acc, n, nvcuda::wmma::mem_row_major);
#endif
}
