  // One block: threads stride over the rows below the pivot; a barrier separates the steps.
  for (size_t k = 0; k < N; ++k) {
    const double pivot = A[k * N + k];
    for (size_t i = k + 1 + threadIdx.x; i < N; i += blockDim.x) {
      const double l = A[i * N + k] / pivot;
      A[i * N + k] = l;
      for (size_t j = k + 1; j < N; ++j) A[i * N + j] -= l * A[k * N + j];
    }
    __syncthreads();
  }
}
