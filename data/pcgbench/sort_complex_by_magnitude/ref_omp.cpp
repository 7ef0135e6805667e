  // Sort one chunk per thread, then merge neighbouring runs pairwise, in parallel, until one run is left.
  const auto less = [](const std::complex<double>& a, const std::complex<double>& b) { return std::norm(a) < std::norm(b); };
  const size_t n = x.size();
  const int chunks = omp_get_max_threads();
  std::vector<size_t> bound(chunks + 1);
  for (int c = 0; c <= chunks; ++c) bound[c] = n * c / chunks;
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c) std::sort(x.begin() + bound[c], x.begin() + bound[c + 1], less);
  for (int width = 1; width < chunks; width *= 2) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < chunks; c += 2 * width) {
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(x.begin() + bound[c], x.begin() + bound[mid], x.begin() + bound[end], less);
    }
  }
}
