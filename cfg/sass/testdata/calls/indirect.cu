// indirect.cu: a call through a function pointer for the SASS front end's
// call tests (cfg/sass/testdata/calls/gen.sh). ptxas keeps both callees
// in the kernel's code section and calls the one the pointer names:
// CALL.REL.NOINC R6 0x0 (Volta and later: R6 plus an offset), or
// PRET; BRX R3 (Maxwell, Pascal). Neither immediate is the callee.
// Written for gpuwcet; not copied from elsewhere.

typedef int (*op_t)(int, int);

__device__ __noinline__ int add(int a, int b) {
  int s = 0;
  for (int i = 0; i < b; ++i) {
    s += a ^ i;
  }
  return s;
}

__device__ __noinline__ int mul(int a, int b) { return a * b; }

__device__ op_t ops[2] = {add, mul};

__global__ void fptr(int *out, int k, int n) {
  out[threadIdx.x] = ops[k & 1](threadIdx.x, n);
}
