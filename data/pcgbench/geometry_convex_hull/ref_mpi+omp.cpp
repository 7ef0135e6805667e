  // Andrew's monotone chain: sort by (x, y), build the lower and upper chains; the corners come out
  // counter-clockwise (points on an edge are dropped).
  auto monotone_chain = [](std::vector<Point> p) {
    std::sort(p.begin(), p.end(), [](const Point &a, const Point &b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
    if (p.size() < 3) return p;
    auto cross = [](const Point &o, const Point &a, const Point &b) {
      return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
    };
    std::vector<Point> h(2 * p.size());
    size_t k = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
      h[k++] = p[i];
    }
    for (size_t i = p.size() - 1, lower = k + 1; i-- > 0;) {
      while (k >= lower && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
      h[k++] = p[i];
    }
    h.resize(k - 1);
    return h;
  };
  // Each rank builds the hull of its block; rank 0 gathers the corners and builds the final hull.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = points.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  // Within the rank, threads build the hulls of sub-blocks; the rank's hull is the hull of their corners.
  const int chunks = omp_get_max_threads();
  std::vector<std::vector<Point>> parts(chunks);
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c)
    parts[c] = monotone_chain(std::vector<Point>(points.begin() + begin + (end - begin) * c / chunks,
                                                 points.begin() + begin + (end - begin) * (c + 1) / chunks));
  std::vector<Point> ours;
  for (const auto &part : parts) ours.insert(ours.end(), part.begin(), part.end());
  const std::vector<Point> local = monotone_chain(ours);
  const int mine = static_cast<int>(2 * local.size());  // two doubles per point
  std::vector<int> counts(size), displs(size);
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  if (rank == 0)
    for (int r = 0; r < size; ++r) {
      displs[r] = total;
      total += counts[r];
    }
  std::vector<Point> candidates(rank == 0 ? total / 2 : 0);
  MPI_Gatherv(local.data(), mine, MPI_DOUBLE, candidates.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  if (rank == 0) hull = monotone_chain(candidates);
}
