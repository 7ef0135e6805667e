  // Each rank scans its block of its own copy of x, takes the minimum with the blocks of lower ranks
  // (MPI_Exscan), and rank 0 gathers the blocks into its x.
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
  float low = std::numeric_limits<float>::infinity();
  for (size_t i = begin; i < end; ++i) {
    low = x[i] < low ? x[i] : low;
    x[i] = low;
  }
  float before = std::numeric_limits<float>::infinity();
  MPI_Exscan(&low, &before, 1, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) before = std::numeric_limits<float>::infinity();  // undefined on rank 0
  for (size_t i = begin; i < end; ++i) x[i] = x[i] < before ? x[i] : before;
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_FLOAT, x.data(), counts.data(), displs.data(), MPI_FLOAT, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(x.data() + begin, counts[rank], MPI_FLOAT, nullptr, nullptr, nullptr, MPI_FLOAT, 0, MPI_COMM_WORLD);
}
