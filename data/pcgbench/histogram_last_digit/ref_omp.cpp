  // Private counts per thread, merged once: no atomics in the loop.
  #pragma omp parallel
  {
    size_t local[10] = {};
    #pragma omp for nowait
    for (size_t i = 0; i < x.size(); ++i) ++local[x[i] % 10];
    #pragma omp critical
    for (int k = 0; k < 10; ++k) bins[k] += local[k];
  }
}
