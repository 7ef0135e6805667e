  // Each work item counts one contiguous chunk privately, then adds its counts atomically.
  const size_t n = points.extent(0);
  const size_t chunks = 64, chunk = (n + chunks - 1) / chunks;
  Kokkos::parallel_for("count_quadrants", chunks, KOKKOS_LAMBDA(const size_t c) {
    size_t local[4] = {};
    const size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (size_t i = c * chunk; i < end; ++i) ++local[(points(i).x >= 0 ? (points(i).y >= 0 ? 0 : 3) : (points(i).y >= 0 ? 1 : 2))];
    for (int k = 0; k < 4; ++k)
      if (local[k]) Kokkos::atomic_add(&bins(k), local[k]);
  });
  Kokkos::fence();
}
