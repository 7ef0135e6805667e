  // A forward scan of x read backwards: ranks split output into blocks, threads split a rank's block.
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
  std::vector<int> block_total(omp_get_max_threads() + 1, 0);
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const size_t len = rend - rbegin;
    const size_t begin = rbegin + len * t / nt, end = rbegin + len * (t + 1) / nt;
    int running = 0;
    for (size_t k = begin; k < end; ++k) {
      running += x[n - 1 - k];
      output[k] = running;
    }
    block_total[t + 1] = running;
    #pragma omp barrier
    int offset = 0;
    for (int j = 1; j <= t; ++j) offset += block_total[j];
    for (size_t k = begin; k < end; ++k) output[k] += offset;
  }
  int mine = 0;
  for (int v : block_total) mine += v;
  int offset = 0;
  MPI_Exscan(&mine, &offset, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) offset = 0;
  #pragma omp parallel for
  for (size_t k = rbegin; k < rend; ++k) output[k] += offset;
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_INT, output.data(), counts.data(), displs.data(), MPI_INT, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(output.data() + rbegin, counts[rank], MPI_INT, nullptr, nullptr, nullptr, MPI_INT, 0,
                MPI_COMM_WORLD);
}
