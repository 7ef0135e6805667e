  // Right-looking LU without pivoting (A is diagonally dominant) in place in U, rows dealt out cyclically to the
  // ranks and each rank's rows below the pivot eliminated by its threads; the multipliers are kept in the
  // eliminated entries. At step k the owner of row k broadcasts the whole row (final by then), so rank 0 ends up
  // with the whole factorization and moves the multipliers into L.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (const COOElement& e : A) U[e.row * N + e.column] = e.value;
  for (size_t k = 0; k < N; ++k) {
    MPI_Bcast(&U[k * N], static_cast<int>(N), MPI_DOUBLE, static_cast<int>(k % size), MPI_COMM_WORLD);
    const double* pivot_row = &U[k * N];
    const double pivot = pivot_row[k];
    const size_t first = k + 1 + (static_cast<size_t>(rank) + size - (k + 1) % size) % size;
    const long count = first < N ? static_cast<long>((N - first + size - 1) / size) : 0;
    #pragma omp parallel for schedule(static)
    for (long q = 0; q < count; ++q) {
      double* row = &U[(first + static_cast<size_t>(q) * size) * N];
      if (row[k] == 0.0) continue;
      const double f = row[k] / pivot;
      row[k] = f;
      for (size_t j = k + 1; j < N; ++j) row[j] -= f * pivot_row[j];
    }
  }
  if (rank != 0) return;
  #pragma omp parallel for schedule(static)
  for (size_t i = 0; i < N; ++i) {
    for (size_t j = 0; j < i; ++j) {
      L[i * N + j] = U[i * N + j];
      U[i * N + j] = 0.0;
    }
    L[i * N + i] = 1.0;
  }
}
