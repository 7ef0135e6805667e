  // Each work item counts one contiguous chunk of words privately, then adds its counts atomically.
  const size_t n = s.extent(0);
  const size_t chunks = 64, chunk = (n + chunks - 1) / chunks;
  Kokkos::parallel_for("first_letter_counts", chunks, KOKKOS_LAMBDA(const size_t c) {
    size_t local[26] = {};
    const size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (size_t i = c * chunk; i < end; ++i) ++local[s(i, 0) - 'a'];
    for (int k = 0; k < 26; ++k)
      if (local[k]) Kokkos::atomic_add(&bins(k), local[k]);
  });
  Kokkos::fence();
}
