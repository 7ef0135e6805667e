  // Private counts per thread, merged once: no atomics in the loop.
  #pragma omp parallel
  {
    size_t local[4] = {};
    #pragma omp for nowait
    for (size_t i = 0; i < x.size(); ++i) ++local[(size_t)((x[i] - std::floor(x[i])) * 4.0)];
    #pragma omp critical
    for (int k = 0; k < 4; ++k) bins[k] += local[k];
  }
}
