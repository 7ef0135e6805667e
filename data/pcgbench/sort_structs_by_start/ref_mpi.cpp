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
  std::sort(results.begin() + bound[rank], results.begin() + bound[rank + 1], less);
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_BYTE, results.data(), counts.data(), displs.data(), MPI_BYTE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(results.data() + bound[rank], counts[rank], MPI_BYTE, nullptr, nullptr, nullptr, MPI_BYTE, 0,
                MPI_COMM_WORLD);
  if (rank != 0) return;
  for (int width = 1; width < size; width *= 2) {
    for (int c = 0; c < size; c += 2 * width) {
      const int mid = c + width < size ? c + width : size;
      const int end = c + 2 * width < size ? c + 2 * width : size;
      std::inplace_merge(results.begin() + bound[c], results.begin() + bound[mid], results.begin() + bound[end], less);
    }
  }
}
