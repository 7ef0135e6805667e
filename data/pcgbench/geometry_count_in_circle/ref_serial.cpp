  long long acc = 0;
  const size_t n = points.size();
  for (size_t i = 0; i < n; ++i) acc = acc + ((points[i].x - cx) * (points[i].x - cx) + (points[i].y - cy) * (points[i].y - cy) <= r * r ? 1LL : 0LL);
  return acc;
}
