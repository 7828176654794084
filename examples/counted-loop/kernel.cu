// colsum: each thread sums one column of an n-row matrix. The loop is
// counted (induction variable from 0 to the kernel parameter n, step 1), so
// its bound is derived from --arg n=N. "#pragma unroll 1" keeps the loop.
#include "../cuda_decls.h"

extern "C" __global__ void colsum(const float *m, float *out, int n) {
  int col = ctaid_x() * ntid_x() + tid_x();
  int width = ntid_x();
  float acc = 0.0f;
#pragma unroll 1
  for (int j = 0; j < n; ++j)
    acc += m[j * width + col];
  out[col] = acc;
}
