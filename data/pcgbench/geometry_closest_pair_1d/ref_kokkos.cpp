  // Host execution space: sort chunks of a copy in parallel, merge pairwise in parallel, then a parallel
  // minimum over neighbouring positions.
  const size_t n = x.extent(0);
  Kokkos::View<double*> s("sorted", n);
  Kokkos::deep_copy(s, x);
  double *data = s.data();
  const int chunks = Kokkos::DefaultExecutionSpace::concurrency();
  std::vector<size_t> bound(chunks + 1);
  for (int c = 0; c <= chunks; ++c) bound[c] = n * c / chunks;
  const size_t *b = bound.data();
  Kokkos::parallel_for("sort_chunks", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, chunks),
                       [=](const int c) { std::sort(data + b[c], data + b[c + 1]); });
  for (int width = 1; width < chunks; width *= 2) {
    const int pairs = (chunks + 2 * width - 1) / (2 * width);
    Kokkos::parallel_for("merge", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, pairs), [=](const int p) {
      const int c = p * 2 * width;
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(data + b[c], data + b[mid], data + b[end]);
    });
  }
  double best = 0.0;
  Kokkos::parallel_reduce("gaps", Kokkos::RangePolicy<>(1, n), KOKKOS_LAMBDA(const size_t i, double& m) {
    const double gap = s(i) - s(i - 1);
    m = gap < m ? gap : m;
  }, Kokkos::Min<double>(best));
  return best;
}
