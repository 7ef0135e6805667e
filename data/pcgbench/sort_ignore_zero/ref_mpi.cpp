  // Each rank sorts the non-zero values of its block; rank 0 gathers the sorted runs, merges them pairwise and
  // writes the result back over the non-zero positions.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  const size_t lo = n * rank / size, hi = n * (rank + 1) / size;
  std::vector<int> mine;
  for (size_t i = lo; i < hi; ++i)
    if (x[i] != 0) mine.push_back(x[i]);
  std::sort(mine.begin(), mine.end());
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size + 1, 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) displs[r + 1] = displs[r] + counts[r];
  std::vector<int> vals(rank == 0 ? displs[size] : 0);
  MPI_Gatherv(mine.data(), count, MPI_INT, vals.data(), counts.data(), displs.data(), MPI_INT, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  for (int width = 1; width < size; width *= 2) {
    for (int c = 0; c < size; c += 2 * width) {
      const int mid = c + width < size ? c + width : size;
      const int end = c + 2 * width < size ? c + 2 * width : size;
      std::inplace_merge(vals.begin() + displs[c], vals.begin() + displs[mid], vals.begin() + displs[end]);
    }
  }
  size_t k = 0;
  for (int& v : x)
    if (v != 0) v = vals[k++];
}
