  // Each thread takes an equal share of the elements, moved to row boundaries so that no row is split.
  #pragma omp parallel for schedule(static)
  for (size_t i = 0; i < M; ++i) y[i] *= beta;
  const size_t nnz = A.size();
  auto row_start = [&](size_t k) {
    while (k > 0 && k < nnz && A[k].row == A[k - 1].row) ++k;
    return k;
  };
  #pragma omp parallel
  {
    const size_t t = omp_get_thread_num(), threads = omp_get_num_threads();
    size_t k = row_start(nnz * t / threads);
    const size_t end = row_start(nnz * (t + 1) / threads);
    while (k < end) {
      const size_t row = A[k].row;
      double sum = 0.0;
      for (; k < end && A[k].row == row; ++k) sum += A[k].value * x[A[k].column];
      y[row] += alpha * sum;
    }
  }
  (void)N;
}
