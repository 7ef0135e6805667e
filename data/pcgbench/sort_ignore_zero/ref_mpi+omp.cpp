  // Each rank collects the non-zero values of its block and sorts them with its threads (chunks, then
  // pairwise merges); rank 0 gathers the sorted runs, merges them pairwise and writes the result back over
  // the non-zero positions.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  const size_t lo = n * rank / size, hi = n * (rank + 1) / size;
  std::vector<int> mine;
  mine.reserve(hi - lo);
  for (size_t i = lo; i < hi; ++i)
    if (x[i] != 0) mine.push_back(x[i]);
  const size_t len = mine.size();
  const int chunks = omp_get_max_threads();
  std::vector<size_t> sub(chunks + 1);
  for (int c = 0; c <= chunks; ++c) sub[c] = len * c / chunks;
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c) std::sort(mine.begin() + sub[c], mine.begin() + sub[c + 1]);
  for (int width = 1; width < chunks; width *= 2) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < chunks; c += 2 * width) {
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(mine.begin() + sub[c], mine.begin() + sub[mid], mine.begin() + sub[end]);
    }
  }
  int count = static_cast<int>(len);
  std::vector<int> counts(size), displs(size + 1, 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) displs[r + 1] = displs[r] + counts[r];
  std::vector<int> vals(rank == 0 ? displs[size] : 0);
  MPI_Gatherv(mine.data(), count, MPI_INT, vals.data(), counts.data(), displs.data(), MPI_INT, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  for (int width = 1; width < size; width *= 2) {
    #pragma omp parallel for schedule(dynamic, 1)
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
