  // One thread per row (grid-stride, since there may be fewer threads than rows): find the row's run of
  // elements by binary search (A is sorted by row), then write the row's new value once.
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < M; i += stride) {
    size_t lo = 0, hi = sizeA;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (A[mid].row < i) lo = mid + 1; else hi = mid;
    }
    double sum = 0.0;
    for (size_t k = lo; k < sizeA && A[k].row == i; ++k) sum += A[k].value * x[A[k].column];
    y[i] = alpha * sum + beta * y[i];
  }
  (void)N;
}
