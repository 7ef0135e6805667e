  #pragma omp parallel
  {
    size_t local[256] = {};
    #pragma omp for nowait
    for (size_t i = 0; i < image.size(); ++i) ++local[image[i]];
    #pragma omp critical
    for (int v = 0; v < 256; ++v) bins[v] += local[v];
  }
}
