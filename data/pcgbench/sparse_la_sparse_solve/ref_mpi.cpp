  // Gaussian elimination without pivoting (A is diagonally dominant), rows dealt out cyclically. At step k the
  // owner of row k broadcasts it (final by then) with its right-hand side, so every rank ends up with the whole
  // upper triangle; rank 0 then back-substitutes.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> M(N * N, 0.0), c(b.begin(), b.end());
  for (const COOElement& e : A) M[e.row * N + e.column] = e.value;
  std::vector<double> buf(N + 1);
  for (size_t k = 0; k < N; ++k) {
    const int owner = static_cast<int>(k % size);
    if (rank == owner) {
      std::copy(M.begin() + k * N + k, M.begin() + (k + 1) * N, buf.begin());
      buf[N - k] = c[k];
    }
    MPI_Bcast(buf.data(), static_cast<int>(N - k + 1), MPI_DOUBLE, owner, MPI_COMM_WORLD);
    if (rank != owner) {
      std::copy(buf.begin(), buf.begin() + (N - k), M.begin() + k * N + k);
      c[k] = buf[N - k];
    }
    const double* pivot_row = &M[k * N];
    const double pivot = pivot_row[k];
    size_t i = k + 1;
    i += (static_cast<size_t>(rank) + size - i % size) % size;  // first row after k that this rank owns
    for (; i < N; i += size) {
      double* row = &M[i * N];
      if (row[k] == 0.0) continue;
      const double f = row[k] / pivot;
      for (size_t j = k + 1; j < N; ++j) row[j] -= f * pivot_row[j];
      c[i] -= f * c[k];
    }
  }
  if (rank == 0) {
    x.assign(N, 0.0);
    for (size_t i = N; i-- > 0;) {
      double s = c[i];
      const double* row = &M[i * N];
      for (size_t j = i + 1; j < N; ++j) s -= row[j] * x[j];
      x[i] = s / row[i];
    }
  }
}
