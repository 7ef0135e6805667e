  // Ranks split x into blocks, threads split a rank's block; each scans in place, then folds in the minimum of
  // everything before it (other threads' blocks, then lower ranks' via MPI_Exscan); rank 0 gathers.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(n * r / size);
    counts[r] = static_cast<int>(n * (r + 1) / size) - displs[r];
  }
  const size_t rbegin = displs[rank], rend = rbegin + counts[rank];
  std::vector<float> block_min(omp_get_max_threads(), std::numeric_limits<float>::infinity());
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const size_t len = rend - rbegin;
    const size_t begin = rbegin + len * t / nt, end = rbegin + len * (t + 1) / nt;
    float low = std::numeric_limits<float>::infinity();
    for (size_t i = begin; i < end; ++i) {
      low = x[i] < low ? x[i] : low;
      x[i] = low;
    }
    block_min[t] = low;
    #pragma omp barrier
    float before = std::numeric_limits<float>::infinity();
    for (int j = 0; j < t; ++j) before = block_min[j] < before ? block_min[j] : before;
    for (size_t i = begin; i < end; ++i) x[i] = x[i] < before ? x[i] : before;
  }
  float mine = std::numeric_limits<float>::infinity();
  for (float v : block_min) mine = v < mine ? v : mine;
  float before = std::numeric_limits<float>::infinity();
  MPI_Exscan(&mine, &before, 1, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) before = std::numeric_limits<float>::infinity();
  #pragma omp parallel for
  for (size_t i = rbegin; i < rend; ++i) x[i] = x[i] < before ? x[i] : before;
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_FLOAT, x.data(), counts.data(), displs.data(), MPI_FLOAT, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(x.data() + rbegin, counts[rank], MPI_FLOAT, nullptr, nullptr, nullptr, MPI_FLOAT, 0,
                MPI_COMM_WORLD);
}
