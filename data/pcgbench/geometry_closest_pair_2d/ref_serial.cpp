  // Sort by x, then compare each point with the following ones while their x gap is below the best distance.
  std::vector<Point> s(points);
  std::sort(s.begin(), s.end(), [](const Point &a, const Point &b) { return a.x < b.x; });
  const size_t n = s.size();
  double best = std::numeric_limits<double>::infinity();  // squared
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      const double dx = s[j].x - s[i].x;
      if (dx * dx >= best) break;
      const double dy = s[j].y - s[i].y;
      best = std::min(best, dx * dx + dy * dy);
    }
  return std::sqrt(best);
}
