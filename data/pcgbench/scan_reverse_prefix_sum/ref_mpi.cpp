  // A forward scan of x read backwards: each rank scans its block of output, adds the total of the blocks of
  // lower ranks (MPI_Exscan), and rank 0 gathers the blocks.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(n * r / size);
    counts[r] = static_cast<int>(n * (r + 1) / size) - displs[r];
  }
  const size_t begin = displs[rank], end = begin + counts[rank];
  int running = 0;
  for (size_t k = begin; k < end; ++k) {
    running += x[n - 1 - k];
    output[k] = running;
  }
  int offset = 0;
  MPI_Exscan(&running, &offset, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) offset = 0;  // MPI_Exscan leaves rank 0's result undefined
  for (size_t k = begin; k < end; ++k) output[k] += offset;
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_INT, output.data(), counts.data(), displs.data(), MPI_INT, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(output.data() + begin, counts[rank], MPI_INT, nullptr, nullptr, nullptr, MPI_INT, 0,
                MPI_COMM_WORLD);
}
