  // One thread per element A(i, k) (grid-stride): find row k of X by binary search (X is sorted by row) and add
  // a times that row into row i of Y atomically (other elements of row i write the same row).
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t q = blockIdx.x * (size_t)blockDim.x + threadIdx.x; q < sizeA; q += stride) {
    const COOElement a = A[q];
    size_t lo = 0, hi = sizeX;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (X[mid].row < a.column) lo = mid + 1; else hi = mid;
    }
    for (size_t p = lo; p < sizeX && X[p].row == a.column; ++p) atomicAdd(&Y[a.row * N + X[p].column], a.value * X[p].value);
  }
  (void)M; (void)K;
}
