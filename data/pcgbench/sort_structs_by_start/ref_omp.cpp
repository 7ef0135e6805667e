  // Sort one chunk per thread, then merge neighbouring runs pairwise, in parallel, until one run is left.
  const auto less = [](const Result& a, const Result& b) { return a.startTime < b.startTime; };
  const size_t n = results.size();
  const int chunks = omp_get_max_threads();
  std::vector<size_t> bound(chunks + 1);
  for (int c = 0; c <= chunks; ++c) bound[c] = n * c / chunks;
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c) std::sort(results.begin() + bound[c], results.begin() + bound[c + 1], less);
  for (int width = 1; width < chunks; width *= 2) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < chunks; c += 2 * width) {
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(results.begin() + bound[c], results.begin() + bound[mid], results.begin() + bound[end], less);
    }
  }
}
