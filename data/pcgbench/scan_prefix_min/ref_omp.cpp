  // Reduce-then-scan: each thread finds the minimum of its block first (reads only), then scans the block in
  // place starting from the minimum of the blocks before it (one read-write pass).
  const size_t n = x.size();
  std::vector<float> block_min(omp_get_max_threads(), std::numeric_limits<float>::infinity());
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const size_t begin = n * t / nt, end = n * (t + 1) / nt;
    float low = std::numeric_limits<float>::infinity();
    for (size_t i = begin; i < end; ++i) low = x[i] < low ? x[i] : low;
    block_min[t] = low;
    #pragma omp barrier
    float running = std::numeric_limits<float>::infinity();
    for (int j = 0; j < t; ++j) running = block_min[j] < running ? block_min[j] : running;
    for (size_t i = begin; i < end; ++i) {
      running = x[i] < running ? x[i] : running;
      x[i] = running;
    }
  }
}
