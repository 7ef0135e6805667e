  std::vector<double> U(A), y(b);
  for (size_t k = 0; k < N; ++k) {
    const double *pivot_row = &U[k * N];
    #pragma omp parallel for schedule(static)
    for (size_t i = k + 1; i < N; ++i) {
      double *row = &U[i * N];
      const double l = row[k] / pivot_row[k];
      for (size_t j = k + 1; j < N; ++j) row[j] -= l * pivot_row[j];
      y[i] -= l * y[k];
    }
  }
  // Back substitution is O(N^2) against the O(N^3) elimination: left sequential.
  for (size_t i = N; i-- > 0;) {
    double sum = y[i];
    for (size_t j = i + 1; j < N; ++j) sum -= U[i * N + j] * x[j];
    x[i] = sum / U[i * N + i];
  }
}
