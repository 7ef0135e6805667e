  // Private counts per thread, merged once: no atomics in the loop.
  const size_t n = s.size();
  #pragma omp parallel
  {
    size_t local[26] = {};
    #pragma omp for nowait
    for (size_t i = 0; i < n; ++i) ++local[s[i][0] - 'a'];
    #pragma omp critical
    for (int k = 0; k < 26; ++k) bins[k] += local[k];
  }
}
