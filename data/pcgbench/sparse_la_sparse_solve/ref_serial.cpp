  // Gaussian elimination without pivoting (A is diagonally dominant) on a dense row-major copy; rows whose
  // entry in the pivot column is 0 are skipped, which saves most of the work while the matrix is still sparse.
  std::vector<double> M(N * N, 0.0), c(b.begin(), b.end());
  for (const COOElement& e : A) M[e.row * N + e.column] = e.value;
  for (size_t k = 0; k < N; ++k) {
    const double* pivot_row = &M[k * N];
    const double pivot = pivot_row[k];
    for (size_t i = k + 1; i < N; ++i) {
      double* row = &M[i * N];
      if (row[k] == 0.0) continue;
      const double f = row[k] / pivot;
      for (size_t j = k + 1; j < N; ++j) row[j] -= f * pivot_row[j];
      c[i] -= f * c[k];
    }
  }
  x.assign(N, 0.0);
  for (size_t i = N; i-- > 0;) {
    double s = c[i];
    const double* row = &M[i * N];
    for (size_t j = i + 1; j < N; ++j) s -= row[j] * x[j];
    x[i] = s / row[i];
  }
}
