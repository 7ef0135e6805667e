  // One launch cannot synchronise its blocks, so the first block does the work and the others return: it
  // copies the non-zero values, in order, to scratch memory from the device heap (a block-wide prefix sum per
  // tile of 256), sorts them there with a bitonic network, and writes them back over the non-zero positions.
  if (blockIdx.x != 0) return;
  __shared__ int *vals;
  __shared__ size_t scan[256];
  __shared__ size_t base;
  if (threadIdx.x == 0) {
    vals = static_cast<int *>(malloc((N > 0 ? N : 1) * sizeof(int)));
    base = 0;
  }
  __syncthreads();
  if (vals == nullptr) return;
  for (int pass = 0; pass < 2; ++pass) {  // pass 0: collect the non-zero values; pass 1: write them back
    if (pass == 1) {
      // Bitonic network over the next power of two m >= K; positions past K act as +infinity.
      const size_t K = base;
      size_t m = 1;
      while (m < K) m <<= 1;
      for (size_t k = 2; k <= m; k <<= 1) {
        for (size_t j = k >> 1; j > 0; j >>= 1) {
          for (size_t t = threadIdx.x; t < m / 2; t += blockDim.x) {
            size_t lo, hi;
            if (j == (k >> 1)) {
              lo = (t / j) * k + t % j;
              hi = (t / j) * k + (k - 1 - t % j);
            } else {
              lo = (t / j) * 2 * j + t % j;
              hi = lo + j;
            }
            if (hi < K && vals[hi] < vals[lo]) {
              const int tmp = vals[lo];
              vals[lo] = vals[hi];
              vals[hi] = tmp;
            }
          }
          __syncthreads();
        }
      }
      if (threadIdx.x == 0) base = 0;
      __syncthreads();
    }
    for (size_t start = 0; start < N; start += blockDim.x) {
      const size_t i = start + threadIdx.x;
      const int v = i < N ? x[i] : 0;
      scan[threadIdx.x] = (v != 0);
      __syncthreads();
      for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        const size_t add = threadIdx.x >= off ? scan[threadIdx.x - off] : 0;
        __syncthreads();
        scan[threadIdx.x] += add;
        __syncthreads();
      }
      if (v != 0) {
        if (pass == 0) vals[base + scan[threadIdx.x] - 1] = v;
        else x[i] = vals[base + scan[threadIdx.x] - 1];
      }
      __syncthreads();
      if (threadIdx.x == blockDim.x - 1) base += scan[threadIdx.x];
      __syncthreads();
    }
  }
  if (threadIdx.x == 0) free(vals);
}
