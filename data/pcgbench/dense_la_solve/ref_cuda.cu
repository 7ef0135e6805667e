  // A and b are read-only and blocks cannot synchronise with each other inside one launch, so block (0, 0)
  // alone solves the system by Jacobi iteration (A is strictly diagonally dominant, so it converges): x_new[i] =
  // (b[i] - sum over j != i of A[i][j] x[j]) / A[i][i], into a scratch vector, until the largest change is
  // negligible. Its threads stride over the rows; barriers separate the sweeps.
  if (blockIdx.x != 0 || blockIdx.y != 0) return;
  const size_t t = threadIdx.y * (size_t)blockDim.x + threadIdx.x, T = (size_t)blockDim.x * blockDim.y;
  __shared__ double* next;
  __shared__ double change[256];
  __shared__ int done;
  if (t == 0) next = (double*)malloc(N * sizeof(double));
  for (size_t i = t; i < N; i += T) x[i] = b[i] / A[i * N + i];
  __syncthreads();
  if (next == nullptr) return;
  for (int sweep = 0; sweep < 1000; ++sweep) {
    double local = 0.0, scale = 0.0;
    for (size_t i = t; i < N; i += T) {
      double sum = b[i];
      for (size_t j = 0; j < N; ++j) sum -= (j == i ? 0.0 : A[i * N + j] * x[j]);
      next[i] = sum / A[i * N + i];
      local = fmax(local, fabs(next[i] - x[i]));
      scale = fmax(scale, fabs(next[i]));
    }
    if (t < 256) change[t] = local - 1e-12 * scale;
    __syncthreads();
    for (size_t i = t; i < N; i += T) x[i] = next[i];
    if (t == 0) {
      double worst = change[0];
      for (size_t k = 1; k < T && k < 256; ++k) worst = fmax(worst, change[k]);
      done = worst <= 0.0;
    }
    __syncthreads();
    if (done) break;
  }
  __syncthreads();
  if (t == 0) free(next);
}
