  // One block: elimination with threads striding over rows, then back substitution where, after x[i] is
  // known, the threads remove its contribution from the rows above.
  for (size_t k = 0; k < N; ++k) {
    for (size_t i = k + 1 + threadIdx.x; i < N; i += blockDim.x) {
      const double l = A[i * N + k] / A[k * N + k];
      for (size_t j = k + 1; j < N; ++j) A[i * N + j] -= l * A[k * N + j];
      b[i] -= l * b[k];
    }
    __syncthreads();
  }
  for (size_t i = N; i-- > 0;) {
    if (threadIdx.x == 0) x[i] = b[i] / A[i * N + i];
    __syncthreads();
    for (size_t r = threadIdx.x; r < i; r += blockDim.x) b[r] -= A[r * N + i] * x[i];
    __syncthreads();
  }
}
