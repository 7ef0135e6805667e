  // Right-looking elimination; the inner loop runs along rows (unit stride).
  for (size_t k = 0; k < N; ++k) {
    const double *pivot_row = &A[k * N];
    const double pivot = pivot_row[k];
    for (size_t i = k + 1; i < N; ++i) {
      double *row = &A[i * N];
      const double l = row[k] / pivot;
      row[k] = l;
      for (size_t j = k + 1; j < N; ++j) row[j] -= l * pivot_row[j];
    }
  }
}
