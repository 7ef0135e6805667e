  // Each work item counts one contiguous chunk privately, then adds its counts atomically.
  const size_t n = image.extent(0);
  const size_t chunks = 64, chunk = (n + chunks - 1) / chunks;
  Kokkos::parallel_for("pixel_counts", chunks, KOKKOS_LAMBDA(const size_t c) {
    size_t local[256] = {};
    const size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (size_t i = c * chunk; i < end; ++i) ++local[image(i)];
    for (int v = 0; v < 256; ++v)
      if (local[v]) Kokkos::atomic_add(&bins(v), local[v]);
  });
  Kokkos::fence();
}
