  // Each rank sorts its block; rank 0 gathers the sorted blocks, merges them and scans neighbours.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(n * r / size);
    counts[r] = static_cast<int>(n * (r + 1) / size) - displs[r];
  }
  std::vector<double> mine(x.begin() + displs[rank], x.begin() + displs[rank] + counts[rank]);
  std::sort(mine.begin(), mine.end());
  std::vector<double> s(rank == 0 ? n : 0);
  MPI_Gatherv(mine.data(), counts[rank], MPI_DOUBLE, s.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  if (rank != 0) return 0.0;
  for (int width = 1; width < size; width *= 2) {
    for (int c = 0; c < size; c += 2 * width) {
      const int mid = c + width < size ? c + width : size;
      const int end = c + 2 * width < size ? c + 2 * width : size;
      std::inplace_merge(s.begin() + displs[c], s.begin() + (mid < size ? displs[mid] : n),
                         s.begin() + (end < size ? displs[end] : n));
    }
  }
  double best = s[1] - s[0];
  for (size_t i = 2; i < n; ++i) best = std::min(best, s[i] - s[i - 1]);
  return best;
}
