  // Cyclic rows; the owner of row k broadcasts it (with y[k]) before step k; rank 0 collects the reduced rows
  // and back-substitutes.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> U(A), y(b), pivot_row(N + 1);
  for (size_t k = 0; k < N; ++k) {
    const int owner = static_cast<int>(k % size);
    if (rank == owner) {
      for (size_t j = k; j < N; ++j) pivot_row[j] = U[k * N + j];
      pivot_row[N] = y[k];
    }
    MPI_Bcast(&pivot_row[k], static_cast<int>(N - k + 1), MPI_DOUBLE, owner, MPI_COMM_WORLD);
    size_t first = k + 1;
    while (first < N && first % size != (size_t)rank) ++first;
    for (size_t i = first; i < N; i += size) {
      double *row = &U[i * N];
      const double l = row[k] / pivot_row[k];
      for (size_t j = k + 1; j < N; ++j) row[j] -= l * pivot_row[j];
      y[i] -= l * pivot_row[N];
    }
  }
  for (size_t i = 0; i < N; ++i) {
    const int owner = static_cast<int>(i % size);
    if (owner == 0) continue;
    if (rank == owner) {
      std::vector<double> msg(U.begin() + i * N, U.begin() + (i + 1) * N);
      msg.push_back(y[i]);
      MPI_Send(msg.data(), static_cast<int>(N + 1), MPI_DOUBLE, 0, static_cast<int>(i), MPI_COMM_WORLD);
    } else if (rank == 0) {
      std::vector<double> msg(N + 1);
      MPI_Recv(msg.data(), static_cast<int>(N + 1), MPI_DOUBLE, owner, static_cast<int>(i), MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      for (size_t j = 0; j < N; ++j) U[i * N + j] = msg[j];
      y[i] = msg[N];
    }
  }
  if (rank != 0) return;
  for (size_t i = N; i-- > 0;) {
    double sum = y[i];
    for (size_t j = i + 1; j < N; ++j) sum -= U[i * N + j] * x[j];
    x[i] = sum / U[i * N + i];
  }
}
