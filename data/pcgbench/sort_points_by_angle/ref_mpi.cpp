  // Each rank sorts its block; rank 0 gathers the sorted blocks (as bytes) and merges them pairwise.
  const auto less = [](const Point& a, const Point& b) { return atan2(a.y, a.x) < atan2(b.y, b.x); };
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = points.size();
  std::vector<size_t> bound(size + 1);
  for (int r = 0; r <= size; ++r) bound[r] = n * r / size;
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = static_cast<int>((bound[r + 1] - bound[r]) * sizeof(Point));
    displs[r] = static_cast<int>(bound[r] * sizeof(Point));
  }
  std::sort(points.begin() + bound[rank], points.begin() + bound[rank + 1], less);
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_BYTE, points.data(), counts.data(), displs.data(), MPI_BYTE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(points.data() + bound[rank], counts[rank], MPI_BYTE, nullptr, nullptr, nullptr, MPI_BYTE, 0,
                MPI_COMM_WORLD);
  if (rank != 0) return;
  for (int width = 1; width < size; width *= 2) {
    for (int c = 0; c < size; c += 2 * width) {
      const int mid = c + width < size ? c + width : size;
      const int end = c + 2 * width < size ? c + 2 * width : size;
      std::inplace_merge(points.begin() + bound[c], points.begin() + bound[mid], points.begin() + bound[end], less);
    }
  }
}
