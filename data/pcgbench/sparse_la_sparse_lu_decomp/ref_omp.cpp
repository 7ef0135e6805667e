  // Right-looking LU without pivoting (A is diagonally dominant) in place in U (all 0 on entry, then A's
  // entries); the rows below each pivot are eliminated in parallel (rows with a 0 below the pivot skipped), each
  // multiplier going to L and the eliminated entry of U becoming 0.
  for (const COOElement& e : A) U[e.row * N + e.column] = e.value;
  #pragma omp parallel
  {
    #pragma omp for schedule(static) nowait
    for (size_t i = 0; i < N; ++i) L[i * N + i] = 1.0;
    for (size_t k = 0; k < N; ++k) {
      const double* pivot_row = &U[k * N];
      const double pivot = pivot_row[k];
      #pragma omp for schedule(static)
      for (size_t i = k + 1; i < N; ++i) {
        double* row = &U[i * N];
        if (row[k] == 0.0) continue;
        const double f = row[k] / pivot;
        L[i * N + k] = f;
        row[k] = 0.0;
        for (size_t j = k + 1; j < N; ++j) row[j] -= f * pivot_row[j];
      }
    }
  }
}
