  const size_t n = points.size();
  for (size_t i = 0; i < n; ++i) ++bins[(points[i].x >= 0 ? (points[i].y >= 0 ? 0 : 3) : (points[i].y >= 0 ? 1 : 2))];
}
