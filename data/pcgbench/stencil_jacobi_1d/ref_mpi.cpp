  // Every rank has the whole input, so no halo exchange is needed: compute a block, gather on rank 0. The
  // two boundary points are done apart, so the block's loop has no branches and vectorizes.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = input.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(n * r / size);
    counts[r] = static_cast<int>(n * (r + 1) / size) - displs[r];
  }
  const size_t begin = displs[rank], end = begin + counts[rank];
  if (n == 1) {
    output[0] = input[0] / 3.0;
  } else {
    if (begin == 0 && end > 0) output[0] = (input[0] + input[1]) / 3.0;
    if (end == n && begin < n) output[n - 1] = (input[n - 2] + input[n - 1]) / 3.0;
    const size_t lo = begin > 1 ? begin : 1, hi = end < n - 1 ? end : n - 1;
    for (size_t i = lo; i < hi; ++i) output[i] = (input[i - 1] + input[i] + input[i + 1]) / 3.0;
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, output.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(output.data() + begin, counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
