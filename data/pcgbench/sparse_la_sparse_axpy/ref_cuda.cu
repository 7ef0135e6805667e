  // One thread per element of x or y (grid-stride). An index in both is written once, by x's thread, with the
  // sum of both terms (found by binary search in y); y's thread writes only the indices x lacks. No two
  // threads write the same element of z, and z needs no atomics.
  auto find = [](const Element* v, size_t n, size_t index) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (v[mid].index < index) lo = mid + 1; else hi = mid;
    }
    return lo < n && v[lo].index == index ? lo : n;
  };
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < Nx + Ny; t += stride) {
    if (t < Nx) {
      const size_t k = find(y, Ny, x[t].index);
      z[x[t].index] = alpha * x[t].value + (k < Ny ? y[k].value : 0.0);
    } else {
      const Element e = y[t - Nx];
      if (find(x, Nx, e.index) == Nx) z[e.index] = e.value;
    }
  }
  (void)N;
}
