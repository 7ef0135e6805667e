  // Parallel sort (chunks sorted by threads, then merged pairwise), then a parallel minimum over neighbours.
  const size_t n = x.size();
  std::vector<double> s(x);
  const int chunks = omp_get_max_threads();
  std::vector<size_t> bound(chunks + 1);
  for (int c = 0; c <= chunks; ++c) bound[c] = n * c / chunks;
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c) std::sort(s.begin() + bound[c], s.begin() + bound[c + 1]);
  for (int width = 1; width < chunks; width *= 2) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < chunks; c += 2 * width) {
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(s.begin() + bound[c], s.begin() + bound[mid], s.begin() + bound[end]);
    }
  }
  double best = s[1] - s[0];
  #pragma omp parallel for reduction(min : best)
  for (size_t i = 2; i < n; ++i) best = std::min(best, s[i] - s[i - 1]);
  return best;
}
