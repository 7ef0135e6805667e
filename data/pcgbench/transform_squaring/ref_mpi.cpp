  // Each rank computes one contiguous block of x; rank 0 gathers the blocks in place.
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
  for (size_t i = begin; i < end; ++i) x[i] = x[i] * x[i];
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_INT, x.data(), counts.data(), displs.data(), MPI_INT, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(x.data() + begin, counts[rank], MPI_INT, nullptr, nullptr, nullptr, MPI_INT, 0,
                MPI_COMM_WORLD);
}
