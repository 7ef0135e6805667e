  // Each work item counts one contiguous chunk privately, then adds its counts atomically.
  const size_t n = x.extent(0);
  const size_t chunks = 64, chunk = (n + chunks - 1) / chunks;
  Kokkos::parallel_for("bins_by_10", chunks, KOKKOS_LAMBDA(const size_t c) {
    size_t local[10] = {};
    const size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (size_t i = c * chunk; i < end; ++i) ++local[static_cast<size_t>(x(i) / 10.0)];
    for (int k = 0; k < 10; ++k)
      if (local[k]) Kokkos::atomic_add(&bins(k), local[k]);
  });
  Kokkos::fence();
}
