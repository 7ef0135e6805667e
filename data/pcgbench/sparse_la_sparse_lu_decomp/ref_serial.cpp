  // Right-looking LU without pivoting (A is diagonally dominant) on a dense row-major copy; rows with a 0 below
  // the pivot are skipped, which saves most of the work while the matrix is still sparse. L's multipliers
  // overwrite the eliminated entries.
  std::vector<double> M(N * N, 0.0);
  for (const COOElement& e : A) M[e.row * N + e.column] = e.value;
  for (size_t k = 0; k < N; ++k) {
    const double* pivot_row = &M[k * N];
    const double pivot = pivot_row[k];
    for (size_t i = k + 1; i < N; ++i) {
      double* row = &M[i * N];
      if (row[k] == 0.0) continue;
      const double f = row[k] / pivot;
      row[k] = f;
      for (size_t j = k + 1; j < N; ++j) row[j] -= f * pivot_row[j];
    }
  }
  L.clear();
  U.clear();
  for (size_t i = 0; i < N; ++i) {
    const double* row = &M[i * N];
    for (size_t j = 0; j < i; ++j)
      if (row[j] != 0.0) L.push_back(COOElement{i, j, row[j]});
    L.push_back(COOElement{i, i, 1.0});
    for (size_t j = i; j < N; ++j)
      if (row[j] != 0.0) U.push_back(COOElement{i, j, row[j]});
  }
}
