// data.cu: loops whose trip count depends on memory contents or on time,
// so that no function of the launch gives it (the negatives of the
// launch-only classification), next to launch-only loops in the same
// kernels.
// Written for the gpuwcet kernel corpus; not copied from elsewhere.

// Sparse matrix-vector product in CSR form: the row's extent is read from
// row_ptr.
__global__ void spmv_csr(const int *row_ptr, const int *cols, const float *vals, const float *x, float *y, int rows) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += blockDim.x * gridDim.x) { // @trip launch-only max(0, ceildiv(rows - (blockIdx.x * blockDim.x + threadIdx.x), blockDim.x * gridDim.x))
    float s = 0.0f;
    for (int j = row_ptr[r]; j < row_ptr[r + 1]; ++j) { // @trip data
      s += vals[j] * x[cols[j]];
    }
    y[r] = s;
  }
}

// Walks a linked list stored as next[] indices from each thread's head
// (0 ends a list), at most max_steps steps.
__global__ void list_walk(const int *head, const int *next, const float *val, float *out, int max_steps) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int node = head[t];
  float s = 0.0f;
  int steps = 0;
  while (node != 0 && steps < max_steps) { // @trip data max max(0, max_steps)
    s += val[node];
    node = next[node];
    ++steps;
  }
  out[t] = s;
}

// Binary search of each query in a sorted array of n keys: the number of
// halvings depends on the data but never exceeds clog2(n + 1).
__global__ void binary_search(const int *keys, const int *queries, int *pos, int n, int nq) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nq) {
    return;
  }
  int v = queries[q];
  int lo = 0, hi = n;
  while (lo < hi) { // @trip data max blockIdx.x * blockDim.x + threadIdx.x < nq && n > 0 ? clog2(n + 1) : 0
    int mid = lo + (hi - lo) / 2;
    if (keys[mid] < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  pos[q] = lo;
}

// Linear search with an early exit on the key: at most n iterations.
__global__ void find_first(const int *a, int *where, int n, int key) {
  int i = 0;
  for (; i < n; ++i) { // @trip data max max(0, n)
    if (a[i] == key) {
      break;
    }
  }
  where[blockIdx.x * blockDim.x + threadIdx.x] = i;
}

// Reads the global timer (ns).
__device__ __noinline__ unsigned long long now_ns() {
#ifdef __CUDA_ARCH__
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  static unsigned long long fake = 0;
  return fake += 1000;
#endif
}

// A release point of a time-triggered schedule: spin on %globaltimer
// until the release time, then run a counted loop.
__global__ void timer_release(float *out, unsigned long long release_ns, int work) {
  while (now_ns() < release_ns) { // @trip data
  }
  float v = (float)threadIdx.x;
  for (int i = 0; i < work; ++i) { // @trip launch-only max(0, work)
    v = v * 0.999f + 1.0f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Convergence loop: iterates a contraction until the change is below
// tol or iters_max iterations have run.
__global__ void fixed_point(const float *c, float *x, float tol, int iters_max) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0.0f;
  float d = 1.0f;
  int it = 0;
  do { // @trip data max max(1, iters_max)
    float nv = 0.5f * v + c[i];
    d = fabsf(nv - v);
    v = nv;
    ++it;
  } while (d > tol && it < iters_max);
  x[i] = v;
}
