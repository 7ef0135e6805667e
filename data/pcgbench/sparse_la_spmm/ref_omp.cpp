  (void)K;
  #pragma omp parallel for schedule(dynamic, 256)
  for (size_t i = 0; i < M; ++i) {
    double *c = &C[i * N];
    for (size_t j = 0; j < N; ++j) c[j] = 0.0;
    for (size_t e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
      const double a = val[e];
      const double *b = &B[col[e] * N];
      for (size_t j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}
