// saxpy: y = a*x + y, one element per thread, no bounds check, so the
// kernel is straight-line code (one path per warp).
#include "../cuda_decls.h"

extern "C" __global__ void saxpy(float a, const float *x, float *y) {
  int i = ctaid_x() * ntid_x() + tid_x();
  y[i] = a * x[i] + y[i];
}
