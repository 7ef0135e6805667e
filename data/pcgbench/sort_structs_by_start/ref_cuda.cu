  // One launch cannot synchronise its blocks, so the first block sorts in place and the others return: a
  // bitonic network over the next power of two m >= N in which every comparator puts the smaller value at
  // the lower position; positions past N act as +infinity, so comparators that reach them are skipped.
  if (blockIdx.x != 0) return;
  size_t m = 1;
  while (m < N) m <<= 1;
  for (size_t k = 2; k <= m; k <<= 1) {
    for (size_t j = k >> 1; j > 0; j >>= 1) {
      for (size_t t = threadIdx.x; t < m / 2; t += blockDim.x) {
        size_t lo, hi;
        if (j == (k >> 1)) {  // first step of a merge: compare mirror positions of each k-block
          lo = (t / j) * k + t % j;
          hi = (t / j) * k + (k - 1 - t % j);
        } else {
          lo = (t / j) * 2 * j + t % j;
          hi = lo + j;
        }
        if (hi < N && results[hi].startTime < results[lo].startTime) {
          const Result tmp = results[lo];
          results[lo] = results[hi];
          results[hi] = tmp;
        }
      }
      __syncthreads();
    }
  }
}
