  // Right-looking LU without pivoting (A is diagonally dominant) in place in U (all 0 on entry, then A's entries):
  // each entry below a pivot is eliminated (its multiplier goes to L, the entry in U becomes 0); rows with a 0
  // below the pivot are skipped, which saves most of the work while the matrix is still sparse.
  for (const COOElement& e : A) U[e.row * N + e.column] = e.value;
  for (size_t k = 0; k < N; ++k) {
    const double* pivot_row = &U[k * N];
    const double pivot = pivot_row[k];
    L[k * N + k] = 1.0;
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
