  // Blocks of rows; every rank has the whole imageIn, so no halo exchange. Rank 0 gathers the rows.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>((N * r / size) * N);
    counts[r] = static_cast<int>((N * (r + 1) / size) * N) - displs[r];
  }
  for (size_t i = N * rank / size; i < N * (rank + 1) / size; ++i)
    for (size_t j = 0; j < N; ++j) {
      const int sum = 8 * imageIn[i * N + j] - ((i >= 1 && j >= 1 ? imageIn[(i - 1) * N + (j - 1)] : 0) + (i >= 1 ? imageIn[(i - 1) * N + j] : 0) + (i >= 1 && j + 1 < N ? imageIn[(i - 1) * N + (j + 1)] : 0) + (j >= 1 ? imageIn[i * N + (j - 1)] : 0) + (j + 1 < N ? imageIn[i * N + (j + 1)] : 0) + (i + 1 < N && j >= 1 ? imageIn[(i + 1) * N + (j - 1)] : 0) + (i + 1 < N ? imageIn[(i + 1) * N + j] : 0) + (i + 1 < N && j + 1 < N ? imageIn[(i + 1) * N + (j + 1)] : 0));
      imageOut[i * N + j] = sum < 0 ? 0 : (sum > 255 ? 255 : sum);
    }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_INT, imageOut.data(), counts.data(), displs.data(), MPI_INT, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(imageOut.data() + displs[rank], counts[rank], MPI_INT, nullptr, nullptr, nullptr, MPI_INT, 0,
                MPI_COMM_WORLD);
}
