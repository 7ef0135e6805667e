  // Blocks cannot synchronise with each other inside one launch, so block (0, 0) alone factors the matrix:
  // its threads stride over the rows below the pivot and a barrier separates the elimination steps.
  if (blockIdx.x != 0 || blockIdx.y != 0) return;
  const size_t t = threadIdx.y * (size_t)blockDim.x + threadIdx.x, T = (size_t)blockDim.x * blockDim.y;
  for (size_t k = 0; k < N; ++k) {
    const double pivot = A[k * N + k];
    for (size_t i = k + 1 + t; i < N; i += T) {
      const double l = A[i * N + k] / pivot;
      A[i * N + k] = l;
      for (size_t j = k + 1; j < N; ++j) A[i * N + j] -= l * A[k * N + j];
    }
    __syncthreads();
  }
}
