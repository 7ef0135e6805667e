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
  // The hull of the union of the chunks' hulls is the hull of all points: threads build chunk hulls, one
  // thread the final hull of their (few) corners.
  const size_t n = points.size();
  const int chunks = omp_get_max_threads();
  std::vector<std::vector<Point>> parts(chunks);
  #pragma omp parallel for schedule(static, 1)
  for (int c = 0; c < chunks; ++c)
    parts[c] = monotone_chain(std::vector<Point>(points.begin() + n * c / chunks, points.begin() + n * (c + 1) / chunks));
  std::vector<Point> candidates;
  for (const auto &part : parts) candidates.insert(candidates.end(), part.begin(), part.end());
  hull = monotone_chain(candidates);
}
