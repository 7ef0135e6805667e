  // Row starts of X; then each thread takes an equal share of A's elements, moved to row boundaries, so that
  // threads write disjoint rows of Y.
  std::vector<size_t> xptr(K + 1, 0);
  for (const COOElement& e : X) ++xptr[e.row + 1];
  for (size_t k = 0; k < K; ++k) xptr[k + 1] += xptr[k];
  const size_t nnz = A.size();
  auto row_start = [&](size_t p) {
    while (p > 0 && p < nnz && A[p].row == A[p - 1].row) ++p;
    return p;
  };
  #pragma omp parallel
  {
    const size_t t = omp_get_thread_num(), threads = omp_get_num_threads();
    const size_t begin = row_start(nnz * t / threads), end = row_start(nnz * (t + 1) / threads);
    for (size_t q = begin; q < end; ++q) {
      const COOElement& a = A[q];
      double* yrow = &Y[a.row * N];
      for (size_t p = xptr[a.column]; p < xptr[a.column + 1]; ++p) yrow[X[p].column] += a.value * X[p].value;
    }
  }
  (void)M;
}
