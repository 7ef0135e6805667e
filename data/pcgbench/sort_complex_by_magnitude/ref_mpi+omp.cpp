  // Each rank sorts its block; rank 0 gathers the sorted blocks (as bytes) and merges them pairwise.
  const auto less = [](const std::complex<double>& a, const std::complex<double>& b) { return std::norm(a) < std::norm(b); };
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  std::vector<size_t> bound(size + 1);
  for (int r = 0; r <= size; ++r) bound[r] = n * r / size;
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = static_cast<int>((bound[r + 1] - bound[r]) * sizeof(std::complex<double>));
    displs[r] = static_cast<int>(bound[r] * sizeof(std::complex<double>));
  }
  // Within the rank: threads sort sub-blocks, then merge them.
  const size_t lo = bound[rank], len = bound[rank + 1] - bound[rank];
  const int chunks = omp_get_max_threads();
  std::vector<size_t> sub(chunks + 1);
  for (int c = 0; c <= chunks; ++c) sub[c] = lo + len * c / chunks;
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c) std::sort(x.begin() + sub[c], x.begin() + sub[c + 1], less);
  for (int width = 1; width < chunks; width *= 2) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < chunks; c += 2 * width) {
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(x.begin() + sub[c], x.begin() + sub[mid], x.begin() + sub[end], less);
    }
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_BYTE, x.data(), counts.data(), displs.data(), MPI_BYTE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(x.data() + bound[rank], counts[rank], MPI_BYTE, nullptr, nullptr, nullptr, MPI_BYTE, 0,
                MPI_COMM_WORLD);
  if (rank != 0) return;
  for (int width = 1; width < size; width *= 2) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < size; c += 2 * width) {
      const int mid = c + width < size ? c + width : size;
      const int end = c + 2 * width < size ? c + 2 * width : size;
      std::inplace_merge(x.begin() + bound[c], x.begin() + bound[mid], x.begin() + bound[end], less);
    }
  }
}
