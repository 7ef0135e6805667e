  // Right-looking LU without pivoting (A is diagonally dominant) by the first block alone (the other blocks have
  // nothing to do), working in place in L and U as packed triangles: entry (i, j) of the lower triangle at
  // i*(i+1)/2 + j, of the upper triangle at i*N - i*(i-1)/2 + (j - i). Entries left of the diagonal hold A's
  // values until they become multipliers.
  if (blockIdx.x != 0) return;
  auto lo = [N](size_t i, size_t j) { return i * (i + 1) / 2 + j; };
  auto up = [N](size_t i, size_t j) { return i * N - i * (i - 1) / 2 + (j - i); };
  for (size_t i = threadIdx.x; i < N; i += blockDim.x) {
    for (size_t j = 0; j <= i; ++j) L[lo(i, j)] = COOElement{i, j, 0.0};
    for (size_t j = i; j < N; ++j) U[up(i, j)] = COOElement{i, j, 0.0};
  }
  __syncthreads();
  for (size_t q = threadIdx.x; q < sizeA; q += blockDim.x) {
    const COOElement e = A[q];
    if (e.column >= e.row) U[up(e.row, e.column)].value = e.value;
    else L[lo(e.row, e.column)].value = e.value;
  }
  __syncthreads();
  for (size_t k = 0; k + 1 < N; ++k) {
    const double pivot = U[up(k, k)].value;
    for (size_t i = k + 1 + threadIdx.x; i < N; i += blockDim.x) L[lo(i, k)].value /= pivot;
    __syncthreads();
    const size_t width = N - k - 1;
    for (size_t p = threadIdx.x; p < width * width; p += blockDim.x) {
      const size_t i = k + 1 + p / width, j = k + 1 + p % width;
      const double f = L[lo(i, k)].value;
      if (f == 0.0) continue;
      const double delta = f * U[up(k, j)].value;
      if (j >= i) U[up(i, j)].value -= delta;
      else L[lo(i, j)].value -= delta;
    }
    __syncthreads();
  }
  for (size_t i = threadIdx.x; i < N; i += blockDim.x) L[lo(i, i)].value = 1.0;
  (void)sizeL; (void)sizeU;
}
