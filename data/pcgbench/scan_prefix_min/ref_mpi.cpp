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
  double low = std::numeric_limits<double>::infinity();
  for (size_t i = begin; i < end; ++i) {
    low = x[i] < low ? x[i] : low;
    output[i] = low;
  }
  double before = std::numeric_limits<double>::infinity();
  MPI_Exscan(&low, &before, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) before = std::numeric_limits<double>::infinity();  // undefined on rank 0
  for (size_t i = begin; i < end; ++i) output[i] = output[i] < before ? output[i] : before;
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, output.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(output.data() + begin, counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
