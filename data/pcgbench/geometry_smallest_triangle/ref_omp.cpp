  const size_t n = points.size();
  double best = 1e300;
  // Early i have far more (j, k) pairs than late ones: dynamic scheduling balances the triangle.
  #pragma omp parallel for schedule(dynamic, 1) reduction(min : best)
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      const double bx = points[j].x - points[i].x, by = points[j].y - points[i].y;
      for (size_t k = j + 1; k < n; ++k) {
        const double cross = bx * (points[k].y - points[i].y) - (points[k].x - points[i].x) * by;
        const double twice = cross < 0 ? -cross : cross;
        if (twice < best) best = twice;
      }
    }
  return best / 2.0;
}
