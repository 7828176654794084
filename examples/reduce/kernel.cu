// blocksum: a 256-thread block sums 256 floats in shared memory. Every step
// of the tree reduction ends with a barrier; the loop runs log2(256) = 8
// times (its induction variable halves; gpuwcet derives the bound), and
// the "if (t < s)" inside it diverges in the last steps.
#include "../cuda_decls.h"

extern "C" __global__ void blocksum(const float *in, float *out) {
  __shared__ float buf[256];
  int t = tid_x();
  buf[t] = in[ctaid_x() * 256 + t];
  __syncthreads();
#pragma unroll 1
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s)
      buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[ctaid_x()] = buf[0];
}
