// Kernels whose branches the per-warp resolution decides from the launch
// (block 128 threads, n = 40 unless stated): the classes of warps must be
// the same on the PTX and on the SASS of each build.
__global__ void below(int *o, int n) {
  if (threadIdx.x < n) o[threadIdx.x] = 1;
}
__global__ void halves(int *o) {
  if ((threadIdx.x & 63) < 32) o[threadIdx.x] = 2;
  else o[threadIdx.x] = 3;
}
__global__ void warpsel(int *o, int n) {
  if (threadIdx.x / 32 == n % 4) o[threadIdx.x] = 4;
}
__global__ void clamp(int *o, int n) {
  int lim = max(n, 8);
  if ((int)threadIdx.x < lim) o[threadIdx.x] = 5;
}
__global__ void fromend(int *o) {
  if (blockDim.x - threadIdx.x > 100) o[threadIdx.x] = 6;
}
__global__ void twod(int *o, int n) {
  if (threadIdx.y * blockDim.x + threadIdx.x < n * 2) o[threadIdx.x] = 7;
}
__global__ void signeddiv(int *o, int n) {
  if ((int)threadIdx.x - 64 < n / 4) o[threadIdx.x] = 8;
}
