  double acc = 0.0;
  const size_t n = points.size();
  #pragma omp parallel for reduction(+ : acc)
  for (size_t i = 0; i < n; ++i) acc = acc + (points[i].x * points[(i + 1) % n].y - points[(i + 1) % n].x * points[i].y);
  return 0.5 * std::fabs(acc);
}
