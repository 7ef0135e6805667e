  // One block; threads stride over rows; sweeps alternate between x and scratch, with a barrier between them.
  double *from = x, *to = scratch;
  for (int it = 0; it < iterations; ++it) {
    for (size_t i = threadIdx.x; i < N; i += blockDim.x) {
      double sum = b[i], diag = 1.0;
      for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        if (col[k] == i) diag = val[k];
        else sum -= val[k] * from[col[k]];
      }
      to[i] = sum / diag;
    }
    __syncthreads();
    double *t = from; from = to; to = t;
  }
  if (from != x)
    for (size_t i = threadIdx.x; i < N; i += blockDim.x) x[i] = from[i];
}
