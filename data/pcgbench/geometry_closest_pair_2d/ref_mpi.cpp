  // Every rank sorts its copy by x; the ranks split the scan (cyclically, a block of 1024 start points at a
  // time) and rank 0 takes the minimum.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<Point> s(points);
  std::sort(s.begin(), s.end(), [](const Point &a, const Point &b) { return a.x < b.x; });
  const size_t n = s.size();
  double best = std::numeric_limits<double>::infinity(), limit = best;  // squared
  for (size_t i = 1; i < n; ++i) {
    const double dx = s[i].x - s[i - 1].x, dy = s[i].y - s[i - 1].y;
    limit = std::min(limit, dx * dx + dy * dy);
  }
  for (size_t block = rank; block * 1024 < n; block += size)
    for (size_t i = block * 1024; i < std::min(n, block * 1024 + 1024); ++i)
        for (size_t j = i + 1; j < n; ++j) {
          const double dx = s[j].x - s[i].x;
          if (dx * dx >= std::min(best, limit)) break;
          const double dy = s[j].y - s[i].y;
          best = std::min(best, dx * dx + dy * dy);
        }
  best = std::min(best, limit);
  double global = 0.0;
  MPI_Reduce(&best, &global, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  return std::sqrt(global);
}
