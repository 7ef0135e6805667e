  // Host execution space: sort chunks in parallel, then merge neighbouring runs pairwise in parallel.
  const auto less = [](const Result& a, const Result& b) { return a.startTime < b.startTime; };
  const size_t n = results.extent(0);
  Result *data = results.data();
  const int chunks = 2 * Kokkos::DefaultExecutionSpace::concurrency();
  std::vector<size_t> bound(chunks + 1);
  for (int c = 0; c <= chunks; ++c) bound[c] = n * c / chunks;
  const size_t *b = bound.data();
  Kokkos::parallel_for("sort_chunks", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, chunks),
                       [=](const int c) { std::sort(data + b[c], data + b[c + 1], less); });
  for (int width = 1; width < chunks; width *= 2) {
    const int pairs = (chunks + 2 * width - 1) / (2 * width);
    Kokkos::parallel_for("merge", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, pairs), [=](const int p) {
      const int c = p * 2 * width;
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(data + b[c], data + b[mid], data + b[end], less);
    });
  }
  Kokkos::fence();
}
