  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (size_t k = 0; k < N; ++k) {
    MPI_Bcast(&A[k * N + k], static_cast<int>(N - k), MPI_DOUBLE, static_cast<int>(k % size), MPI_COMM_WORLD);
    const double *pivot_row = &A[k * N];
    const double pivot = pivot_row[k];
    size_t first = k + 1;
    while (first < N && first % size != (size_t)rank) ++first;
    const long count = first < N ? static_cast<long>((N - 1 - first) / size + 1) : 0;
    #pragma omp parallel for schedule(static)
    for (long t = 0; t < count; ++t) {
      double *row = &A[(first + t * size) * N];
      const double l = row[k] / pivot;
      row[k] = l;
      for (size_t j = k + 1; j < N; ++j) row[j] -= l * pivot_row[j];
    }
  }
  for (size_t i = 0; i < N; ++i) {
    const int owner = static_cast<int>(i % size);
    if (owner == 0) continue;
    if (rank == owner) MPI_Send(&A[i * N], static_cast<int>(N), MPI_DOUBLE, 0, static_cast<int>(i), MPI_COMM_WORLD);
    else if (rank == 0)
      MPI_Recv(&A[i * N], static_cast<int>(N), MPI_DOUBLE, owner, static_cast<int>(i), MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}
