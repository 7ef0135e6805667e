  // Two passes: each thread scans its own block, then adds the total of the blocks before it.
  const std::size_t n = x.size();
  std::vector<double> block_total(omp_get_max_threads() + 1, 0.0);
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::size_t begin = n * t / nt, end = n * (t + 1) / nt;
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
}
