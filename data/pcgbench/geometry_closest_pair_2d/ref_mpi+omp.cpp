  // Every rank sorts its copy by x with its threads; the ranks split the scan (cyclically, a block of 1024
  // start points at a time, threads sharing the rank's blocks) and rank 0 takes the minimum.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
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
  const long blocks = (long)((n + 1023) / 1024);
  #pragma omp parallel for schedule(dynamic, 4) reduction(min : best)
  for (long block = rank; block < blocks; block += size)
    for (size_t i = block * 1024; i < std::min(n, (size_t)block * 1024 + 1024); ++i)
        for (size_t j = i + 1; j < n; ++j) {
          const double dx = s[j].x - s[i].x;
          if (dx * dx >= std::min(best, limit)) break;
          const double dy = s[j].y - s[i].y;
          best = std::min(best, dx * dx + dy * dy);
        }
  double global = 0.0;
  MPI_Reduce(&best, &global, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  return std::sqrt(global);
}
