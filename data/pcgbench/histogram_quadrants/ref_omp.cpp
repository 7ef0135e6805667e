  // Private counts per thread, merged once: no atomics in the loop.
  #pragma omp parallel
  {
    size_t local[4] = {};
    #pragma omp for nowait
    for (size_t i = 0; i < points.size(); ++i) ++local[(points[i].x >= 0 ? (points[i].y >= 0 ? 0 : 3) : (points[i].y >= 0 ? 1 : 2))];
    #pragma omp critical
    for (int k = 0; k < 4; ++k) bins[k] += local[k];
  }
}
