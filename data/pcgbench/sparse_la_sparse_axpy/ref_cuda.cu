  // The first block does the merge (the other blocks have nothing to do): the index space is split evenly among
  // its threads; each thread merges its part of x and y twice, first counting its output elements (a scan over
  // the block gives every thread its offset in z), then writing them.
  if (blockIdx.x != 0) return;
  __shared__ size_t offset[1024];
  const size_t threads = blockDim.x, t = threadIdx.x;
  const size_t span = 1 + ((Nx ? x[Nx - 1].index : 0) > (Ny ? y[Ny - 1].index : 0) ? (Nx ? x[Nx - 1].index : 0)
                                                                                    : (Ny ? y[Ny - 1].index : 0));
  auto lower = [](const Element* v, size_t n, size_t index) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (v[mid].index < index) lo = mid + 1; else hi = mid;
    }
    return lo;
  };
  const size_t lo = span / threads * t + (span % threads) * t / threads;
  const size_t hi = span / threads * (t + 1) + (span % threads) * (t + 1) / threads;
  const size_t i0 = lower(x, Nx, lo), i1 = lower(x, Nx, hi), j0 = lower(y, Ny, lo), j1 = lower(y, Ny, hi);
  for (int pass = 0; pass < 2; ++pass) {
    size_t i = i0, j = j0, n = pass == 0 ? 0 : offset[t];
    while (i < i1 || j < j1) {
      Element e;
      if (j >= j1 || (i < i1 && x[i].index < y[j].index)) { e = Element{x[i].index, alpha * x[i].value}; ++i; }
      else if (i >= i1 || y[j].index < x[i].index) { e = y[j]; ++j; }
      else { e = Element{x[i].index, alpha * x[i].value + y[j].value}; ++i; ++j; }
      if (pass == 1 && n < Nz) z[n] = e;
      ++n;
    }
    if (pass == 0) {
      offset[t] = n;
      __syncthreads();
      if (t == 0) {  // exclusive scan of the counts
        size_t sum = 0;
        for (size_t r = 0; r < threads; ++r) { const size_t c = offset[r]; offset[r] = sum; sum += c; }
      }
      __syncthreads();
    }
  }
}
