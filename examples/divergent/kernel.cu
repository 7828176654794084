// branchy: threads of a warp take different sides of an if/else decided by
// their thread index (lanes 0-15 against lanes 16-31), so the branch
// diverges inside every warp and both sides execute one after the other.
#include "../cuda_decls.h"

extern "C" __global__ void branchy(float *data) {
  int t = tid_x();
  float v = data[t];
  if ((t & 31) < 16)
    v = v * v + 1.0f;
  else
    v = v / 3.0f - 2.0f;
  data[t] = v;
}
