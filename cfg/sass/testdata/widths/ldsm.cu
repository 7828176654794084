// The example of issue 9 item 3: an LDSM.16.M88.4 (ldmatrix .x4) whose
// second and third destinations are read by the next instruction.
__global__ void ldsm4(float *out, const unsigned *in) {
  __shared__ unsigned short sm[1024];
  sm[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  unsigned a0, a1, a2, a3;
  unsigned addr = (unsigned)__cvta_generic_to_shared(&sm[threadIdx.x * 8 % 1024]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(addr));
  out[threadIdx.x] = __int_as_float(a1) + __int_as_float(a2) + __int_as_float(a0) * __int_as_float(a3);
}
