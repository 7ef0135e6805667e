  // Right-looking LU without pivoting (A is diagonally dominant) by the first block alone (blocks cannot wait for
  // each other inside one launch; the other blocks have nothing to do), in place in U (all 0 on entry, then A's
  // entries): the threads stride over the rows below each pivot, each multiplier going to L and the eliminated
  // entry of U becoming 0; a barrier separates the elimination steps.
  if (blockIdx.x != 0) return;
  for (size_t q = threadIdx.x; q < sizeA; q += blockDim.x) U[A[q].row * N + A[q].column] = A[q].value;
  for (size_t i = threadIdx.x; i < N; i += blockDim.x) L[i * N + i] = 1.0;
  __syncthreads();
  for (size_t k = 0; k + 1 < N; ++k) {
    const double* pivot_row = &U[k * N];
    const double pivot = pivot_row[k];
    for (size_t i = k + 1 + threadIdx.x; i < N; i += blockDim.x) {
      double* row = &U[i * N];
      if (row[k] == 0.0) continue;
      const double f = row[k] / pivot;
      L[i * N + k] = f;
      row[k] = 0.0;
      for (size_t j = k + 1; j < N; ++j) row[j] -= f * pivot_row[j];
    }
    __syncthreads();
  }
}
