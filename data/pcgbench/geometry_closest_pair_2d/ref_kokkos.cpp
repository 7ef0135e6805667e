  // Host execution space: sort chunks of a copy by x in parallel, merge pairwise in parallel, then a parallel
  // minimum over each point's following points while their x gap is below the best distance (squared).
  const size_t n = points.extent(0);
  Kokkos::View<Point*> s("sorted", n);
  Kokkos::deep_copy(s, points);
  Point *data = s.data();
  auto by_x = [](const Point &a, const Point &b) { return a.x < b.x; };
  const int chunks = Kokkos::DefaultExecutionSpace::concurrency();
  std::vector<size_t> bound(chunks + 1);
  for (int c = 0; c <= chunks; ++c) bound[c] = n * c / chunks;
  const size_t *b = bound.data();
  Kokkos::parallel_for("sort_chunks", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, chunks),
                       [=](const int c) { std::sort(data + b[c], data + b[c + 1], by_x); });
  for (int width = 1; width < chunks; width *= 2) {
    const int pairs = (chunks + 2 * width - 1) / (2 * width);
    Kokkos::parallel_for("merge", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, pairs), [=](const int p) {
      const int c = p * 2 * width;
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(data + b[c], data + b[mid], data + b[end], by_x);
    });
  }
  double limit = 0.0;
  Kokkos::parallel_reduce("neighbours", Kokkos::RangePolicy<>(1, n), KOKKOS_LAMBDA(const size_t i, double &m) {
    const double dx = s(i).x - s(i - 1).x, dy = s(i).y - s(i - 1).y;
    m = dx * dx + dy * dy < m ? dx * dx + dy * dy : m;
  }, Kokkos::Min<double>(limit));
  double best = 0.0;
  Kokkos::parallel_reduce("scan", Kokkos::RangePolicy<Kokkos::Schedule<Kokkos::Dynamic>>(0, n),
    KOKKOS_LAMBDA(const size_t i, double &m) {
      for (size_t j = i + 1; j < n; ++j) {
        const double dx = s(j).x - s(i).x;
        const double cap = m < limit ? m : limit;
        if (dx * dx >= cap) break;
        const double dy = s(j).y - s(i).y;
        m = dx * dx + dy * dy < m ? dx * dx + dy * dy : m;
      }
    }, Kokkos::Min<double>(best));
  return std::sqrt(best < limit ? best : limit);
}
