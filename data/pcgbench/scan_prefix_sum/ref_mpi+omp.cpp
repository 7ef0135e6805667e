  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::size_t n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(n * r / size);
    counts[r] = static_cast<int>(n * (r + 1) / size) - displs[r];
  }
  const std::size_t rbegin = displs[rank], rend = rbegin + counts[rank];
  // Threads scan sub-blocks of this rank's block, then fix up with the preceding sub-block totals.
  std::vector<double> block_total(omp_get_max_threads() + 1, 0.0);
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::size_t len = rend - rbegin;
    const std::size_t begin = rbegin + len * t / nt, end = rbegin + len * (t + 1) / nt;
    double running = 0.0;
    for (std::size_t i = begin; i < end; ++i) {
      running += x[i];
      output[i] = running;
    }
    block_total[t + 1] = running;
    #pragma omp barrier
    double offset = 0.0;
    for (int j = 1; j <= t; ++j) offset += block_total[j];
    for (std::size_t i = begin; i < end; ++i) output[i] += offset;
  }
  double local_total = 0.0;
  for (double v : block_total) local_total += v;
  double offset = 0.0;
  MPI_Exscan(&local_total, &offset, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) offset = 0.0;
  #pragma omp parallel for
  for (std::size_t i = rbegin; i < rend; ++i) output[i] += offset;
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, output.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(output.data() + rbegin, counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
