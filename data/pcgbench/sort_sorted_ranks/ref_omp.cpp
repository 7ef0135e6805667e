  // Sort (value, index) pairs: one chunk per thread, then pairwise parallel merges; then scatter the ranks.
  const size_t n = x.size();
  std::vector<std::pair<float, size_t>> order(n);
  #pragma omp parallel for
  for (size_t i = 0; i < n; ++i) order[i] = {x[i], i};
  const int chunks = omp_get_max_threads();
  std::vector<size_t> bound(chunks + 1);
  for (int c = 0; c <= chunks; ++c) bound[c] = n * c / chunks;
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c) std::sort(order.begin() + bound[c], order.begin() + bound[c + 1]);
  for (int width = 1; width < chunks; width *= 2) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < chunks; c += 2 * width) {
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(order.begin() + bound[c], order.begin() + bound[mid], order.begin() + bound[end]);
    }
  }
  #pragma omp parallel for
  for (size_t i = 0; i < n; ++i) ranks[order[i].second] = i;
}
