  // Blocks of rows; every rank has the whole input, so no halo exchange. Rank 0 gathers the rows.
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
      const int live = (i >= 1 && j >= 1 ? input[(i - 1) * N + (j - 1)] : 0) + (i >= 1 ? input[(i - 1) * N + j] : 0) + (i >= 1 && j + 1 < N ? input[(i - 1) * N + (j + 1)] : 0) + (j >= 1 ? input[i * N + (j - 1)] : 0) + (j + 1 < N ? input[i * N + (j + 1)] : 0) + (i + 1 < N && j >= 1 ? input[(i + 1) * N + (j - 1)] : 0) + (i + 1 < N ? input[(i + 1) * N + j] : 0) + (i + 1 < N && j + 1 < N ? input[(i + 1) * N + (j + 1)] : 0);
      output[i * N + j] = (live == 3 || (live == 2 && input[i * N + j] == 1)) ? 1 : 0;
    }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_INT, output.data(), counts.data(), displs.data(), MPI_INT, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(output.data() + displs[rank], counts[rank], MPI_INT, nullptr, nullptr, nullptr, MPI_INT, 0,
                MPI_COMM_WORLD);
}
