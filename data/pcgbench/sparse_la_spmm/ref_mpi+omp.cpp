  (void)K;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>((M * r / size) * N);
    counts[r] = static_cast<int>((M * (r + 1) / size) * N) - displs[r];
  }
  #pragma omp parallel for schedule(dynamic, 256)
  for (size_t i = M * rank / size; i < M * (rank + 1) / size; ++i) {
    for (size_t j = 0; j < N; ++j) C[i * N + j] = 0.0;
    for (size_t e = row_ptr[i]; e < row_ptr[i + 1]; ++e)
      for (size_t j = 0; j < N; ++j) C[i * N + j] += val[e] * B[col[e] * N + j];
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, C.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(C.data() + displs[rank], counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
