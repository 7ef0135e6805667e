  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>((M * r / size) * N);
    counts[r] = static_cast<int>((M * (r + 1) / size) * N) - displs[r];
  }
  #pragma omp parallel for schedule(static)
  for (size_t i = M * rank / size; i < M * (rank + 1) / size; ++i) {
    double *c = &C[i * N];
    for (size_t j = 0; j < N; ++j) c[j] = 0.0;
    for (size_t k = 0; k < K; ++k) {
      const double a = A[i * K + k];
      for (size_t j = 0; j < N; ++j) c[j] += a * B[k * N + j];
    }
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, C.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(C.data() + displs[rank], counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
