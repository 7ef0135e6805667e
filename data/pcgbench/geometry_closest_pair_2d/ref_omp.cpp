  const size_t n = points.size();
  std::vector<Point> s(points);
  // Parallel sort by x (chunks sorted by threads, then merged pairwise).
  auto by_x = [](const Point &a, const Point &b) { return a.x < b.x; };
  const int chunks = omp_get_max_threads();
  std::vector<size_t> bound(chunks + 1);
  for (int c = 0; c <= chunks; ++c) bound[c] = n * c / chunks;
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c) std::sort(s.begin() + bound[c], s.begin() + bound[c + 1], by_x);
  for (int width = 1; width < chunks; width *= 2) {
    #pragma omp parallel for schedule(dynamic, 1)
    for (int c = 0; c < chunks; c += 2 * width) {
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(s.begin() + bound[c], s.begin() + bound[mid], s.begin() + bound[end], by_x);
    }
  }
  // An upper bound (squared) from neighbours in x order prunes every thread's scan from the start.
  double limit = std::numeric_limits<double>::infinity();
  #pragma omp parallel for reduction(min : limit)
  for (long i = 1; i < (long)n; ++i) {
    const double dx = s[i].x - s[i - 1].x, dy = s[i].y - s[i - 1].y;
    limit = std::min(limit, dx * dx + dy * dy);
  }
  double best = limit;
  #pragma omp parallel for schedule(dynamic, 4096) reduction(min : best)
  for (long ii = 0; ii < (long)n; ++ii) {
    const size_t i = ii;
    for (size_t j = i + 1; j < n; ++j) {
      const double dx = s[j].x - s[i].x;
      if (dx * dx >= std::min(best, limit)) break;
      const double dy = s[j].y - s[i].y;
      best = std::min(best, dx * dx + dy * dy);
    }
  }
  return std::sqrt(best);
}
