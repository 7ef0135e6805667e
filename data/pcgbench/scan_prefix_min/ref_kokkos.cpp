  // Two parallel phases over chunks: scan each chunk in place, then fold in the minimum of all earlier chunks.
  const size_t n = x.extent(0);
  const size_t chunks = 256, chunk = (n + chunks - 1) / chunks;
  Kokkos::View<float*> chunk_min("chunk_min", chunks);
  Kokkos::parallel_for("scan_chunks", chunks, KOKKOS_LAMBDA(const size_t c) {
    float low = HUGE_VALF;
    const size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (size_t i = c * chunk; i < end; ++i) {
      low = x(i) < low ? x(i) : low;
      x(i) = low;
    }
    chunk_min(c) = low;
  });
  Kokkos::fence();
  Kokkos::View<float*> before("before", chunks);
  float running = std::numeric_limits<float>::infinity();
  for (size_t c = 0; c < chunks; ++c) {
    before(c) = running;
    running = chunk_min(c) < running ? chunk_min(c) : running;
  }
  Kokkos::parallel_for("fix_chunks", chunks, KOKKOS_LAMBDA(const size_t c) {
    const size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (size_t i = c * chunk; i < end; ++i) x(i) = x(i) < before(c) ? x(i) : before(c);
  });
  Kokkos::fence();
}
