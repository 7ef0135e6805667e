  // Host execution space: build (value, index) pairs, sort chunks in parallel, merge neighbouring runs
  // pairwise in parallel, then scatter the ranks.
  using Pair = std::pair<float, size_t>;
  const size_t n = x.extent(0);
  std::vector<Pair> order(n);
  Pair *data = order.data();
  using Host = Kokkos::DefaultHostExecutionSpace;
  Kokkos::parallel_for("pairs", Kokkos::RangePolicy<Host>(0, n), [=](const size_t i) { data[i] = {x(i), i}; });
  const int chunks = 2 * Kokkos::DefaultExecutionSpace::concurrency();
  std::vector<size_t> bound(chunks + 1);
  for (int c = 0; c <= chunks; ++c) bound[c] = n * c / chunks;
  const size_t *b = bound.data();
  Kokkos::parallel_for("sort_chunks", Kokkos::RangePolicy<Host>(0, chunks),
                       [=](const int c) { std::sort(data + b[c], data + b[c + 1]); });
  for (int width = 1; width < chunks; width *= 2) {
    const int pairs = (chunks + 2 * width - 1) / (2 * width);
    Kokkos::parallel_for("merge", Kokkos::RangePolicy<Host>(0, pairs), [=](const int p) {
      const int c = p * 2 * width;
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(data + b[c], data + b[mid], data + b[end]);
    });
  }
  Kokkos::View<size_t*> out = ranks;
  Kokkos::parallel_for("ranks", Kokkos::RangePolicy<Host>(0, n), [=](const size_t i) { out(data[i].second) = i; });
  Kokkos::fence();
}
