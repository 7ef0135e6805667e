  // Each rank sorts the (value, index) pairs of its block; rank 0 gathers the sorted blocks (as bytes), merges
  // them pairwise and scatters the ranks.
  using Pair = std::pair<float, size_t>;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  std::vector<size_t> bound(size + 1);
  for (int r = 0; r <= size; ++r) bound[r] = n * r / size;
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = static_cast<int>((bound[r + 1] - bound[r]) * sizeof(Pair));
    displs[r] = static_cast<int>(bound[r] * sizeof(Pair));
  }
  std::vector<Pair> order(rank == 0 ? n : bound[rank + 1] - bound[rank]);
  Pair *mine = order.data() + (rank == 0 ? bound[0] : 0);
  for (size_t i = bound[rank]; i < bound[rank + 1]; ++i) mine[i - bound[rank]] = {x[i], i};
  std::sort(mine, mine + (bound[rank + 1] - bound[rank]));
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_BYTE, order.data(), counts.data(), displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  else
    MPI_Gatherv(order.data(), counts[rank], MPI_BYTE, nullptr, nullptr, nullptr, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  for (int width = 1; width < size; width *= 2) {
    for (int c = 0; c < size; c += 2 * width) {
      const int mid = c + width < size ? c + width : size;
      const int end = c + 2 * width < size ? c + 2 * width : size;
      std::inplace_merge(order.begin() + bound[c], order.begin() + bound[mid], order.begin() + bound[end]);
    }
  }
  for (size_t i = 0; i < n; ++i) ranks[order[i].second] = i;
}
