// poly: the kernel calls a device function that is kept out of line
// (noinline), so the PTX holds a .func and a call.
#include "../cuda_decls.h"

extern "C" __device__ __noinline__ float horner(float x) {
  return ((2.0f * x + 3.0f) * x - 1.0f) * x + 0.5f;
}

extern "C" __global__ void poly(float *data) {
  int i = ctaid_x() * ntid_x() + tid_x();
  data[i] = horner(data[i]);
}
