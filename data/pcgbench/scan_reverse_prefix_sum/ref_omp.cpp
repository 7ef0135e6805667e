  // A forward scan of x read backwards, reduce-then-scan: each thread sums its block of x first (reads only),
  // then scans the block starting from the total of the blocks before it (one pass writing output).
  const size_t n = x.size();
  std::vector<int> block_total(omp_get_max_threads() + 1, 0);
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const size_t begin = n * t / nt, end = n * (t + 1) / nt;
    int total = 0;
    for (size_t k = begin; k < end; ++k) total += x[n - 1 - k];
    block_total[t + 1] = total;
    #pragma omp barrier
    int running = 0;
    for (int j = 1; j <= t; ++j) running += block_total[j];
    for (size_t k = begin; k < end; ++k) {
      running += x[n - 1 - k];
      output[k] = running;
    }
  }
}
