__device__ __forceinline__ int pick(int x) { return x & 1; }
__global__ void k(float *out, float v) {
  float a = v;
  if (pick(threadIdx.x)) { a = __sinf(a); a = __sinf(a); a = __sinf(a); a = __sinf(a); a = __sinf(a); a = __sinf(a); }
  else { a = __cosf(a); a = __cosf(a); a = __cosf(a); a = __cosf(a); a = __cosf(a); a = __cosf(a); }
  out[threadIdx.x] = a;
}
