  // Gaussian elimination without pivoting (A is diagonally dominant) by the first block alone (the other blocks
  // have nothing to do): a dense copy of A in device heap memory, x holding the right-hand side until the
  // back substitution turns it into the solution.
  if (blockIdx.x != 0) return;
  __shared__ double* M;
  if (threadIdx.x == 0) M = (double*)malloc(N * N * sizeof(double));
  __syncthreads();
  if (M == nullptr) return;
  for (size_t p = threadIdx.x; p < N * N; p += blockDim.x) M[p] = 0.0;
  for (size_t i = threadIdx.x; i < N; i += blockDim.x) x[i] = b[i];
  __syncthreads();
  for (size_t q = threadIdx.x; q < sizeA; q += blockDim.x) M[A[q].row * N + A[q].column] = A[q].value;
  __syncthreads();
  for (size_t k = 0; k + 1 < N; ++k) {
    const double pivot = M[k * N + k];
    const size_t rows = N - k - 1;
    for (size_t p = threadIdx.x; p < rows * (N - k); p += blockDim.x) {
      const size_t i = k + 1 + p / (N - k), j = k + p % (N - k);
      if (j == k) continue;  // the pivot column is read by the other threads of this step; cleared below
      M[i * N + j] -= M[i * N + k] / pivot * M[k * N + j];
    }
    __syncthreads();
    for (size_t i = k + 1 + threadIdx.x; i < N; i += blockDim.x) {
      x[i] -= M[i * N + k] / pivot * x[k];
      M[i * N + k] = 0.0;
    }
    __syncthreads();
  }
  for (size_t i = N; i-- > 0;) {
    const double xi = x[i] / M[i * N + i];
    for (size_t r = threadIdx.x; r < i; r += blockDim.x) x[r] -= M[r * N + i] * xi;
    __syncthreads();
    if (threadIdx.x == 0) x[i] = xi;
    __syncthreads();
  }
  if (threadIdx.x == 0) free(M);
}
