  // Reduce-then-scan: each thread finds the minimum of its block first (reads only; four independent running
  // minima hide the latency of the comparisons), then scans the block in place starting from the minimum of
  // the blocks before it (one read-write pass).
  const size_t n = x.size();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> block_min(omp_get_max_threads(), inf);
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const size_t begin = n * t / nt, end = n * (t + 1) / nt;
    float m0 = inf, m1 = inf, m2 = inf, m3 = inf;
    size_t i = begin;
    for (; i + 4 <= end; i += 4) {
      m0 = x[i] < m0 ? x[i] : m0;
      m1 = x[i + 1] < m1 ? x[i + 1] : m1;
      m2 = x[i + 2] < m2 ? x[i + 2] : m2;
      m3 = x[i + 3] < m3 ? x[i + 3] : m3;
    }
    for (; i < end; ++i) m0 = x[i] < m0 ? x[i] : m0;
    m0 = m1 < m0 ? m1 : m0;
    m2 = m3 < m2 ? m3 : m2;
    block_min[t] = m2 < m0 ? m2 : m0;
    #pragma omp barrier
    float running = inf;
    for (int j = 0; j < t; ++j) running = block_min[j] < running ? block_min[j] : running;
    for (size_t k = begin; k < end; ++k) {
      running = x[k] < running ? x[k] : running;
      x[k] = running;
    }
  }
}
