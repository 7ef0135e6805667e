  // Each rank sorts its block; rank 0 gathers the sorted blocks (as bytes) and merges them pairwise.
  const auto less = [](const Result& a, const Result& b) { return a.startTime < b.startTime; };
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = results.size();
  std::vector<size_t> bound(size + 1);
  for (int r = 0; r <= size; ++r) bound[r] = n * r / size;
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = static_cast<int>((bound[r + 1] - bound[r]) * sizeof(Result));
    displs[r] = static_cast<int>(bound[r] * sizeof(Result));
  }
  // Within the rank: threads sort sub-blocks, then merge them.
  const size_t lo = bound[rank], len = bound[rank + 1] - bound[rank];
  const int chunks = omp_get_max_threads();
  std::vector<size_t> sub(chunks + 1);
  for (int c = 0; c <= chunks; ++c) sub[c] = lo + len * c / chunks;
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c) std::sort(results.begin() + sub[c], results.begin() + sub[c + 1], less);
  for (int width = 1; width < chunks; width *= 2) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < chunks; c += 2 * width) {
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(results.begin() + sub[c], results.begin() + sub[mid], results.begin() + sub[end], less);
    }
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_BYTE, results.data(), counts.data(), displs.data(), MPI_BYTE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(results.data() + bound[rank], counts[rank], MPI_BYTE, nullptr, nullptr, nullptr, MPI_BYTE, 0,
                MPI_COMM_WORLD);
  if (rank != 0) return;
  for (int width = 1; width < size; width *= 2) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < size; c += 2 * width) {
      const int mid = c + width < size ? c + width : size;
      const int end = c + 2 * width < size ? c + 2 * width : size;
      std::inplace_merge(results.begin() + bound[c], results.begin() + bound[mid], results.begin() + bound[end], less);
    }
  }
}
