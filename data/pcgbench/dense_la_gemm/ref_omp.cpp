  #pragma omp parallel for schedule(static)
  for (size_t i = 0; i < M; ++i) {
    double *c = &C[i * N];
    for (size_t j = 0; j < N; ++j) c[j] = 0.0;
    for (size_t k = 0; k < K; ++k) {
      const double a = A[i * K + k];
      const double *b = &B[k * N];
      for (size_t j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}
