// Minimal CUDA declarations for clang's NVPTX back end without the CUDA SDK
// (-nocudainc -nocudalib).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __noinline__ __attribute__((noinline))
#define tid_x() __nvvm_read_ptx_sreg_tid_x()
#define ntid_x() __nvvm_read_ptx_sreg_ntid_x()
#define ctaid_x() __nvvm_read_ptx_sreg_ctaid_x()
#define __syncthreads() __nvvm_bar_sync(0)
#define __forceinline__ __attribute__((always_inline))

