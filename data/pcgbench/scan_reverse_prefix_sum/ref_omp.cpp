  // Each thread sums its block from the right; then adds the totals of the blocks to its right.
  const size_t n = x.size();
  std::vector<int> block_total(omp_get_max_threads(), 0);
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const size_t begin = n * t / nt, end = n * (t + 1) / nt;
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
}
