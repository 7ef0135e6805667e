  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>((N * r / size) * N);
    counts[r] = static_cast<int>((N * (r + 1) / size) * N) - displs[r];
  }
  #pragma omp parallel for schedule(static)
  for (size_t i = N * rank / size; i < N * (rank + 1) / size; ++i)
    for (size_t j = 0; j < N; ++j) {
      double sum = input[i * N + j];
      if (i > 0) sum += input[(i - 1) * N + j];
      if (i + 1 < N) sum += input[(i + 1) * N + j];
      if (j > 0) sum += input[i * N + j - 1];
      if (j + 1 < N) sum += input[i * N + j + 1];
      output[i * N + j] = sum / 5.0;
    }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, output.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(output.data() + displs[rank], counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
