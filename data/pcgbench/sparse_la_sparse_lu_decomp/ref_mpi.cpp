  // Right-looking LU without pivoting (A is diagonally dominant), rows dealt out cyclically. At step k the owner
  // of row k broadcasts the whole row (final by then: its multipliers and its part of U), so every rank ends up
  // with the whole factorization; rank 0 writes L and U.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> M(N * N, 0.0);
  for (const COOElement& e : A) M[e.row * N + e.column] = e.value;
  for (size_t k = 0; k < N; ++k) {
    MPI_Bcast(&M[k * N], static_cast<int>(N), MPI_DOUBLE, static_cast<int>(k % size), MPI_COMM_WORLD);
    const double* pivot_row = &M[k * N];
    const double pivot = pivot_row[k];
    size_t i = k + 1;
    i += (static_cast<size_t>(rank) + size - i % size) % size;  // first row after k that this rank owns
    for (; i < N; i += size) {
      double* row = &M[i * N];
      if (row[k] == 0.0) continue;
      const double f = row[k] / pivot;
      row[k] = f;
      for (size_t j = k + 1; j < N; ++j) row[j] -= f * pivot_row[j];
    }
  }
  if (rank != 0) return;
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
