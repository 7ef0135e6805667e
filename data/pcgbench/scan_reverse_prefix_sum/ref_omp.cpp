  // A forward scan of x read backwards. Two passes: each thread scans its block of output, then adds the total
  // of the blocks before it.
  const size_t n = x.size();
  std::vector<int> block_total(omp_get_max_threads() + 1, 0);
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const size_t begin = n * t / nt, end = n * (t + 1) / nt;
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
}
