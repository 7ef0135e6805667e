  // Each thread scans its block in place, then takes the minimum with the minima of the blocks before it.
  const size_t n = x.size();
  std::vector<float> block_min(omp_get_max_threads(), std::numeric_limits<float>::infinity());
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const size_t begin = n * t / nt, end = n * (t + 1) / nt;
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
}
