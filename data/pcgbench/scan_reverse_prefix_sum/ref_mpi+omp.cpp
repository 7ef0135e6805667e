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
  std::vector<int> block_total(omp_get_max_threads(), 0);
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const size_t len = rend - rbegin;
    const size_t begin = rbegin + len * t / nt, end = rbegin + len * (t + 1) / nt;
    int running = 0;
    for (size_t i = end; i-- > begin;) {
      running += x[i];
      output[i] = running;
    }
    block_total[t] = running;
    #pragma omp barrier
    int offset = 0;
    for (int j = t + 1; j < nt; ++j) offset += block_total[j];
    for (size_t i = begin; i < end; ++i) output[i] += offset;
  }
  int mine = 0;
  for (int v : block_total) mine += v;
  std::vector<int> totals(size);
  MPI_Allgather(&mine, 1, MPI_INT, totals.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int offset = 0;
  for (int r = rank + 1; r < size; ++r) offset += totals[r];
  #pragma omp parallel for
  for (size_t i = rbegin; i < rend; ++i) output[i] += offset;
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_INT, output.data(), counts.data(), displs.data(), MPI_INT, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(output.data() + rbegin, counts[rank], MPI_INT, nullptr, nullptr, nullptr, MPI_INT, 0,
                MPI_COMM_WORLD);
}
