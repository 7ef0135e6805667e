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
  std::vector<double> block_min(omp_get_max_threads(), std::numeric_limits<double>::infinity());
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const size_t len = rend - rbegin;
    const size_t begin = rbegin + len * t / nt, end = rbegin + len * (t + 1) / nt;
    double low = std::numeric_limits<double>::infinity();
    for (size_t i = begin; i < end; ++i) {
      low = x[i] < low ? x[i] : low;
      output[i] = low;
    }
    block_min[t] = low;
    #pragma omp barrier
    double before = std::numeric_limits<double>::infinity();
    for (int j = 0; j < t; ++j) before = block_min[j] < before ? block_min[j] : before;
    for (size_t i = begin; i < end; ++i) output[i] = output[i] < before ? output[i] : before;
  }
  double mine = std::numeric_limits<double>::infinity();
  for (double v : block_min) mine = v < mine ? v : mine;
  double before = std::numeric_limits<double>::infinity();
  MPI_Exscan(&mine, &before, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) before = std::numeric_limits<double>::infinity();
  #pragma omp parallel for
  for (size_t i = rbegin; i < rend; ++i) output[i] = output[i] < before ? output[i] : before;
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, output.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(output.data() + rbegin, counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
