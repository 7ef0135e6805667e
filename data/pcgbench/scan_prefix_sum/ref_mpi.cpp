  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::size_t n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(n * r / size);
    counts[r] = static_cast<int>(n * (r + 1) / size) - displs[r];
  }
  const int begin = displs[rank], end = begin + counts[rank];
  double running = 0.0;
  for (int i = begin; i < end; ++i) {
    running += x[i];
    output[i] = running;
  }
  // The sum of all blocks before this rank's block.
  double offset = 0.0;
  MPI_Exscan(&running, &offset, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) offset = 0.0;  // MPI_Exscan leaves rank 0's result undefined
  for (int i = begin; i < end; ++i) output[i] += offset;
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, output.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(output.data() + begin, counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
