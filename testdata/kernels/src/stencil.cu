// stencil.cu: 1-D, 2-D and 3-D stencils with shared-memory tiles and
// halos, time-stepped stencils with barriers inside the loop.
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

#define TILE 16
#define RMAX 8

// 1-D stencil of radius r (at most RMAX) through a shared tile with halo;
// the halo is loaded by a strided loop over the block.
__global__ void stencil1d(const float *in, float *out, int n, int r) {
  __shared__ float buf[1024 + 2 * RMAX];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int rr = min(max(r, 0), RMAX);
  for (int i = threadIdx.x; i < blockDim.x + 2 * rr; i += blockDim.x) { // @trip launch-only max(0, ceildiv(blockDim.x + 2 * min(max(r, 0), 8) - threadIdx.x, blockDim.x))
    int src = blockIdx.x * blockDim.x + i - rr;
    buf[i] = (src >= 0 && src < n) ? in[src] : 0.0f;
  }
  __syncthreads();
  if (g >= n) {
    return;
  }
  float s = 0.0f;
  for (int k = -rr; k <= rr; ++k) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x < n ? 2 * min(max(r, 0), 8) + 1 : 0
    s += buf[threadIdx.x + rr + k];
  }
  out[g] = s;
}

// 2-D 5-point stencil on a TILE x TILE block with a one-element halo
// loaded by a 2-D strided loop.
__global__ void stencil2d_5pt(const float *in, float *out, int nx, int ny) {
  __shared__ float t[TILE + 2][TILE + 2];
  int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
  for (int y = threadIdx.y; y < TILE + 2; y += blockDim.y) { // @trip launch-only max(0, ceildiv(18 - threadIdx.y, blockDim.y))
    for (int x = threadIdx.x; x < TILE + 2; x += blockDim.x) { // @trip launch-only threadIdx.y < 18 ? max(0, ceildiv(18 - threadIdx.x, blockDim.x)) : 0
      int gx = min(max(x0 + x - 1, 0), nx - 1);
      int gy = min(max(y0 + y - 1, 0), ny - 1);
      t[y][x] = in[gy * nx + gx];
    }
  }
  __syncthreads();
  int x = threadIdx.x, y = threadIdx.y;
  if (x < TILE && y < TILE && x0 + x < nx && y0 + y < ny) {
    out[(y0 + y) * nx + x0 + x] = 0.25f * (t[y][x + 1] + t[y + 2][x + 1] + t[y + 1][x] + t[y + 1][x + 2]) - t[y + 1][x + 1];
  }
}

// 3-D 7-point stencil in 2.5-D blocking: each thread walks z, keeping the
// planes below and above in registers.
__global__ void stencil3d_7pt(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) {
    return;
  }
  long long plane = (long long)nx * ny;
  long long idx = (long long)y * nx + x;
  float below = in[idx];
  float cur = in[idx + plane];
  for (int z = 1; z < nz - 1; ++z) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x >= 1 && blockIdx.y * blockDim.y + threadIdx.y >= 1 && blockIdx.x * blockDim.x + threadIdx.x < nx - 1 && blockIdx.y * blockDim.y + threadIdx.y < ny - 1 ? max(0, nz - 2) : 0
    float above = in[idx + (z + 1) * plane];
    long long c = idx + z * plane;
    out[c] = below + above + in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] - 6.0f * cur;
    below = cur;
    cur = above;
  }
}

// Jacobi iterations of a 1-D heat equation inside one block: the time
// loop holds two barriers, the space loop strides over the block.
__global__ void heat1d_steps(float *u, int n, int steps) {
  __shared__ float a[2048];
  __shared__ float b[2048];
  int m = min(n, 2048);
  for (int i = threadIdx.x; i < m; i += blockDim.x) { // @trip launch-only max(0, ceildiv(min(n, 2048) - threadIdx.x, blockDim.x))
    a[i] = u[i];
  }
  __syncthreads();
  for (int s = 0; s < steps; ++s) { // @trip launch-only max(0, steps)
    for (int i = threadIdx.x; i < m; i += blockDim.x) { // @trip launch-only steps > 0 ? max(0, ceildiv(min(n, 2048) - threadIdx.x, blockDim.x)) : 0
      float l = i > 0 ? a[i - 1] : a[i];
      float r = i < m - 1 ? a[i + 1] : a[i];
      b[i] = a[i] + 0.1f * (l - 2.0f * a[i] + r);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < m; i += blockDim.x) { // @trip launch-only steps > 0 ? max(0, ceildiv(min(n, 2048) - threadIdx.x, blockDim.x)) : 0
      a[i] = b[i];
    }
    __syncthreads();
  }
  for (int i = threadIdx.x; i < m; i += blockDim.x) { // @trip launch-only max(0, ceildiv(min(n, 2048) - threadIdx.x, blockDim.x))
    u[i] = a[i];
  }
}

// A 2-D Jacobi sweep with a grid-stride loop in y and a fixed number of
// sweeps given by the argument.
__global__ void jacobi2d(const float *in, float *out, int nx, int ny, int sweeps) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < 1 || x >= nx - 1) {
    return;
  }
  for (int it = 0; it < sweeps; ++it) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x >= 1 && blockIdx.x * blockDim.x + threadIdx.x < nx - 1 ? max(0, sweeps) : 0
    for (int y = 1 + blockIdx.y * blockDim.y + threadIdx.y; y < ny - 1; y += blockDim.y * gridDim.y) { // @trip launch-only blockIdx.x * blockDim.x + threadIdx.x >= 1 && blockIdx.x * blockDim.x + threadIdx.x < nx - 1 && sweeps > 0 ? max(0, ceildiv(ny - 2 - (blockIdx.y * blockDim.y + threadIdx.y), blockDim.y * gridDim.y)) : 0
      int c = y * nx + x;
      out[c] = 0.25f * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx]);
    }
  }
}
